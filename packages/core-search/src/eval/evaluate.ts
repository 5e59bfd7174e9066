/**
 * Run a labelled dataset through an engine: index its tools (timed), search
 * every query (each timed), score the rankings and average the metrics.
 *
 * Subsampling: when maxQueries is below the number of queries, the queries
 * kept are those with the smallest FNV-1a hash of their id (ties by id), then
 * run in dataset order. The choice depends only on the ids, so it is the same
 * on every run and machine, does not favour the start of the file, and a query
 * stays selected when others are added or removed.
 */
import type { Dataset } from '../dataset.js';
import { DEFAULTS } from '../defaults.js';
import { ToolSearchError } from '../errors.js';
import {
  type SearchOptions,
  type SearchResponse,
  STRATEGY_NAMES,
  type StrategyName,
  type ToolDefinition,
} from '../types.js';
import { aggregateMetrics, type MetricSummary, type QueryMetrics, scoreRanking } from './metrics.js';

/** The part of ToolSearch that evaluation needs (ToolSearch satisfies it). */
export interface EvaluableEngine {
  readonly size: number;
  add(tools: ToolDefinition[]): void;
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
  ready?(): Promise<void>;
}

export interface EvaluateOptions {
  /** Evaluate at most this many queries (deterministic subsample, see above). */
  maxQueries?: number;
  /** Strategies switched off for every query. */
  disable?: StrategyName[];
  /** How many results each search returns; metrics see only these (MRR is MRR@limit). Default 20. */
  limit?: number;
  /** Keep each query's metrics and top names in the result. */
  perQuery?: boolean;
  onProgress?: (p: { phase: 'index' | 'search'; done: number; total: number }) => void;
}

export interface QueryOutcome {
  id: string;
  query: string;
  segment?: string;
  relevant: string[];
  /** Top result names, best first (at most 10). */
  top: string[];
  metrics: QueryMetrics;
  ms: number;
}

export interface EvaluationResult {
  dataset: string;
  queries: number;
  /** Strategies that ran for at least one query, in STRATEGY_NAMES order. */
  strategies: StrategyName[];
  metrics: MetricSummary;
  segments: Record<string, MetricSummary>;
  /** Time to add the tools and wait for ready(); null when the engine already held them. */
  indexMs: number | null;
  p50Ms: number;
  p95Ms: number;
  perQuery?: QueryOutcome[];
}

/**
 * `engine` is either empty (evaluate adds `dataset.tools` and times it,
 * including ready()) or already holds the dataset's tools (indexMs is null; its
 * ready() is still awaited, so no query is answered while the model loads).
 */
export async function evaluate(
  engine: EvaluableEngine,
  dataset: Dataset,
  options: EvaluateOptions = {},
): Promise<EvaluationResult> {
  const { maxQueries, disable, limit = DEFAULTS.eval.limit, onProgress } = options;
  if (maxQueries !== undefined && (!Number.isInteger(maxQueries) || maxQueries < 1)) {
    throw new ToolSearchError(
      'INVALID_OPTION',
      `toolsearch: evaluate: maxQueries must be a positive integer, got ${maxQueries}`,
    );
  }
  if (dataset.queries.length === 0) {
    throw new ToolSearchError('INVALID_DATASET', `toolsearch: ${dataset.origin}: has no queries to evaluate`);
  }

  let indexMs: number | null = null;
  if (engine.size === 0) {
    onProgress?.({ phase: 'index', done: 0, total: dataset.tools.length });
    const start = performance.now();
    engine.add(dataset.tools);
    await engine.ready?.();
    indexMs = performance.now() - start;
    onProgress?.({ phase: 'index', done: dataset.tools.length, total: dataset.tools.length });
  } else {
    // An engine handed over with its tools (e.g. after learn()) may still be loading its
    // model: without this wait the first queries would be answered without the embedding.
    await engine.ready?.();
  }

  const selected = selectQueries(dataset.queries, maxQueries);
  const searchOptions: SearchOptions = { limit };
  if (disable !== undefined && disable.length > 0) searchOptions.disable = disable;
  const ran = new Set<StrategyName>();
  const outcomes: QueryOutcome[] = [];
  for (const [i, labelled] of selected.entries()) {
    const start = performance.now();
    const response = await engine.search(labelled.query, searchOptions);
    const ms = performance.now() - start;
    for (const strategy of response.strategies) ran.add(strategy);
    const names = response.results.map((result) => result.name);
    const metrics = scoreRanking(names, labelled.relevant, {
      topToolset: response.toolsets[0]?.toolset,
      relevantToolsets: labelled.relevantToolsets,
    });
    const outcome: QueryOutcome = {
      id: labelled.id,
      query: labelled.query,
      relevant: labelled.relevant,
      top: names.slice(0, 10),
      metrics,
      ms,
    };
    if (labelled.segment !== undefined) outcome.segment = labelled.segment;
    outcomes.push(outcome);
    onProgress?.({ phase: 'search', done: i + 1, total: selected.length });
  }

  return summarize(dataset, outcomes, ran, indexMs, options.perQuery);
}

