/**
 * The bundled model without an ONNX runtime. A static word-embedding model (as
 * written by scripts/model/onnx-graph.ts) is a lookup table: each token's row of
 * int8 values times that token's float32 scale (SIF weight and quantisation step
 * in one), masked, mean-pooled and L2-normalised. This reads the two tables out of
 * the same .onnx file transformers.js runs, tokenises with the model's
 * tokenizer.json, and does that arithmetic in TypeScript, step for step as
 * onnxruntime and transformers.js do it (float32 products, a float64 sum over the
 * tokens rounded to float32, a float32 running sum of squares), so the vectors are
 * bit-identical to theirs (test/embedding-static.test.ts checks it where
 * @huggingface/transformers is installed). The one deliberate difference: a text
 * with no known word gives a zero vector ("no opinion") where the pipeline gives NaN.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { DEFAULTS } from '../defaults.js';
import { ToolSearchError } from '../errors.js';
import { embedderId, type ModelSource } from './model-source.js';
import { ONNX_FLOAT, ONNX_INT8, type OnnxGraphSummary, readOnnxGraph } from './onnx-reader.js';
import { spellerForVocab, type WordSpeller } from './speller.js';
import type { Embedder, EmbedKind } from './types.js';

/** The op sequence of the static graph (scripts/model/onnx-graph.ts); any other graph needs a runtime. */
const STATIC_GRAPH_OPS = ['Gather', 'Cast', 'Gather', 'Mul', 'Cast', 'Unsqueeze', 'Mul'] as const;

/** transformers.js' weight file suffix per dtype (onnx/model<suffix>.onnx). */
const DTYPE_SUFFIX: Readonly<Record<string, string>> = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
};

/** The weight file transformers.js loads for `dtype` from a model folder. */
export function onnxFileFor(folder: string, dtype: string): string {
  return join(folder, 'onnx', `model${DTYPE_SUFFIX[dtype] ?? `_${dtype}`}.onnx`);
}

export interface StaticModel {
  rows: number;
  dims: number;
  /** rows x dims, row-major. */
  table: Int8Array;
  scales: Float32Array;
}

/** The tables of a static graph, or undefined when the graph is anything else. */
export function staticModelFromGraph(graph: OnnxGraphSummary, where: string): StaticModel | undefined {
  if (graph.ops.length !== STATIC_GRAPH_OPS.length || graph.ops.some((op, i) => op !== STATIC_GRAPH_OPS[i])) {
    return undefined;
  }
  const table = graph.initializers.get('emb_q8');
  const scale = graph.initializers.get('emb_scale');
  if (!table || !scale) return undefined;
  const [rows, dims] = table.dims;
  const bad = (why: string): never => {
    throw new ToolSearchError('MODEL_LOAD_FAILED', `${where}: ${why}`);
  };
  if (table.dataType !== ONNX_INT8 || table.dims.length !== 2 || !rows || !dims) {
    return bad(`emb_q8 must be an int8 [rows, dims] table (type ${table.dataType}, dims [${table.dims}])`);
  }
  if (table.raw.length !== rows * dims) bad(`emb_q8 holds ${table.raw.length} bytes, not ${rows} x ${dims}`);
  if (scale.dataType !== ONNX_FLOAT || scale.dims[0] !== rows || scale.raw.length !== rows * 4) {
    bad(`emb_scale must be a float32 [${rows}, 1] column (type ${scale.dataType}, dims [${scale.dims}])`);
  }
  const view = new DataView(scale.raw.buffer, scale.raw.byteOffset, scale.raw.byteLength);
  const scales = new Float32Array(rows);
  for (let row = 0; row < rows; row++) scales[row] = view.getFloat32(row * 4, true);
  return {
    rows,
    dims,
    table: new Int8Array(table.raw.buffer, table.raw.byteOffset, table.raw.byteLength),
    scales,
  };
}

interface Loaded {
  model: StaticModel;
  /**
   * The tokenizer, built on first use when there is a word table: building it (its vocabulary
   * into maps) was a third of a warm 10k-tool start, which looks up every word.
   */
  tokenizer: () => Tokenizer;
  /** Whole-word look-ups that give the tokenizer's ids without running it (see wordTable). */
  words?: WordTable;
  maxTokens: number;
  speller?: WordSpeller;
  /** The embedder's one pool: embed() starts, fills and takes it per text, with no await between. */
  pool: MeanPool;
}

