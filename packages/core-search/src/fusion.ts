import type { RetrievalHit } from './retriever.js';
import type { StrategyMatch, StrategyName } from './types.js';

/** One strategy's ranking, as fusion consumes it. */
export interface StrategyRanking {
  strategy: StrategyName;
  weight: number;
  hits: readonly RetrievalHit[];
}

export interface FusedHit {
  id: number;
  score: number;
  pinned: boolean;
  matchedBy: StrategyMatch[];
}

/**
 * Weighted reciprocal-rank fusion: score(d) = sum over strategies of w / (k + rank).
 * RRF uses ranks only, so BM25 scores, cosines and edit distances never have to be
 * made comparable. Tied scores within a strategy share a rank (competition ranking),
 * so a strategy that cannot tell tools apart (all tools of a toolset) favours none.
 * Pinned hits (exact names) come first. Ties: ascending id, i.e. insertion order.
 */
export function fuse(rankings: readonly StrategyRanking[], k: number): FusedHit[] {
  const fused = new Map<number, FusedHit>();
  for (const { strategy, weight, hits } of rankings) {
    let rank = 0;
    let previous = Number.NaN;
    hits.forEach((hit, position) => {
      if (hit.score !== previous) {
        rank = position + 1;
        previous = hit.score;
      }
      let entry = fused.get(hit.id);
      if (!entry) {
        entry = { id: hit.id, score: 0, pinned: false, matchedBy: [] };
        fused.set(hit.id, entry);
      }
      entry.score += weight / (k + rank);
      entry.pinned ||= hit.pinned === true;
      const match: StrategyMatch = { strategy, rank, score: hit.score };
      if (hit.matched) match.matched = hit.matched;
      entry.matchedBy.push(match);
    });
  }
  const list = [...fused.values()];
  for (const entry of list) entry.matchedBy.sort((a, b) => a.rank - b.rank);
  list.sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.score - a.score || a.id - b.id);
  return list;
}