/** The deterministic subsample described at the top of this file, in dataset order. */
export function selectQueries<Q extends { id: string }>(queries: readonly Q[], maxQueries?: number): Q[] {
  if (maxQueries === undefined || maxQueries >= queries.length) return [...queries];
  const keyed = queries.map((query, index) => ({ index, hash: fnv1a(query.id), id: query.id }));
  keyed.sort((a, b) => a.hash - b.hash || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const keep = keyed
    .slice(0, maxQueries)
    .map((k) => k.index)
    .sort((a, b) => a - b);
  return keep.map((index) => queries[index]!);
}

/** Nearest-rank percentile of an ascending list; 0 for an empty list. */
export function percentile(sortedAscending: readonly number[], p: number): number {
  if (sortedAscending.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sortedAscending.length);
  return sortedAscending[Math.min(Math.max(rank, 1), sortedAscending.length) - 1]!;
}

/** 32-bit FNV-1a over UTF-16 code units: tiny, stable, well spread (the subsample order; seeded splits in benchmarks/). */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Leave-one-server-out evaluation of a phrasing pack: each query is answered by an
 * engine built without the pack entries of the servers its relevant tools belong to
 * (`serverOf`), so a query never meets phrasings written for its own answer. Queries
 * sharing those servers share an engine. The metrics are over all selected queries, as
 * evaluate() reports them; indexMs is the total over the engines built.
 */
export async function evaluateLeaveOneServerOut(
  createEngine: (exclude: string[]) => EvaluableEngine,
  dataset: Dataset,
  serverOf: (tool: ToolDefinition) => string | undefined,
  options: EvaluateOptions = {},
): Promise<EvaluationResult> {
  const byName = new Map(dataset.tools.map((tool) => [tool.name, tool]));
  const groups = new Map<string, { exclude: string[]; queries: Dataset['queries'] }>();
  for (const query of selectQueries(dataset.queries, options.maxQueries)) {
    const servers = query.relevant.map((name) => serverOf(byName.get(name)!)).filter((s) => s !== undefined);
    const exclude = [...new Set(servers)].sort();
    const key = exclude.join('\u0000');
    const group = groups.get(key) ?? { exclude, queries: [] };
    group.queries.push(query);
    groups.set(key, group);
  }
  const outcomes: QueryOutcome[] = [];
  const ran = new Set<StrategyName>();
  let indexMs = 0;
  let done = 0;
  const total = [...groups.values()].reduce((sum, group) => sum + group.queries.length, 0);
  for (const key of [...groups.keys()].sort()) {
    const { exclude, queries } = groups.get(key)!;
    const result = await evaluate(
      createEngine(exclude),
      { ...dataset, queries },
      {
        ...options,
        maxQueries: undefined,
        perQuery: true,
        onProgress: (p) => {
          if (p.phase === 'search') options.onProgress?.({ phase: 'search', done: done + p.done, total });
        },
      },
    );
    done += queries.length;
    indexMs += result.indexMs ?? 0;
    for (const strategy of result.strategies) ran.add(strategy);
    outcomes.push(...result.perQuery!);
  }
  const order = new Map(dataset.queries.map((query, i) => [query.id, i]));
  outcomes.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return summarize(dataset, outcomes, ran, indexMs, options.perQuery);
}

/** The result of a run from its query outcomes. */
function summarize(
  dataset: Dataset,
  outcomes: QueryOutcome[],
  ran: ReadonlySet<StrategyName>,
  indexMs: number | null,
  perQuery: boolean | undefined,
): EvaluationResult {
  const { metrics, segments } = aggregateMetrics(outcomes);
  const latencies = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  const result: EvaluationResult = {
    dataset: dataset.name,
    queries: outcomes.length,
    strategies: STRATEGY_NAMES.filter((name) => ran.has(name)),
    metrics,
    segments,
    indexMs,
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
  };
  if (perQuery) result.perQuery = outcomes;
  return result;
}