/**
 * What a word-level BERT tokenizer does to a chunk of printable ASCII (no space): lower-case
 * it (BertNormalizer; accents, CJK and control characters are not ASCII-printable), split
 * it into runs of letters and digits and single punctuation characters (BertPreTokenizer:
 * every other printable ASCII character is punctuation to it), and give each piece found
 * whole in the vocabulary its id (WordPiece tries the whole word first; WordLevel only
 * that). A piece not found goes to the tokenizer alone (the pre-tokenizer would have cut
 * it out as it is), a chunk holding a special token whole.
 */
interface WordTable {
  vocab: ReadonlyMap<string, number>;
  lowercase: boolean;
  /** WordPiece gives [UNK] for longer words. */
  maxChars: number;
  /** Added tokens: matched in the raw text before normalisation. */
  specials: readonly string[];
  /**
   * The one id the tokenizer gives any piece not in the vocabulary, when it gives one:
   * WordLevel's unknown token, and WordPiece's when the vocabulary holds no continuing
   * pieces ("##ing"), so that no word can be spelt from pieces. Undefined otherwise (the
   * tokenizer is asked). At 10k tools it was asked about 2,369 unknown ASCII words, each
   * giving [UNK]: ~36 ms CPU of the ~480 ms the embedding of a cold build took (load 8).
   */
  unknownId: number | undefined;
}

/** The word table of a tokenizer.json, or undefined when its pipeline is not the word-level BERT one. */
function wordTable(json: TokenizerJson, vocab: ReadonlyMap<string, number>): WordTable | undefined {
  const { normalizer, pre_tokenizer: preTokenizer, model, post_processor: postProcessor } = json;
  if (normalizer?.type !== 'BertNormalizer' || preTokenizer?.type !== 'BertPreTokenizer') return undefined;
  if (postProcessor) return undefined;
  const maxChars =
    model?.type === 'WordLevel'
      ? Number.POSITIVE_INFINITY
      : model?.type === 'WordPiece'
        ? (model.max_input_chars_per_word ?? 100)
        : undefined;
  if (maxChars === undefined) return undefined;
  const unknown = typeof model?.unk_token === 'string' ? vocab.get(model.unk_token) : undefined;
  const continuing = model?.type === 'WordPiece' ? (model.continuing_subword_prefix ?? '##') : undefined;
  let pieces = false;
  if (continuing !== undefined) for (const token of vocab.keys()) pieces ||= token.startsWith(continuing);
  return {
    vocab,
    lowercase: normalizer.lowercase !== false,
    maxChars,
    specials: (json.added_tokens ?? []).map((token) => token.content).filter((text) => text !== ''),
    unknownId: pieces ? undefined : unknown,
  };
}

/** Printable ASCII, no space. */
const ASCII_CHUNK = /^[\x21-\x7e]+$/;
/** Letters-and-digits runs, and each other character alone. */
const ASCII_PIECES = /[A-Za-z0-9]+|[^A-Za-z0-9]/g;

interface TokenizerJson {
  normalizer?: { type?: string; lowercase?: boolean } | null;
  pre_tokenizer?: { type?: string } | null;
  post_processor?: unknown;
  model?: {
    type?: string;
    vocab?: Record<string, unknown>;
    max_input_chars_per_word?: number;
    unk_token?: unknown;
    continuing_subword_prefix?: string;
  };
  added_tokens?: { content: string }[];
}

export interface StaticEmbedderOptions {
  /** A local model folder (kind 'path'). */
  source: Extract<ModelSource, { kind: 'path' }>;
  dtype?: string;
  queryPrefix?: string;
  documentPrefix?: string;
}

/**
 * Embeds with a static model folder. load() rejects with MODEL_LOAD_FAILED when the
 * folder is unreadable, and with code 'NOT_STATIC' (see isNotStatic) when its graph
 * is not the static one, so a caller can fall back to a runtime.
 */
export class StaticEmbedder implements Embedder {
  readonly id: string;
  private readonly dtype: string;
  private readonly queryPrefix: string;
  private readonly documentPrefix: string;
  private loaded?: Promise<Loaded>;

  constructor(private readonly options: StaticEmbedderOptions) {
    this.dtype = options.dtype ?? DEFAULTS.embedding.dtype;
    this.queryPrefix = options.queryPrefix ?? '';
    this.documentPrefix = options.documentPrefix ?? '';
    // The same id as TransformersEmbedder's for the same folder: the vectors are the same,
    // so a disk cache written by either serves both.
    this.id = embedderId(options.source, this.dtype, this.queryPrefix, this.documentPrefix);
  }

