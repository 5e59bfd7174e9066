/**
 * What the embedding strategy costs, on the 9,970 Smithery tools:
 * - the bundled default model: load, cold indexing (empty cache), warm indexing
 *   (cache filled), hybrid search latency with the query embedding included, memory;
 * - a MiniLM-sized transformer (../shared/models/TIMING-ONLY-minilm-l6-random, random
 *   weights, real architecture and tokenizer): load, indexing a subsample (extrapolated
 *   to 9,970 tools, stated in the output), query embedding + scan latency, memory.
 *
 *   npx tsx --conditions=toolsearch-source benchmarks/src/embedding.ts [--minilm-sample 1000] [--queries 300]
 *
 * Prints a table and writes benchmarks/results/embedding.json. Needs ../shared (skips
 * with a message when absent). Each measurement runs in this one process, one after
 * the other, so memory figures are RSS deltas, not isolated footprints.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type ToolDefinition, ToolSearch } from '@toolsearch/core-search';
import { percentile, readDataset, readTools } from '@toolsearch/core-search/eval';
import {
  analyzeTool,
  createEmbeddingRetriever,
  DEFAULT_MODEL_NAME,
  ModelEmbedder,
  TransformersEmbedder,
  VectorStore,
} from '@toolsearch/core-search/internals';
import { runMeta } from './environment.js';
import { REPO, RESULTS, SHARED_DATASETS, SHARED_MODELS } from './paths.js';

const SMITHERY = join(SHARED_DATASETS, 'smithery_toolgym_tools.json');
const MINILM = join(SHARED_MODELS, 'TIMING-ONLY-minilm-l6-random');
const QUERY_SOURCES = ['metatool.json', 'mcptoolbenchpp.json', 'bfcl.json'].map((f) =>
  join(SHARED_DATASETS, f),
);

const { values } = parseArgs({
  options: {
    'minilm-sample': { type: 'string', default: '1000' },
    queries: { type: 'string', default: '300' },
  },
});
const minilmSample = Number(values['minilm-sample']);
const queryCount = Number(values.queries);

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const round = (ms: number) => Math.round(ms * 100) / 100;
const rss = () => process.memoryUsage().rss;

async function timed<T>(run: () => Promise<T> | T): Promise<[T, number]> {
  const start = performance.now();
  const value = await run();
  return [value, performance.now() - start];
}

/** Distinct natural-language queries, never seen before by the query LRU. */
function benchmarkQueries(): string[] {
  const seen = new Set<string>();
  for (const file of QUERY_SOURCES) {
    if (!existsSync(file)) continue;
    for (const q of readDataset(file).queries) {
      if (seen.size >= queryCount) break;
      seen.add(q.query);
    }
  }
  return [...seen];
}

async function latencies(engine: ToolSearch, queries: string[], disable: ('embedding' | 'keyword')[] = []) {
  const times: number[] = [];
  for (const query of queries) {
    const [, ms] = await timed(() => engine.search(query, disable.length > 0 ? { disable } : {}));
    times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)) };
}

