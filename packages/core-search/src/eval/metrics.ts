/**
 * Retrieval metrics for one ranked list against a set of relevant tool names,
 * and their averages over many queries (overall and per user segment).
 *
 * Definitions (binary relevance, ranks are 1-based, a name counts once):
 * - recall@K: share of the relevant tools found in the top K.
 * - hit@5: 1 if at least one relevant tool is in the top 5, else 0.
 * - mrr: 1 / rank of the first relevant tool; 0 if none is in the list.
 * - ndcg@10: DCG = sum over relevant tools in the top 10 of 1/log2(rank+1);
 *   divided by the ideal DCG for min(|relevant|, 10) relevant tools.
 * - toolsetAccuracy: 1 if the top suggested toolset is one of the query's
 *   relevant toolsets; measured only for queries that name relevant toolsets.
 */
import { ToolSearchError } from '../errors.js';

export const RECALL_CUTOFFS = [1, 3, 5, 10] as const;

export interface QueryMetrics {
  'recall@1': number;
  'recall@3': number;
  'recall@5': number;
  'recall@10': number;
  'hit@5': number;
  mrr: number;
  'ndcg@10': number;
  /** Present only when the query names relevant toolsets. */
  toolsetAccuracy?: number;
}

/** Averages over `queries` queries. */
export interface MetricSummary extends QueryMetrics {
  queries: number;
  /** How many queries toolsetAccuracy was averaged over (absent when none). */
  toolsetQueries?: number;
}

export interface ToolsetJudgement {
  /** The engine's first toolset suggestion, if any. */
  topToolset?: string;
  relevantToolsets?: readonly string[];
}

/** Score one ranked list of tool names (best first) against the relevant names. */
export function scoreRanking(
  ranked: readonly string[],
  relevant: Iterable<string>,
  toolsets: ToolsetJudgement = {},
): QueryMetrics {
  const wanted = new Set(relevant);
  if (wanted.size === 0) {
    throw new ToolSearchError(
      'INVALID_OPTION',
      'toolsearch: scoreRanking: relevant must name at least one tool',
    );
  }
  // Rank (1-based) of each distinct relevant name found, in list order.
  const foundRanks: number[] = [];
  const seen = new Set<string>();
  let rank = 0;
  for (const name of ranked) {
    if (seen.has(name)) continue; // a repeated name does not take a new rank
    seen.add(name);
    rank += 1;
    if (wanted.has(name)) foundRanks.push(rank);
  }
  const recallAt = (k: number) => foundRanks.filter((r) => r <= k).length / wanted.size;
  const first = foundRanks[0];
  const metrics: QueryMetrics = {
    'recall@1': recallAt(1),
    'recall@3': recallAt(3),
    'recall@5': recallAt(5),
    'recall@10': recallAt(10),
    'hit@5': first !== undefined && first <= 5 ? 1 : 0,
    mrr: first === undefined ? 0 : 1 / first,
    'ndcg@10': ndcgAt10(foundRanks, wanted.size),
  };
  const { relevantToolsets, topToolset } = toolsets;
  if (relevantToolsets !== undefined && relevantToolsets.length > 0) {
    metrics.toolsetAccuracy = topToolset !== undefined && relevantToolsets.includes(topToolset) ? 1 : 0;
  }
  return metrics;
}

function ndcgAt10(foundRanks: readonly number[], relevantCount: number): number {
  const gain = (r: number) => 1 / Math.log2(r + 1);
  let dcg = 0;
  for (const r of foundRanks) if (r <= 10) dcg += gain(r);
  let ideal = 0;
  for (let r = 1; r <= Math.min(relevantCount, 10); r++) ideal += gain(r);
  return dcg / ideal;
}

const AVERAGED_KEYS = ['recall@1', 'recall@3', 'recall@5', 'recall@10', 'hit@5', 'mrr', 'ndcg@10'] as const;

/** Average per-query metrics. An empty list gives zeros with `queries: 0`. */
export function averageMetrics(perQuery: readonly QueryMetrics[]): MetricSummary {
  const summary: MetricSummary = {
    queries: perQuery.length,
    'recall@1': 0,
    'recall@3': 0,
    'recall@5': 0,
    'recall@10': 0,
    'hit@5': 0,
    mrr: 0,
    'ndcg@10': 0,
  };
  if (perQuery.length === 0) return summary;
  for (const key of AVERAGED_KEYS) {
    summary[key] = perQuery.reduce((sum, m) => sum + m[key], 0) / perQuery.length;
  }
  const judged = perQuery.flatMap((m) => (m.toolsetAccuracy === undefined ? [] : [m.toolsetAccuracy]));
  if (judged.length > 0) {
    summary.toolsetAccuracy = judged.reduce((a, b) => a + b, 0) / judged.length;
    summary.toolsetQueries = judged.length;
  }
  return summary;
}

export interface AggregatedMetrics {
  metrics: MetricSummary;
  /** Per segment, in alphabetical order of segment name; empty when no query has one. */
  segments: Record<string, MetricSummary>;
}

/** Average over all queries, and separately over the queries of each segment. */
export function aggregateMetrics(
  perQuery: readonly { metrics: QueryMetrics; segment?: string | undefined }[],
): AggregatedMetrics {
  const bySegment = new Map<string, QueryMetrics[]>();
  for (const { metrics, segment } of perQuery) {
    if (segment === undefined) continue;
    const list = bySegment.get(segment) ?? [];
    list.push(metrics);
    bySegment.set(segment, list);
  }
  const segments: Record<string, MetricSummary> = {};
  for (const name of [...bySegment.keys()].sort()) segments[name] = averageMetrics(bySegment.get(name)!);
  return { metrics: averageMetrics(perQuery.map((q) => q.metrics)), segments };
}
