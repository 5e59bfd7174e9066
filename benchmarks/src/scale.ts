/**
 * Scale benchmark, lexical strategies only (embedding: false):
 * - indexing time of the bundled registry (480 tools) and of the Smithery crawl
 *   (9,970 tools, ../shared/datasets; skipped with a message when absent);
 * - search latency p50/p99 (tinybench) over a fixed set of 30 realistic queries
 *   (benchmarks/src/scale/queries.ts) on each corpus.
 *
 *   npx tsx --conditions=toolsearch-source benchmarks/src/scale.ts [--runs N] [--time-ms N]
 *
 * Prints a table and writes benchmarks/results/scale.json. `pnpm bench` calls
 * runScaleBenchmark({}) which does the same; pass `report: false` to only get the numbers.
 *
 * Targets (one Node process, so one core for search): index 9,970 tools < 2 s;
 * search p50 < 1 ms at 480 tools and < 5 ms at 9,970 tools.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type ToolDefinition, ToolSearch } from '@toolsearch/core-search';
import { runMeta } from './environment.js';
import { measureLatency } from './latency.js';
import { isMain, REPO, RESULTS } from './paths.js';
import type { LatencyStats, RunMeta } from './results.js';
import { type Corpus, loadCorpus } from './scale/corpus.js';
import { SCALE_QUERIES } from './scale/queries.js';

const CORPORA = [
  { label: 'registry', file: 'fixtures/registry/tools.json', searchP50TargetMs: 1 },
  {
    label: 'smithery',
    file: '../shared/datasets/smithery_toolgym_tools.json',
    searchP50TargetMs: 5,
    indexTargetMs: 2000,
  },
] as const;

export interface ScaleOptions {
  /** Indexing runs per corpus; the median is reported. Default 3. */
  runs?: number;
  /** tinybench time budget per corpus in ms. Default 2000. */
  timeMs?: number;
  /** Results per search. Default 10. */
  limit?: number;
  /** Print a table to stdout and write benchmarks/results/scale.json. Default true. */
  report?: boolean;
  log?: (line: string) => void;
}

export interface CorpusScale {
  label: string;
  file: string;
  tools: number;
  rawCount: number;
  droppedDuplicates: number;
  /** The first few dropped names, for the reader to check. */
  droppedExamples: string[];
  index: { medianMs: number; minMs: number; runsMs: number[]; heapDeltaMB: number };
  search: LatencyStats;
  /** The slowest queries by their median over 5 calls, to show where p99 comes from. */
  slowest: { query: string; medianMs: number }[];
  targets: { indexMs?: number; searchP50Ms: number };
  pass: boolean;
}

export interface ScaleResult {
  study: 'scale';
  meta: RunMeta;
  embedding: false;
  queries: number;
  limit: number;
  corpora: CorpusScale[];
  skipped: { label: string; file: string; reason: string }[];
}

export async function runScaleBenchmark(options: ScaleOptions = {}): Promise<ScaleResult> {
  const { runs = 3, timeMs = 2000, limit = 10, report = true } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const start = performance.now();
  const meta = runMeta(REPO);
  const result: ScaleResult = {
    study: 'scale',
    meta,
    embedding: false,
    queries: SCALE_QUERIES.length,
    limit,
    corpora: [],
    skipped: [],
  };
  for (const spec of CORPORA) {
    const path = join(REPO, spec.file);
    if (!existsSync(path)) {
      const reason = `${spec.file} is not present in this checkout`;
      log(`scale: ${spec.label} skipped: ${reason}`);
      result.skipped.push({ label: spec.label, file: spec.file, reason });
      continue;
    }
    const corpus = loadCorpus(spec.label, path, spec.file);
    log(
      `scale: ${spec.label}: ${corpus.tools.length} tools` +
        ` (${corpus.droppedDuplicates.length} of ${corpus.rawCount} dropped as duplicate names, first kept)`,
    );
    const index = await measureIndexing(corpus.tools, runs);
    log(`scale: ${spec.label}: indexing median ${index.medianMs.toFixed(0)} ms over ${runs} runs`);
    const engine = new ToolSearch({ tools: corpus.tools, embedding: false });
    await engine.ready();
    const search = await measureLatency(SCALE_QUERIES, (query) => engine.search(query, { limit }), {
      timeMs,
      iterations: SCALE_QUERIES.length * 5,
      warmupMs: 200,
      warmupIterations: SCALE_QUERIES.length,
    });
    if (search === null) throw new Error(`scale: ${spec.label}: tinybench returned no latency`);
    log(`scale: ${spec.label}: search p50 ${search.p50Ms.toFixed(3)} ms, p99 ${search.p99Ms.toFixed(3)} ms`);
    const slowest = await slowestQueries((query) => engine.search(query, { limit }));
    result.corpora.push({ ...summarize(corpus, spec, index, search), slowest });
  }
  meta.wallTimeMs = Math.round(performance.now() - start);
  if (report) {
    console.log(formatScale(result));
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'scale.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log('\nwrote benchmarks/results/scale.json');
  }
  return result;
}

