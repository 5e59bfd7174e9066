/**
 * The ablation study on one dataset: one engine (index and embeddings built
 * once), every configuration of configs.ts run as per-query `disable` lists
 * through core-search's evaluate(), the MiniSearch baseline on the same
 * queries, tinybench latency for each, deltas against "all strategies", and
 * the worst queries under "all" per segment.
 */

import { ToolSearch, toolsetOf } from '@toolsearch/core-search';
import {
  aggregateMetrics,
  type Dataset,
  type EvaluationResult,
  evaluate,
  type LabelledQuery,
  type QueryOutcome,
  scoreRanking,
  selectQueries,
} from '@toolsearch/core-search/eval';
import { runComponents } from './components.js';
import { type AblationConfig, ablationConfigs } from './configs.js';
import { impactOf } from './impact.js';
import { DEFAULT_LATENCY_BUDGET, type LatencyBudget, measureLatency } from './latency.js';
import { MiniSearchBaseline } from './minisearch-baseline.js';
import type { ConfigResult, DatasetResult, EmbeddingStatus, QueryFailure, SegmentDelta } from './results.js';
import { OVERALL, segmentMetrics, segmentsOf } from './segments.js';

export { OVERALL, segmentMetrics, segmentsOf } from './segments.js';
export const WORST_PER_SEGMENT = 5;

export const SUBSAMPLE_METHOD =
  'core-search selectQueries(): the N queries with the smallest FNV-1a 32-bit hash of their id (ties by id), run in file order';

export interface AblationOptions {
  /** Path of the dataset relative to the repository root, for the report. */
  file: string;
  /** Deterministic subsample size for large query sets. */
  maxQueries?: number;
  /** Results per search; metrics see only these. */
  limit?: number;
  /** false: skip latency (tests, quick runs). */
  latency?: LatencyBudget | false;
  /** false: switch the semantic strategy off (the report then marks embedding configs). */
  embedding?: boolean;
  /** Also run the component rows (pack, leave-one-server-out pack, learned phrasings: components.ts). */
  components?: boolean;
  log?: (line: string) => void;
}

export async function runAblation(dataset: Dataset, options: AblationOptions): Promise<DatasetResult> {
  const { file, maxQueries, limit = 20, embedding = true, log = () => {} } = options;
  const latencyBudget = options.latency === undefined ? DEFAULT_LATENCY_BUDGET : options.latency;
  const selected = selectQueries(dataset.queries, maxQueries);
  const labelled = selected.every((q) => q.relevantToolsets !== undefined);
  const queries = labelled ? selected : withDerivedToolsets(selected, dataset);
  const study: Dataset = { ...dataset, queries };
  const segments = segmentsOf(queries);
  const texts = queries.map((q) => q.query);

  log(`${dataset.name}: indexing ${dataset.tools.length} tools`);
  let start = performance.now();
  const engine = new ToolSearch({ tools: dataset.tools, ...(embedding ? {} : { embedding: false }) });
  const indexMs = performance.now() - start;
  start = performance.now();
  await engine.ready();
  const readyMs = performance.now() - start;
  const embeddingStatus = await probeEmbedding(engine, texts[0] ?? dataset.tools[0]!.name, embedding);
  log(`${dataset.name}: embedding ${embeddingStatus.status} (${embeddingStatus.detail})`);

  const configs: ConfigResult[] = [];
  let allOutcomes: QueryOutcome[] = [];
  let qualityMs = 0;
  let latencyMs = 0;
  for (const config of ablationConfigs()) {
    start = performance.now();
    const evaluation = await evaluate(engine, study, { disable: config.disable, limit, perQuery: true });
    qualityMs += performance.now() - start;
    if (config.kind === 'all') allOutcomes = evaluation.perQuery ?? [];
    start = performance.now();
    const searchOptions = { limit, disable: config.disable };
    const latency =
      latencyBudget === false
        ? null
        : await measureLatency(texts, (q) => engine.search(q, searchOptions), latencyBudget);
    latencyMs += performance.now() - start;
    configs.push(configResult(config, evaluation, segments, embeddingStatus, latency));
    log(`${dataset.name}: ${config.id.padEnd(18)} R@5 ${fmt(evaluation.metrics['recall@5'])}`);
  }

  start = performance.now();
  const baselines = [await measureBaseline(dataset, queries, segments, limit, latencyBudget)];
  const baselineMs = performance.now() - start;

  start = performance.now();
  const components = options.components
    ? (await runComponents(study, { embedding, limit, log })).map(
        (row): ConfigResult => ({
          id: row.id,
          label: row.label,
          kind: 'component',
          embeddingUnavailable: !row.lexical && embeddingStatus.status !== 'ready',
          metrics: segmentMetrics(row.result.metrics, row.result.segments, segments),
          latency: null,
        }),
      )
    : undefined;
  qualityMs += performance.now() - start;

  const all = configs[0]!;
  for (const result of [...configs.slice(1), ...baselines, ...(components ?? [])])
    result.delta = deltas(result, all, segments);

  const worst = await worstQueries(engine, allOutcomes, segments, limit);
  return {
    name: dataset.name,
    file,
    tools: dataset.tools.length,
    queries: queries.length,
    sampled:
      selected.length < dataset.queries.length
        ? { of: dataset.queries.length, size: selected.length, method: SUBSAMPLE_METHOD }
        : null,
    toolsetLabels: labelled ? 'labelled' : 'derived',
    segments,
    embedding: embeddingStatus,
    searchLimit: limit,
    configs,
    baselines,
    ...(components === undefined ? {} : { components }),
    worst,
    timingsMs: {
      index: indexMs + readyMs,
      ready: readyMs,
      quality: qualityMs,
      latency: latencyMs,
      baseline: baselineMs,
    },
  };
}