async function defaultModel(tools: ToolDefinition[], queries: string[]) {
  const cacheDir = mkdtempSync(join(tmpdir(), 'toolsearch-bench-cache-'));
  try {
    const [, lexicalMs] = await timed(async () => {
      const engine = new ToolSearch({ tools, embedding: false });
      await engine.ready();
    });
    const before = rss();
    // What the strategy runs for the bundled model: the TypeScript static embedder, no ONNX runtime.
    const embedder = new ModelEmbedder({
      source: { kind: 'path', path: defaultPath(), bundled: true },
    });
    const [, loadMs] = await timed(() => embedder.load());
    const [probe] = await embedder.embed(['dimension probe'], 'query');
    // The embedding strategy on its own (model load included, lexical indexing excluded).
    const docs = tools.map((tool, id) => analyzeTool(tool, id));
    const strategyCacheDir = join(cacheDir, 'strategy');
    const [, embedColdMs] = await timed(async () => {
      const retriever = createEmbeddingRetriever({ cacheDir: strategyCacheDir });
      retriever.add(docs);
      await retriever.ready();
    });
    const [, embedWarmMs] = await timed(async () => {
      const retriever = createEmbeddingRetriever({ cacheDir: strategyCacheDir });
      retriever.add(docs);
      await retriever.ready();
    });
    const [cold, coldMs] = await timed(async () => {
      const engine = new ToolSearch({ tools, embedding: { cacheDir } });
      await engine.ready();
      return engine;
    });
    const afterCold = rss();
    const [warm, warmMs] = await timed(async () => {
      const engine = new ToolSearch({ tools, embedding: { cacheDir } });
      await engine.ready();
      return engine;
    });
    const hybrid = await latencies(warm, queries);
    const hybridRepeat = await latencies(warm, queries); // every query vector now in the LRU
    const lexical = await latencies(cold, queries, ['embedding']);
    return {
      model: DEFAULT_MODEL_NAME,
      tools: tools.length,
      modelLoadMs: round(loadMs),
      indexLexicalOnlyMs: round(lexicalMs),
      embedOnlyColdMs: round(embedColdMs),
      embedOnlyWarmMs: round(embedWarmMs),
      indexColdMs: round(coldMs),
      indexWarmMs: round(warmMs),
      searchHybridMs: hybrid,
      searchHybridRepeatedQueryMs: hybridRepeat,
      searchLexicalOnlyMs: lexical,
      // The vector scan inside hybrid search, alone, at the bundled model's width.
      vectorScanMs: scanTimes(tools.length, probe!.length, unitVectors(100, probe!.length, 7)),
      rssDeltaMb: mb(afterCold - before),
      queries: queries.length,
    };
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

function defaultPath(): string {
  return fileURLToPath(new URL(`../../packages/core-search/models/${DEFAULT_MODEL_NAME}`, import.meta.url));
}

async function minilm(tools: ToolDefinition[], queries: string[]) {
  const before = rss();
  const embedder = new TransformersEmbedder({ source: { kind: 'path', path: MINILM, bundled: false } });
  const [, loadMs] = await timed(() => embedder.load());
  const afterLoad = rss();
  const sample = tools.slice(0, Math.min(minilmSample, tools.length));
  const retriever = createEmbeddingRetriever({ embedder, cacheDir: false });
  const docs = sample.map((tool, id) => ({
    id,
    name: tool.name,
    toolset: 'bench',
    tool,
    fields: {
      name: [],
      title: [],
      tags: [],
      toolset: [],
      description: [],
      schema: [],
      phrasings: [],
      learned: [],
    },
    phrasings: [],
    nameWords: [],
    embeddingText: `${tool.name.replace(/[_-]+/g, ' ')} ${tool.description ?? ''}`,
  }));
  const [, sampleMs] = await timed(async () => {
    retriever.add(docs);
    await retriever.ready();
  });
  const afterIndex = rss();
  const embedTimes: number[] = [];
  const vectors: Float32Array[] = [];
  for (const query of queries.slice(0, 100)) {
    const [[vector], ms] = await timed(() => embedder.embed([query], 'query'));
    embedTimes.push(ms);
    if (vector) vectors.push(vector);
  }
  embedTimes.sort((a, b) => a - b);
  // The scan at full size: 9,970 unit vectors of the model's width.
  const scan = scanTimes(tools.length, vectors[0]?.length ?? 384, vectors);
  const perDoc = sampleMs / sample.length;
  return {
    model: 'TIMING-ONLY-minilm-l6-random (all-MiniLM-L6-v2 architecture, q8)',
    modelLoadMs: round(loadMs),
    indexedSample: sample.length,
    indexSampleMs: round(sampleMs),
    indexExtrapolatedMs: Math.round(perDoc * tools.length),
    extrapolatedTo: tools.length,
    queryEmbedMs: { p50: round(percentile(embedTimes, 50)), p95: round(percentile(embedTimes, 95)) },
    scanMs: scan,
    rssAfterLoadMb: mb(afterLoad - before),
    rssAfterIndexMb: mb(afterIndex - before),
  };
}

/** `count` deterministic, well-spread unit vectors. */
function unitVectors(count: number, dims: number, seed: number): Float32Array[] {
  return Array.from({ length: count }, (_, id) => {
    const v = new Float32Array(dims).map((_, i) => Math.sin(id * seed + i));
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

/**
 * p50/p95 of a top-100 vector-store search over `count` synthetic unit vectors, with
 * the WebAssembly SIMD scan and with the JavaScript fallback.
 */
function scanTimes(count: number, dims: number, queries: Float32Array[]) {
  const rows = unitVectors(count, dims, 31);
  const measure = (simd: boolean) => {
    const store = new VectorStore({ simd });
    rows.forEach((row, id) => {
      store.add(id, row);
    });
    const times: number[] = [];
    for (let pass = 0; pass < 2; pass++) {
      for (const query of queries) {
        const start = performance.now();
        store.search(query, 100);
        if (pass > 0) times.push(performance.now() - start);
      }
    }
    times.sort((a, b) => a - b);
    return { kind: store.scanKind, p50: round(percentile(times, 50)), p95: round(percentile(times, 95)) };
  };
  const fast = measure(true);
  const fallback = measure(false);
  return { p50: fast.p50, p95: fast.p95, kind: fast.kind, jsFallbackP50: fallback.p50, vectors: count, dims };
}

async function main() {
  if (!existsSync(SMITHERY)) {
    console.error('embedding benchmark: ../shared/datasets is not present in this checkout; nothing to run');
    return;
  }
  const tools = readTools(SMITHERY);
  const queries = benchmarkQueries();
  console.error(`embedding benchmark: ${tools.length} tools, ${queries.length} queries`);
  const defaults = await defaultModel(tools, queries);
  const transformer = existsSync(MINILM) ? await minilm(tools, queries) : null;
  const result = { meta: runMeta(REPO), default: defaults, minilm: transformer };

  const rows: [string, string][] = [
    ['default model', defaults.model],
    ['tools', String(defaults.tools)],
    ['model load', `${defaults.modelLoadMs} ms`],
    ['index, lexical only', `${defaults.indexLexicalOnlyMs} ms`],
    ['embedding strategy only, cold cache', `${defaults.embedOnlyColdMs} ms`],
    ['embedding strategy only, warm cache', `${defaults.embedOnlyWarmMs} ms`],
    ['engine index + embed, cold cache', `${defaults.indexColdMs} ms`],
    ['engine index + embed, warm cache', `${defaults.indexWarmMs} ms`],
    [
      'hybrid search p50 / p95 (new queries)',
      `${defaults.searchHybridMs.p50} / ${defaults.searchHybridMs.p95} ms`,
    ],
    [
      'hybrid search p50 / p95 (repeated)',
      `${defaults.searchHybridRepeatedQueryMs.p50} / ${defaults.searchHybridRepeatedQueryMs.p95} ms`,
    ],
    [
      'lexical search p50 / p95',
      `${defaults.searchLexicalOnlyMs.p50} / ${defaults.searchLexicalOnlyMs.p95} ms`,
    ],
    [
      'vector scan 9,970 x 100 p50 (JS fallback)',
      `${defaults.vectorScanMs.p50} ms ${defaults.vectorScanMs.kind} (${defaults.vectorScanMs.jsFallbackP50} ms)`,
    ],
    ['RSS delta (model + vectors)', `${defaults.rssDeltaMb} MB`],
  ];
  if (transformer) {
    rows.push(
      ['MiniLM-L6 (timing only)', transformer.model],
      ['  model load', `${transformer.modelLoadMs} ms`],
      ['  index sample', `${transformer.indexedSample} tools in ${transformer.indexSampleMs} ms`],
      ['  index 9,970 (extrapolated)', `${transformer.indexExtrapolatedMs} ms`],
      ['  query embed p50 / p95', `${transformer.queryEmbedMs.p50} / ${transformer.queryEmbedMs.p95} ms`],
      [
        '  scan 9,970 x 384 p50 (JS fallback)',
        `${transformer.scanMs.p50} ms ${transformer.scanMs.kind} (${transformer.scanMs.jsFallbackP50} ms)`,
      ],
      ['  RSS after load / after index', `${transformer.rssAfterLoadMb} / ${transformer.rssAfterIndexMb} MB`],
    );
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [key, value] of rows) console.log(`${key.padEnd(width)}  ${value}`);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'embedding.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.error('wrote benchmarks/results/embedding.json');
}

await main();