/** Build a fresh engine `runs` times and time add() + ready(); report median and min. */
async function measureIndexing(tools: ToolDefinition[], runs: number): Promise<CorpusScale['index']> {
  const runsMs: number[] = [];
  let heapDeltaMB = 0;
  for (let run = 0; run < runs; run++) {
    const heapBefore = process.memoryUsage().heapUsed;
    const engine = new ToolSearch({ embedding: false });
    const start = performance.now();
    engine.add(tools);
    await engine.ready();
    runsMs.push(performance.now() - start);
    // Approximate (a GC may run in between): heap held by one index, from the last run.
    heapDeltaMB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  }
  const sorted = [...runsMs].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)]!, minMs: sorted[0]!, runsMs, heapDeltaMB };
}

/** Each query timed alone (median of 5 calls); the 3 slowest. */
async function slowestQueries(search: (query: string) => Promise<unknown>): Promise<CorpusScale['slowest']> {
  const timed: CorpusScale['slowest'] = [];
  for (const query of SCALE_QUERIES) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      await search(query);
      times.push(performance.now() - start);
    }
    timed.push({ query, medianMs: times.sort((a, b) => a - b)[2]! });
  }
  return timed.sort((a, b) => b.medianMs - a.medianMs || a.query.localeCompare(b.query)).slice(0, 3);
}

function summarize(
  corpus: Corpus,
  spec: (typeof CORPORA)[number],
  index: CorpusScale['index'],
  search: LatencyStats,
): Omit<CorpusScale, 'slowest'> {
  const indexTarget = 'indexTargetMs' in spec ? spec.indexTargetMs : undefined;
  const pass =
    search.p50Ms < spec.searchP50TargetMs && (indexTarget === undefined || index.medianMs < indexTarget);
  return {
    label: corpus.label,
    file: corpus.file,
    tools: corpus.tools.length,
    rawCount: corpus.rawCount,
    droppedDuplicates: corpus.droppedDuplicates.length,
    droppedExamples: corpus.droppedDuplicates.slice(0, 10),
    index,
    search,
    targets: {
      ...(indexTarget === undefined ? {} : { indexMs: indexTarget }),
      searchP50Ms: spec.searchP50TargetMs,
    },
    pass,
  };
}

export function formatScale(result: ScaleResult): string {
  const header = [
    'corpus',
    'tools',
    'dropped',
    'index ms',
    'search p50 ms',
    'p99 ms',
    'mean ms',
    'samples',
    'target',
  ];
  const rows = result.corpora.map((c) => [
    c.label,
    String(c.tools),
    String(c.droppedDuplicates),
    c.index.medianMs.toFixed(0),
    c.search.p50Ms.toFixed(3),
    c.search.p99Ms.toFixed(3),
    c.search.meanMs.toFixed(3),
    String(c.search.samples),
    `${c.pass ? 'met' : 'MISSED'} (p50 < ${c.targets.searchP50Ms} ms${c.targets.indexMs ? `, index < ${c.targets.indexMs} ms` : ''})`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 || i === 8 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const { machine, commit, dirty } = result.meta;
  return [
    `Scale benchmark, lexical only, ${result.queries} queries, limit ${result.limit}`,
    `node ${machine.node}, ${machine.cpu} (${machine.cores} cores), ${machine.platform}, commit ${commit}${dirty ? ' (dirty)' : ''}`,
    '',
    line(header),
    ...rows.map(line),
    ...result.skipped.map((s) => `${s.label}: skipped (${s.reason})`),
    '',
    ...result.corpora.map(
      (c) =>
        `slowest on ${c.label}: ${c.slowest.map((q) => `"${q.query}" ${q.medianMs.toFixed(2)} ms`).join(', ')}`,
    ),
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: { runs: { type: 'string' }, 'time-ms': { type: 'string' } },
    strict: true,
  });
  const positive = (raw: string | undefined, flag: string) => {
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`scale: ${flag} must be a positive integer`);
    return value;
  };
  const runs = positive(values.runs, '--runs');
  const timeMs = positive(values['time-ms'], '--time-ms');
  runScaleBenchmark({ ...(runs ? { runs } : {}), ...(timeMs ? { timeMs } : {}) }).catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  });
}
