// The bundled model computed in TypeScript (StaticEmbedder) against the ONNX runtime
// (transformers.js + onnxruntime-node, a devDependency here): the same vectors, bit for bit.
// Bitwise, not "within float32 rounding": every step is the same IEEE operation in the same
// order (see static-embedder.ts), so any difference is a bug, not noise.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MODEL_PATH,
  embeddingInput,
  ModelEmbedder,
  queryEmbeddingInput,
  StaticEmbedder,
  TransformersEmbedder,
} from '../src/embedding/index.js';
import { readOnnxGraph } from '../src/embedding/onnx-reader.js';
import { embedIds, staticModelFromGraph } from '../src/embedding/static-embedder.js';
import { transformersImportError } from '../src/embedding/transformers-embedder.js';
import { readDataset } from '../src/eval/index.js';
import type { ToolSearchError } from '../src/index.js';
import { analyzeTool } from '../src/internals.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const MODEL_FILE = join(DEFAULT_MODEL_PATH, 'onnx', 'model_quantized.onnx');
const source = { kind: 'path', path: DEFAULT_MODEL_PATH, bundled: true } as const;

const hasTransformers = await import('@huggingface/transformers').then(
  () => true,
  () => false,
);

/** Texts that exercise the tokenizer's edges: accents, CJK, control characters, punctuation, length. */
const EDGE_TEXTS = [
  'Résumé café naïve façade — Ångström',
  '天气预报 weather 東京 forecast',
  'tab\there\u0000null\u200bzero-width\r\nnewline',
  "it's a user's e-mail (address): foo@example.com; 3.14 ≥ 2",
  'ＦＵＬＬＷＩＤＴＨ letters and ﬁ ligature',
  'xqzvvk qqpw zzyzx', // no known word
  'the', // one word
  `${'weather forecast for the city '.repeat(200)}`, // > 512 tokens: truncated like the pipeline
  'takeScreenshot of_the page',
  '  leading, double  and trailing spaces  ', // empty chunks between spaces
  'send x[CLS]y [SEP] email [MASK]z', // special tokens inside and between chunks
  'e \u0301accent after a space; 中文 chunk中文', // a combining mark opening a chunk; CJK inside one
  'GET/api/v2?user=ME&limit=10 [cls] [UNK]x ~`!@#$%^&*()_+-={}|[]\\:";\'<>,.? EMAIL.Send', // ASCII look-ups
  'CamelCaseWord 3.14159 x1y2z3 emailaddress mail-merge re-send', // known and unknown ASCII words
  `${'x'.repeat(150)} send ${'weather'.repeat(20)}-email ${'a'.repeat(100)}`, // pieces over WordPiece's 100 characters
];

function fixtureTexts(): string[] {
  const dataset = readDataset(join(ROOT, 'fixtures', 'queries', 'toolsearch-queries.json'));
  const docs = dataset.tools.map((tool, id) => embeddingInput(analyzeTool(tool, id).embeddingText));
  const queries = dataset.queries.map((query) => queryEmbeddingInput(query.query));
  return [...docs, ...queries];
}

