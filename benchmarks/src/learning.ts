/**
 * `pnpm bench:learning`: learning curves (issue 13, "learning from use"). Each dataset's
 * queries are split by query, seeded: queries with the same text (case and spacing aside)
 * form one group, so a request asked twice never sits on both sides; groups are ordered by
 * an FNV-1a hash of `seed:text`, and the first groups up to 80% of the queries are the
 * history (train), the rest the test split. The engine learns 0%, 10%, 50% and 100% of the
 * history (nested prefixes of the train order) through `engine.learn` (the API the gateway
 * and `toolsearch eval --learn-from` use: one use per (query, relevant tool)) and is
 * evaluated on the test split, fused and lexical-only. No test query is ever learned.
 *
 *   pnpm bench:learning                       MetaTool, BFCL (../shared) and the fixtures
 *   pnpm bench:learning --datasets bfcl --max-test 300
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ToolSearch, type ToolSearchOptions } from '@toolsearch/core-search';
import {
  type Dataset,
  type EvaluationResult,
  evaluate,
  fnv1a,
  type LabelledQuery,
  learnUses,
  readDataset,
  selectQueries,
  usesOfQueries,
} from '@toolsearch/core-search/eval';
import { runMeta } from './environment.js';
import { isMain, REPO, RESULTS } from './paths.js';
import type { RunMeta, SegmentMetrics } from './results.js';
import { segmentMetrics, segmentsOf } from './segments.js';

export const FRACTIONS = [0, 0.1, 0.5, 1] as const;
export const TRAIN_SHARE = 0.8;
export const DEFAULT_SEED = 13;
/**
 * The test split is capped (core-search's deterministic selectQueries subsample) so the
 * whole run takes minutes on a shared 2-core machine: 4 engines x 2 runs per dataset.
 */
export const DEFAULT_MAX_TEST = 400;

/** The datasets that can be split by query, and where they live (relative to the repository). */
export const LEARNING_DATASETS: readonly { key: string; file: string }[] = [
  { key: 'metatool', file: '../shared/datasets/metatool.json' },
  { key: 'bfcl', file: '../shared/datasets/bfcl.json' },
  { key: 'fixtures', file: 'fixtures/queries/toolsearch-queries.json' },
];

export interface CurvePoint {
  fraction: number;
  /** Queries learned (train prefix) and the (query, tool) uses they gave. */
  learnedQueries: number;
  learnedUses: number;
  /** Per segment, "overall" last. */
  fused: Record<string, SegmentMetrics>;
  lexical: Record<string, SegmentMetrics>;
}

export interface LearningCurve {
  key: string;
  file: string;
  tools: number;
  queries: number;
  train: number;
  /** Test queries evaluated, and how many the test split held before the cap. */
  test: number;
  testSplit: number;
  points: CurvePoint[];
}

export interface LearningResult {
  study: 'learning';
  meta: RunMeta;
  command: string;
  seed: number;
  trainShare: number;
  maxTest: number;
  method: string;
  curves: LearningCurve[];
}

/**
 * The grouping key of a query: its text lower-cased with spacing collapsed, so that the
 * same request asked by two users falls on one side of a split (the engine aggregates
 * learned uses the same way, so the other side would otherwise see its own test query).
 */
export function queryKey(query: string): string {
  return query.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Groups of queries with the same text, in the seeded hash order of `seed:text` (ties by text). */
export function seededGroups<T extends Pick<LabelledQuery, 'id' | 'query'>>(
  queries: readonly T[],
  seed: number,
): T[][] {
  const groups = new Map<string, T[]>();
  for (const query of queries) {
    const key = queryKey(query.query);
    const group = groups.get(key);
    if (group) group.push(query);
    else groups.set(key, [query]);
  }
  return [...groups.entries()]
    .map(([key, group]) => ({ key, group, hash: fnv1a(`${seed}:${key}`) }))
    .sort((a, b) => a.hash - b.hash || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ group }) => group);
}

/**
 * Seeded split by query: whole groups (seededGroups) go to train, in hash order, until
 * train holds `trainShare` of the queries; the rest are the test split. Both keep that order.
 */
export function splitByQuery<T extends Pick<LabelledQuery, 'id' | 'query'>>(
  queries: readonly T[],
  seed: number,
  trainShare = TRAIN_SHARE,
): { train: T[]; test: T[] } {
  const target = Math.round(queries.length * trainShare);
  const train: T[] = [];
  const test: T[] = [];
  for (const group of seededGroups(queries, seed)) (train.length < target ? train : test).push(...group);
  return { train, test };
}

/** `k` folds by query (whole text groups, round robin over the seeded order), each in the dataset's order. */
export function foldsByQuery<T extends Pick<LabelledQuery, 'id' | 'query'>>(
  queries: readonly T[],
  k: number,
  seed = DEFAULT_SEED,
): T[][] {
  const foldOf = new Map<T, number>();
  seededGroups(queries, seed).forEach((group, i) => {
    for (const query of group) foldOf.set(query, i % k);
  });
  const folds: T[][] = Array.from({ length: k }, () => []);
  for (const query of queries) folds[foldOf.get(query)!]!.push(query);
  return folds;
}

/** The first `fraction` of the history (nested: 10% is a prefix of 50%). */
export function historyPrefix<T>(train: readonly T[], fraction: number): T[] {
  return train.slice(0, Math.round(train.length * fraction));
}

/** Per segment in report order ("overall" last). */
function bySegment(result: EvaluationResult, segments: readonly string[]): Record<string, SegmentMetrics> {
  return segmentMetrics(result.metrics, result.segments, segments);
}

