/** The segment columns of every report, and the per-segment metrics they hold. */
import type { MetricSummary } from '@toolsearch/core-search/eval';
import type { SegmentMetrics } from './results.js';

export const OVERALL = 'overall';
const SEGMENT_ORDER = ['new', 'experienced', 'power'];

/** Known segments in reading order, others alphabetically, "overall" last. */
export function segmentsOf(queries: readonly { segment?: string }[]): string[] {
  const present = new Set(queries.flatMap((q) => (q.segment === undefined ? [] : [q.segment])));
  const known = SEGMENT_ORDER.filter((s) => present.has(s));
  const others = [...present].filter((s) => !SEGMENT_ORDER.includes(s)).sort();
  return [...known, ...others, OVERALL];
}

/** An evaluation's metrics per segment column ("overall" from the overall summary). */
export function segmentMetrics(
  overall: MetricSummary,
  bySegment: Record<string, MetricSummary>,
  segments: readonly string[],
): Record<string, SegmentMetrics> {
  const out: Record<string, SegmentMetrics> = {};
  for (const segment of segments) {
    const summary = segment === OVERALL ? overall : bySegment[segment];
    if (summary !== undefined) out[segment] = fromSummary(summary);
  }
  return out;
}

function fromSummary(s: MetricSummary): SegmentMetrics {
  return {
    queries: s.queries,
    r1: s['recall@1'],
    r3: s['recall@3'],
    r5: s['recall@5'],
    r10: s['recall@10'],
    mrr: s.mrr,
    ndcg10: s['ndcg@10'],
    toolsetAccuracy: s.toolsetAccuracy ?? null,
  };
}