describe('static embedder', () => {
  it('reads the two tables of the bundled graph', () => {
    const model = staticModelFromGraph(readOnnxGraph(readFileSync(MODEL_FILE), MODEL_FILE), MODEL_FILE);
    expect(model?.dims).toBe(100);
    const config = JSON.parse(readFileSync(join(DEFAULT_MODEL_PATH, 'config.json'), 'utf8'));
    expect(model?.rows).toBe(config.vocab_size);
    // [PAD] and [UNK] are zero rows; real words are not.
    expect(embedIds(model!, [0, 1]).every((x) => x === 0)).toBe(true);
    const word = embedIds(model!, [100]);
    expect(Math.hypot(...word)).toBeCloseTo(1, 5);
  });

  it('gives unit vectors, zero for text with no known word, and the same vector twice', async () => {
    const embedder = new StaticEmbedder({ source });
    const [a, b, none, again] = await embedder.embed(
      ['send an email', 'weather forecast', 'xqzvvk qqpw', 'send an email'],
      'document',
    );
    expect(Math.hypot(...a!)).toBeCloseTo(1, 5);
    expect(a).not.toEqual(b);
    expect(none!.every((x) => x === 0)).toBe(true);
    expect(again).toEqual(a);
  });

  it('encodes text chunk by chunk (memoised) exactly as the tokenizer encodes it whole', async () => {
    const texts = [...fixtureTexts(), ...EDGE_TEXTS];
    const read = (file: string) => JSON.parse(readFileSync(join(DEFAULT_MODEL_PATH, file), 'utf8'));
    const tokenizer = new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
    const model = staticModelFromGraph(readOnnxGraph(readFileSync(MODEL_FILE), MODEL_FILE), MODEL_FILE)!;
    const embedder = new StaticEmbedder({ source });
    // Twice: the second pass reads every chunk from the memo.
    for (let pass = 0; pass < 2; pass++) {
      const ours = await embedder.embed(texts, 'document');
      texts.forEach((text, i) => {
        const whole = embedIds(model, tokenizer.encode(text).ids.slice(0, 512));
        expect(Buffer.from(ours[i]!.buffer).equals(Buffer.from(whole.buffer)), text).toBe(true);
      });
    }
  });

  it('is what the strategy runs for the bundled model, with no ONNX runtime', async () => {
    const embedder = new ModelEmbedder({ source });
    await embedder.load();
    expect(embedder.runtime).toBe('static');
    expect(embedder.id).toBe(new TransformersEmbedder({ source }).id);
  });

  it('rejects a malformed weight file with MODEL_LOAD_FAILED naming it', () => {
    const bytes = readFileSync(MODEL_FILE).subarray(0, 5000);
    expect(() => readOnnxGraph(bytes, 'cut.onnx')).toThrow(/cut\.onnx is not a readable ONNX model/);
    try {
      readOnnxGraph(bytes, 'cut.onnx');
    } catch (error) {
      expect((error as ToolSearchError).code).toBe('MODEL_LOAD_FAILED');
    }
  });

  it('names the package to install when a transformer model needs it and it is missing', () => {
    const missing = Object.assign(
      new Error("Cannot find package '@huggingface/transformers' imported from /x/dist/embedding/x.js"),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    const error = transformersImportError(missing);
    expect(error.code).toBe('MISSING_DEPENDENCY');
    expect(error.message).toContain('npm install @huggingface/transformers');
    // Another failure inside the package is a load failure, not a missing package.
    const other = transformersImportError(
      Object.assign(new Error("Cannot find module 'onnxruntime-node/bin/x.node'"), {
        code: 'ERR_MODULE_NOT_FOUND',
      }),
    );
    expect(other.code).toBe('MODEL_LOAD_FAILED');
  });
});

describe.skipIf(!hasTransformers)('static embedder against the ONNX runtime', () => {
  it('gives bit-identical vectors on the fixtures and the tokenizer edge cases', async () => {
    const texts = [...fixtureTexts(), ...EDGE_TEXTS];
    expect(texts.length).toBeGreaterThan(300);
    const ours = await new StaticEmbedder({ source }).embed(texts, 'document');
    const theirs = await new TransformersEmbedder({ source }).embed(texts, 'document');
    let compared = 0;
    texts.forEach((text, i) => {
      const a = ours[i]!;
      const b = theirs[i]!;
      if (b.every(Number.isNaN)) {
        // The pipeline divides 0 by 0 for text with no known word; we give a zero vector.
        expect(
          a.every((x) => x === 0),
          text,
        ).toBe(true);
        return;
      }
      expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer)), text).toBe(true);
      compared++;
    });
    expect(compared).toBeGreaterThan(texts.length - 5);
  });

  it('corrects query words the same way', async () => {
    const queries = ['send an emial to the tem', 'wether forcast for tomorow'];
    const ours = await new StaticEmbedder({ source }).embed(queries, 'query');
    const theirs = await new TransformersEmbedder({ source }).embed(queries, 'query');
    expect(ours).toEqual(theirs);
  });
});