/** The MiniSearch alternative on the same queries: quality through core-search's metrics, and latency. */
async function measureBaseline(
  dataset: Dataset,
  queries: readonly LabelledQuery[],
  segments: readonly string[],
  limit: number,
  latencyBudget: LatencyBudget | false,
): Promise<ConfigResult> {
  const baseline = new MiniSearchBaseline(dataset.tools);
  const outcomes = queries.map((q) => {
    const response = baseline.search(q.query, limit);
    const metrics = scoreRanking(
      response.results.map((r) => r.name),
      q.relevant,
      { topToolset: response.toolsets[0], relevantToolsets: q.relevantToolsets },
    );
    return { metrics, segment: q.segment };
  });
  const aggregated = aggregateMetrics(outcomes);
  const texts = queries.map((q) => q.query);
  return {
    id: 'minisearch',
    label: 'MiniSearch (BM25+, fuzzy, prefix)',
    kind: 'baseline',
    embeddingUnavailable: false,
    metrics: segmentMetrics(aggregated.metrics, aggregated.segments, segments),
    latency:
      latencyBudget === false
        ? null
        : await measureLatency(texts, (q) => baseline.search(q, limit), latencyBudget),
  };
}

/** Datasets without relevantToolsets: the toolsets of the relevant tools stand in for them. */
function withDerivedToolsets(queries: readonly LabelledQuery[], dataset: Dataset): LabelledQuery[] {
  const byName = new Map(dataset.tools.map((tool) => [tool.name, toolsetOf(tool)]));
  return queries.map((q) => {
    if (q.relevantToolsets !== undefined) return q;
    const toolsets = [...new Set(q.relevant.map((name) => byName.get(name)).filter((t) => t !== undefined))];
    return toolsets.length > 0 ? { ...q, relevantToolsets: toolsets } : q;
  });
}

async function probeEmbedding(engine: ToolSearch, query: string, wanted: boolean): Promise<EmbeddingStatus> {
  if (!wanted) return { status: 'disabled', detail: 'switched off with --no-embedding' };
  const response = await engine.search(query, { limit: 1 });
  if (response.degraded !== undefined)
    return { status: 'unavailable', detail: `engine reports ${response.degraded}` };
  if (!response.strategies.includes('embedding')) {
    return { status: 'unavailable', detail: 'the embedding strategy did not run' };
  }
  return { status: 'ready', detail: 'default bundled offline model' };
}

function configResult(
  config: AblationConfig,
  evaluation: EvaluationResult,
  segments: readonly string[],
  embedding: EmbeddingStatus,
  latency: ConfigResult['latency'],
): ConfigResult {
  const result: ConfigResult = {
    id: config.id,
    label: config.label,
    kind: config.kind,
    embeddingUnavailable: config.usesEmbedding && embedding.status !== 'ready',
    metrics: segmentMetrics(evaluation.metrics, evaluation.segments, segments),
    latency,
  };
  if (config.strategy !== undefined) result.strategy = config.strategy;
  result.strategiesRan = evaluation.strategies;
  return result;
}

export function deltas(
  result: Pick<ConfigResult, 'metrics'>,
  all: Pick<ConfigResult, 'metrics'>,
  segments: readonly string[],
): Record<string, SegmentDelta> {
  const out: Record<string, SegmentDelta> = {};
  for (const segment of segments) {
    const mine = result.metrics[segment];
    const base = all.metrics[segment];
    if (mine === undefined || base === undefined) continue;
    const r5 = mine.r5 - base.r5;
    out[segment] = { r5, mrr: mine.mrr - base.mrr, ndcg10: mine.ndcg10 - base.ndcg10, impact: impactOf(r5) };
  }
  return out;
}

/**
 * Worst first: relevant tool not found at all, then found lowest; ties by
 * lower nDCG@10, then by id, so the list is the same every run.
 */
export function rankWorst<T extends Pick<QueryOutcome, 'id' | 'metrics'>>(outcomes: readonly T[]): T[] {
  return [...outcomes].sort(
    (a, b) =>
      a.metrics.mrr - b.metrics.mrr ||
      a.metrics['ndcg@10'] - b.metrics['ndcg@10'] ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

async function worstQueries(
  engine: ToolSearch,
  outcomes: readonly QueryOutcome[],
  segments: readonly string[],
  limit: number,
): Promise<Record<string, QueryFailure[]>> {
  const worst: Record<string, QueryFailure[]> = {};
  for (const segment of segments) {
    const pool = segment === OVERALL ? outcomes : outcomes.filter((o) => o.segment === segment);
    const failures: QueryFailure[] = [];
    for (const outcome of rankWorst(pool).slice(0, WORST_PER_SEGMENT)) {
      // Search again for what evaluate() does not keep: the top result's toolset and the top toolset.
      const response = await engine.search(outcome.query, { limit });
      const first = response.results[0];
      const topToolset = response.toolsets[0]?.toolset ?? null;
      failures.push({
        id: outcome.id,
        query: outcome.query,
        relevant: outcome.relevant,
        firstRelevantRank: outcome.metrics.mrr > 0 ? Math.round(1 / outcome.metrics.mrr) : null,
        top: first === undefined ? null : { name: first.name, toolset: first.toolset },
        topToolset,
        toolsetCorrect: outcome.metrics.toolsetAccuracy === 1,
        r5: outcome.metrics['recall@5'],
      });
    }
    worst[segment] = failures;
  }
  return worst;
}

function fmt(value: number): string {
  return value.toFixed(3);
}
