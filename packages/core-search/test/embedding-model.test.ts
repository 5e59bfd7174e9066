// The embedding strategy end to end with the bundled model: loading, determinism,
// semantic signal, the disk cache, removal, progress and every failure path.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createEmbeddingRetriever,
  DEFAULT_MODEL_PATH,
  type Embedder,
  type EmbeddingProgress,
  type EmbedKind,
  resolveModelSource,
  TransformersEmbedder,
} from '../src/embedding/index.js';
import type { AnalyzedQuery, IndexedDoc } from '../src/retriever.js';

const scratch = mkdtempSync(join(tmpdir(), 'toolsearch-embedding-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function doc(id: number, name: string, embeddingText: string): IndexedDoc {
  const none: string[] = [];
  return {
    id,
    name,
    toolset: 'test',
    tool: { name, description: embeddingText },
    fields: {
      name: none,
      title: none,
      tags: none,
      toolset: none,
      description: none,
      schema: none,
      phrasings: none,
      learned: none,
    },
    phrasings: [],
    nameWords: name.split('_'),
    embeddingText,
  };
}

function query(raw: string): AnalyzedQuery {
  return { raw, normalized: raw.toLowerCase(), shape: 'natural', terms: [], words: [] };
}

const DOCS = [
  doc(0, 'perf_trace', 'performance trace: record page load timing and rendering latency of a web page'),
  doc(1, 'send_email', 'send an email message to a recipient mailbox'),
  doc(2, 'weather_forecast', 'weather forecast: temperature, rain and wind for a city'),
  doc(3, 'git_commit', 'create a git commit with the staged changes in a repository'),
  doc(4, 'take_screenshot', 'take a screenshot image of the browser window'),
];

/** Wraps an embedder and counts what it is asked to embed. */
class CountingEmbedder implements Embedder {
  readonly calls: { kind: EmbedKind; count: number }[] = [];
  constructor(private readonly inner: Embedder) {}
  get id() {
    return this.inner.id;
  }
  load() {
    return this.inner.load?.() ?? Promise.resolve();
  }
  embed(texts: readonly string[], kind: EmbedKind) {
    this.calls.push({ kind, count: texts.length });
    return this.inner.embed(texts, kind);
  }
  documents() {
    return this.calls.filter((c) => c.kind === 'document').reduce((sum, c) => sum + c.count, 0);
  }
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('bundled model', () => {
  const bundled = () => new TransformersEmbedder({ source: resolveModelSource({ env: {} }) });

  it('is the default source and gives deterministic, normalised vectors', async () => {
    expect(resolveModelSource({ env: {} })).toEqual({
      kind: 'path',
      path: DEFAULT_MODEL_PATH,
      bundled: true,
    });
    const texts = ['search the web for news', 'read a file from disk'];
    const [a, b] = await Promise.all([
      bundled().embed(texts, 'document'),
      bundled().embed(texts, 'document'),
    ]);
    expect(a).toHaveLength(2);
    expect(a[0]).toHaveLength(100);
    expect(a).toEqual(b);
    expect(Math.hypot(...a[0]!)).toBeCloseTo(1, 4);
  });

  it('scores a related pair above an unrelated one', async () => {
    const [slow, trace, email] = await bundled().embed(
      ['my site feels slow', 'performance trace of a web page load', 'send an email message'],
      'document',
    );
    expect(cosine(slow!, trace!)).toBeGreaterThan(cosine(slow!, email!));
  });

  it('ranks a vague query to the tool that shares no word with it', async () => {
    const retriever = createEmbeddingRetriever({ cacheDir: false, env: {} });
    retriever.add(DOCS);
    await retriever.ready();
    expect(retriever.status()).toBe('ready');
    expect((await retriever.retrieve(query('my site feels slow'), 3))[0]!.id).toBe(0);
    expect((await retriever.retrieve(query('will it be sunny tomorrow'), 3))[0]!.id).toBe(2);
    const filtered = await retriever.retrieve(query('my site feels slow'), 3, (id) => id !== 0);
    expect(filtered.map((hit) => hit.id)).not.toContain(0);
    // No known word, no direction, no opinion.
    expect(await retriever.retrieve(query('zzqxv'), 3)).toEqual([]);
  });

  it('re-indexing unchanged tools runs no inference (disk cache)', async () => {
    const cacheDir = join(scratch, 'cache');
    const first = new CountingEmbedder(bundled());
    const cold = createEmbeddingRetriever({ embedder: first, cacheDir });
    cold.add(DOCS);
    await cold.ready();
    expect(first.documents()).toBe(DOCS.length);

    const second = new CountingEmbedder(bundled());
    const warm = createEmbeddingRetriever({ embedder: second, cacheDir });
    warm.add(DOCS);
    await warm.ready();
    expect(second.documents()).toBe(0);
    const q = query('weather tomorrow in Paris');
    expect(await warm.retrieve(q, 5)).toEqual(await cold.retrieve(q, 5));

    // A changed text is embedded again; the unchanged ones still come from the cache.
    const third = new CountingEmbedder(bundled());
    const changed = createEmbeddingRetriever({ embedder: third, cacheDir });
    changed.add([...DOCS.slice(0, 4), doc(4, 'take_screenshot', 'capture the screen as a png image')]);
    await changed.ready();
    expect(third.documents()).toBe(1);

    // Query vectors are kept in memory: the same query twice embeds once, and the second
    // time is answered at once (an array, not a promise: the engine need not wait a turn).
    const again = warm.retrieve(q, 5);
    expect(Array.isArray(again)).toBe(true);
    expect(again).toEqual(await cold.retrieve(q, 5));
    expect(second.calls.filter((c) => c.kind === 'query')).toHaveLength(1);
    const fresh = warm.retrieve(query('rain in Lisbon'), 5);
    expect(fresh).toBeInstanceOf(Promise);
    expect((await fresh).length).toBeGreaterThan(0);
  });

  it('embeds a text repeated by several tools once', async () => {
    const counting = new CountingEmbedder(bundled());
    const retriever = createEmbeddingRetriever({ embedder: counting, cacheDir: false });
    const copies = DOCS.map((d) => doc(d.id + 100, `${d.name}_copy`, d.embeddingText));
    retriever.add([...DOCS, ...copies]);
    await retriever.ready();
    expect(counting.documents()).toBe(DOCS.length);
    expect(retriever.size).toBe(2 * DOCS.length);
    const top = await retriever.retrieve(query('will it be sunny tomorrow'), 2);
    expect(top.map((hit) => hit.id)).toEqual([2, 102]);
  });

  it('an unwritable cache costs one warning, not the strategy', async () => {
    const notADir = join(scratch, 'cache-is-a-file');
    writeFileSync(notADir, 'x');
    const warnings: string[] = [];
    const retriever = createEmbeddingRetriever({
      cacheDir: notADir,
      env: {},
      onWarning: (w) => warnings.push(w),
    });
    retriever.add(DOCS.slice(0, 2));
    retriever.add(DOCS.slice(2));
    await retriever.ready();
    expect(retriever.status()).toBe('ready');
    expect(retriever.size).toBe(DOCS.length);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('cache');
  });

  it('forgets removed tools, also when removed before their vectors are in', async () => {
    const retriever = createEmbeddingRetriever({ cacheDir: false, env: {} });
    retriever.add(DOCS);
    retriever.remove([1]); // still pending
    await retriever.ready();
    retriever.remove([0]);
    const ids = (await retriever.retrieve(query('slow web page, send mail'), 10)).map((hit) => hit.id);
    expect(ids).not.toContain(0);
    expect(ids).not.toContain(1);
    expect(ids).toHaveLength(3);
    expect(retriever.size).toBe(3);
  });

  it('reports progress for 1,000 tools or more', async () => {
    const progress: EmbeddingProgress[] = [];
    const retriever = createEmbeddingRetriever({
      cacheDir: false,
      env: {},
      onProgress: (p) => progress.push(p),
    });
    retriever.add(
      Array.from({ length: 1000 }, (_, i) => doc(i, `tool_${i}`, `tool number ${i} does thing ${i % 7}`)),
    );
    await retriever.ready();
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.at(-1)).toEqual({ phase: 'embedding', done: 1000, total: 1000 });
    expect(progress.map((p) => p.done)).toEqual([...progress.map((p) => p.done)].sort((a, b) => a - b));
  });
});

describe('fusion weight by query length', () => {
  it('is full for short queries and falls for long ones', () => {
    const retriever = createEmbeddingRetriever({
      cacheDir: false,
      embedder: { id: 'none', embed: async () => [] },
    });
    const words = (n: number): AnalyzedQuery => ({
      ...query('q'),
      words: Array.from({ length: n }, (_, i) => `w${i}`),
    });
    expect(retriever.weightFor(words(3))).toBe(1);
    expect(retriever.weightFor(words(14))).toBe(1);
    expect(retriever.weightFor(words(28))).toBeCloseTo(0.25);
    expect(retriever.weightFor(words(0))).toBe(1);
  });
});

describe('failure paths degrade, never throw', () => {
  async function expectUnavailable(options: Parameters<typeof createEmbeddingRetriever>[0]) {
    const warnings: string[] = [];
    const retriever = createEmbeddingRetriever({
      cacheDir: false,
      env: {},
      ...options,
      onWarning: (w) => warnings.push(w),
    });
    retriever.add(DOCS);
    await retriever.ready();
    expect(retriever.status()).toBe('unavailable');
    expect(await retriever.retrieve(query('send mail'), 5)).toEqual([]);
    retriever.add(DOCS); // later adds are ignored, not retried
    await retriever.ready();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^toolsearch: /);
    return warnings[0]!;
  }

  it('a missing model folder', async () => {
    const warning = await expectUnavailable({ modelPath: join(scratch, 'no-such-model') });
    expect(warning).toContain('no-such-model');
  });

  it('the TOOLSEARCH_MODEL_PATH variable is honoured (and a bad one degrades)', async () => {
    const env = { TOOLSEARCH_MODEL_PATH: join(scratch, 'env-model') };
    expect(resolveModelSource({ env })).toMatchObject({ kind: 'path', bundled: false });
    expect(resolveModelSource({ env: { TOOLSEARCH_MODEL: 'Xenova/bge-small-en-v1.5' } })).toEqual({
      kind: 'hub',
      model: 'Xenova/bge-small-en-v1.5',
    });
    const warnings: string[] = [];
    const retriever = createEmbeddingRetriever({ cacheDir: false, env, onWarning: (w) => warnings.push(w) });
    await retriever.ready();
    expect(retriever.status()).toBe('unavailable');
    expect(warnings[0]).toContain('env-model');
  });

  it('a corrupt onnx file', async () => {
    const broken = join(scratch, 'corrupt-model');
    cpSync(DEFAULT_MODEL_PATH, broken, { recursive: true });
    writeFileSync(join(broken, 'onnx', 'model_quantized.onnx'), 'this is not an onnx protobuf');
    const warning = await expectUnavailable({ modelPath: broken });
    expect(warning).toContain('corrupt-model');
  });

  it('an embedder that throws while embedding', async () => {
    const failing: Embedder = {
      id: 'failing',
      embed: () => Promise.reject(new Error('quota exceeded')),
    };
    expect(await expectUnavailable({ embedder: failing })).toContain('quota exceeded');
  });

  it('a hub model while offline and remote downloads are disallowed', async () => {
    await expectUnavailable({
      model: 'nobody/no-such-model',
      allowRemoteModels: false,
      cacheDir: join(scratch, 'hub'),
    });
  });
});