export interface CurveOptions {
  seed?: number;
  maxTest?: number;
  fractions?: readonly number[];
  /** Engine options (tests: a small engine without the embedding). */
  engine?: ToolSearchOptions;
  log?: (line: string) => void;
}

export async function learningCurve(
  key: string,
  file: string,
  dataset: Dataset,
  options: CurveOptions = {},
): Promise<LearningCurve> {
  const { seed = DEFAULT_SEED, maxTest = DEFAULT_MAX_TEST, fractions = FRACTIONS, log = () => {} } = options;
  const { train, test: testSplit } = splitByQuery(dataset.queries, seed);
  const test = selectQueries(testSplit, maxTest);
  const testSet: Dataset = { ...dataset, queries: test };
  const segments = segmentsOf(test);
  const points: CurvePoint[] = [];
  for (const fraction of fractions) {
    const history = historyPrefix(train, fraction);
    const engine = new ToolSearch({ ...options.engine, tools: dataset.tools });
    const { learned } = learnUses(engine, usesOfQueries(history));
    await engine.ready();
    const fused = await evaluate(engine, testSet);
    const lexical = await evaluate(engine, testSet, { disable: ['embedding'] });
    points.push({
      fraction,
      learnedQueries: history.length,
      learnedUses: learned,
      fused: bySegment(fused, segments),
      lexical: bySegment(lexical, segments),
    });
    log(
      `${key}: ${Math.round(fraction * 100)}% history (${history.length} queries): nDCG@10 ${fmt(fused.metrics['ndcg@10'])} fused, ${fmt(lexical.metrics['ndcg@10'])} lexical`,
    );
  }
  return {
    key,
    file,
    tools: dataset.tools.length,
    queries: dataset.queries.length,
    train: train.length,
    test: test.length,
    testSplit: testSplit.length,
    points,
  };
}

export function renderLearningMarkdown(result: LearningResult): string {
  const lines = [
    '# Learning curves',
    '',
    `Commit ${result.meta.commit}${result.meta.dirty ? ' (dirty)' : ''}, ${result.meta.date}, ${result.meta.machine.cpu} (${result.meta.machine.cores} cores), Node ${result.meta.machine.node}. Command: \`${result.command}\`.`,
    '',
    result.method,
    '',
  ];
  for (const curve of result.curves) {
    lines.push(
      `## ${curve.key} (${curve.file})`,
      '',
      `${curve.tools} tools, ${curve.queries} queries: ${curve.train} history, ${curve.testSplit} test` +
        (curve.test < curve.testSplit ? ` (${curve.test} of them evaluated).` : '.'),
      '',
      '| history | learned queries | segment | R@1 | R@5 | R@10 | MRR | nDCG@10 | lexical R@5 | lexical MRR | lexical nDCG@10 |',
      '| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const point of curve.points) {
      for (const [segment, m] of Object.entries(point.fused)) {
        const lex = point.lexical[segment]!;
        lines.push(
          `| ${Math.round(point.fraction * 100)}% | ${point.learnedQueries} | ${segment} | ${fmt(m.r1)} | ${fmt(m.r5)} | ${fmt(m.r10)} | ${fmt(m.mrr)} | ${fmt(m.ndcg10)} | ${fmt(lex.r5)} | ${fmt(lex.mrr)} | ${fmt(lex.ndcg10)} |`,
        );
      }
    }
    lines.push('');
  }
  return lines.join('\n');
}

function fmt(value: number): string {
  return value.toFixed(3);
}

function integerArg(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`bench:learning: ${name} must be an integer >= 1, got "${value}"`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      datasets: { type: 'string' },
      'max-test': { type: 'string' },
      seed: { type: 'string' },
    },
    strict: true,
  });
  const wanted = values.datasets?.split(',').filter((d) => d !== '');
  const maxTest = integerArg('--max-test', values['max-test'], DEFAULT_MAX_TEST);
  const seed = integerArg('--seed', values.seed, DEFAULT_SEED);
  const start = performance.now();
  const meta = runMeta(REPO);
  const curves: LearningCurve[] = [];
  for (const { key, file } of LEARNING_DATASETS) {
    if (wanted !== undefined && !wanted.includes(key)) continue;
    const path = join(REPO, file);
    if (!existsSync(path)) {
      process.stderr.write(`bench:learning: ${file} is not present; ${key} skipped\n`);
      continue;
    }
    curves.push(
      await learningCurve(key, file, readDataset(path), {
        seed,
        maxTest,
        log: (line) => process.stderr.write(`${line}\n`),
      }),
    );
  }
  meta.wallTimeMs = performance.now() - start;
  const args = process.argv.slice(2);
  const result: LearningResult = {
    study: 'learning',
    meta,
    command: ['pnpm bench:learning', ...args].join(' '),
    seed,
    trainShare: TRAIN_SHARE,
    maxTest,
    method:
      `Split by query, seeded: queries with the same text (case and spacing aside) are one group; groups are ordered by FNV-1a of \`${seed}:text\`, ` +
      `and whole groups fill the history up to ${TRAIN_SHARE * 100}% of the queries; the rest is the test split ` +
      `(at most ${maxTest} queries evaluated, core-search's deterministic selectQueries subsample). ` +
      'The engine (all defaults, phrasing pack on) learns the first 0/10/50/100% of the history through `engine.learn`, ' +
      'one use per (query, relevant tool), and is evaluated on the test split only, with all strategies ("fused") ' +
      'and with the embedding off ("lexical").',
    curves,
  };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'learning.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(RESULTS, 'learning.md'), renderLearningMarkdown(result));
  process.stderr.write(
    `bench:learning: wrote benchmarks/results/learning.{json,md} in ${(meta.wallTimeMs / 1000).toFixed(1)} s\n`,
  );
}

if (isMain(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