  async load(): Promise<void> {
    await this.getLoaded();
  }

  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    const loaded = await this.getLoaded();
    const { maxTokens, speller, pool } = loaded;
    const prefix = kind === 'query' ? this.queryPrefix : this.documentPrefix;
    return texts.map((text) => {
      const input = prefix + (kind === 'query' && speller ? speller.correct(text) : text);
      // The ids of each chunk go straight into the pool, in order, up to maxTokens (truncated
      // like the pipeline's tokenizer call: truncation: true, model_max_length).
      pool.start();
      for (const chunk of input.split(' ')) {
        if (chunk === '') continue;
        for (const id of this.chunk(loaded, chunk)) {
          if (pool.size >= maxTokens) return pool.take();
          pool.add(id);
        }
      }
      return pool.take();
    });
  }

  /** Token ids per space-separated chunk of text (see chunk()); bounded like the analysis memos. */
  private readonly chunkIds = new Map<string, readonly number[]>();

  /**
   * The ids of one space-free chunk, memoised: tokenizer.encode(text).ids is the ids of
   * its chunks in order. Encoding was most of a cold 10k-tool build (registries repeat
   * their words), and it is exact: the BERT normaliser and pre-tokenizer of a word-level
   * model act on each character or each whitespace-delimited run, special tokens hold no
   * space, and no post-processor adds tokens (test/embedding-static.test.ts compares the
   * two on edge cases and the fixtures). A chunk of ASCII is looked up piece by piece
   * (wordIds): running the tokenizer on each new chunk was a fifth of a cold 10k-tool build.
   */
  private chunk(loaded: Loaded, chunk: string): readonly number[] {
    let chunkIds = this.chunkIds.get(chunk);
    if (chunkIds === undefined) {
      chunkIds = this.wordIds(loaded, chunk) ?? (loaded.tokenizer().encode(chunk).ids as readonly number[]);
      if (this.chunkIds.size >= DEFAULTS.embedding.maxMemoChunks) this.chunkIds.clear();
      this.chunkIds.set(chunk, chunkIds);
    }
    return chunkIds;
  }

  /**
   * The ids of an ASCII chunk from the word table (see WordTable): each known piece looked
   * up, each unknown one encoded alone (and memoised as a chunk of its own). Undefined
   * when the table does not apply, or the chunk is a single unknown piece.
   */
  private wordIds(loaded: Loaded, chunk: string): readonly number[] | undefined {
    const table = loaded.words;
    if (!table || !ASCII_CHUNK.test(chunk) || table.specials.some((special) => chunk.includes(special))) {
      return undefined;
    }
    const pieces = (table.lowercase ? chunk.toLowerCase() : chunk).match(ASCII_PIECES) ?? [];
    const ids: number[] = [];
    for (const piece of pieces) {
      const id = (piece.length <= table.maxChars ? table.vocab.get(piece) : undefined) ?? table.unknownId;
      if (id !== undefined) ids.push(id);
      else if (pieces.length === 1) return undefined;
      else for (const pieceId of this.chunk(loaded, piece)) ids.push(pieceId);
    }
    return ids;
  }

  /** The model's vector width, once loaded (the disk cache is checked against it). */
  get dims(): number | undefined {
    return this.width;
  }

  private width?: number;

  private getLoaded(): Promise<Loaded> {
    this.loaded ??= this.read().then((loaded) => {
      this.width = loaded.model.dims;
      return loaded;
    });
    return this.loaded;
  }

  private async read(): Promise<Loaded> {
    const folder = this.options.source.path;
    const file = onnxFileFor(folder, this.dtype);
    const [bytes, tokenizerJson, tokenizerConfig] = await Promise.all([
      readModelFile(file),
      readModelFile(join(folder, 'tokenizer.json')).then((b) => parseJson(b, join(folder, 'tokenizer.json'))),
      readModelFile(join(folder, 'tokenizer_config.json')).then((b) =>
        parseJson(b, join(folder, 'tokenizer_config.json')),
      ),
    ]);
    const model = staticModelFromGraph(readOnnxGraph(bytes, file), file);
    if (!model) throw new NotStaticModelError(file);
    let built: Tokenizer | undefined;
    const tokenizer = (): Tokenizer => {
      try {
        built ??= new Tokenizer(tokenizerJson as object, tokenizerConfig as object);
        return built;
      } catch (error) {
        throw new ToolSearchError(
          'MODEL_LOAD_FAILED',
          `${join(folder, 'tokenizer.json')} could not be used: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    };
    const json = tokenizerJson as TokenizerJson;
    const vocab = new Map<string, number>();
    let largest = -1;
    const tokens = json.model?.vocab ?? {};
    // Keys, then each value: Object.entries made a pair per token, ~50 -> ~20 ms for 40,930.
    for (const token of Object.keys(tokens)) {
      const id = tokens[token];
      if (typeof id !== 'number') continue;
      vocab.set(token, id);
      if (id > largest) largest = id;
    }
    if (largest >= model.rows) {
      throw new ToolSearchError(
        'MODEL_LOAD_FAILED',
        `${folder}: the tokenizer has token id ${largest} but the table only ${model.rows} rows`,
      );
    }
    const words = wordTable(json, vocab);
    // Without a word table every chunk needs the tokenizer: built now, a bad file fails the load.
    if (!words) tokenizer();
    const maxLength = (tokenizerConfig as { model_max_length?: unknown }).model_max_length;
    return {
      model,
      pool: new MeanPool(model),
      tokenizer,
      maxTokens: typeof maxLength === 'number' && maxLength > 0 ? maxLength : Number.POSITIVE_INFINITY,
      words,
      speller: spellerForVocab(json.model?.type, vocab),
    };
  }
}

/** The vector of a text's token ids: MeanPool over them. */
export function embedIds(model: StaticModel, ids: readonly number[]): Float32Array {
  const pool = new MeanPool(model); // empty: new
  for (const id of ids) pool.add(id);
  return pool.take();
}

/**
 * Mean of the tokens' rows, then L2-normalised, in the pipeline's precision: each
 * token value float32(int8 * scale) (ONNX Cast + Mul), summed per dimension in
 * float64 in token order and the mean rounded to float32 (transformers.js
 * mean_pooling); the norm a float32 running sum of squares, its square root by
 * `** 0.5`, each value divided and rounded to float32 (Tensor.normalize).
 * Tokens are added one by one as they are looked up, into sums reused text after text:
 * an id array and two scratch arrays per text were garbage a cold 10k-tool build collected.
 */
export class MeanPool {
  private readonly sums: Float64Array;
  private count = 0;

  constructor(private readonly model: StaticModel) {
    this.sums = new Float64Array(model.dims);
  }

  /** Tokens added since the last start(). */
  get size(): number {
    return this.count;
  }

  /** Empty the pool for the next text (after a take(), or a text abandoned by an error). */
  start(): void {
    this.sums.fill(0);
    this.count = 0;
  }

  add(id: number): void {
    const { dims, table, scales } = this.model;
    const { sums } = this;
    const scale = scales[id]!;
    const base = id * dims;
    for (let k = 0; k < dims; k++) sums[k]! += Math.fround(table[base + k]! * scale);
    this.count++;
  }

  /** The pooled vector of the tokens added since start(). */
  take(): Float32Array {
    const { dims } = this.model;
    const { sums } = this;
    const out = new Float32Array(dims);
    const count = this.count;
    if (count === 0) return out;
    for (let k = 0; k < dims; k++) out[k] = sums[k]! / count;
    let squares = 0; // float32, as a Float32Array(1) running sum holds it
    for (let k = 0; k < dims; k++) squares = Math.fround(squares + out[k]! ** 2);
    const norm = Math.fround(squares ** 0.5);
    // No known word: every row is zero. No direction, so a zero vector, not 0/0.
    if (norm === 0) return out.fill(0);
    for (let k = 0; k < dims; k++) out[k] = out[k]! / norm;
    return out;
  }
}

/** load() found a graph other than the static one: the folder needs an ONNX runtime. */
export class NotStaticModelError extends Error {
  override readonly name = 'NotStaticModelError';
  constructor(readonly file: string) {
    super(`${file} is not a static word-embedding graph`);
  }
}

async function readModelFile(file: string): Promise<Uint8Array> {
  try {
    return await readFile(file);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : String(error);
    throw new ToolSearchError('MODEL_LOAD_FAILED', `embedding model file ${file}: ${reason}`);
  }
}

function parseJson(bytes: Uint8Array, file: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new ToolSearchError(
      'MODEL_LOAD_FAILED',
      `${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
