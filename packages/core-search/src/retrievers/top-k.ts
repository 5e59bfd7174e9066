import type { RetrievalHit } from '../retriever.js';

/** Best `limit` scores, best first, equal scores by ascending id (the stable tie-break). */
export function topK(scores: Map<number, number>, limit: number): RetrievalHit[] {
  const hits: RetrievalHit[] = [];
  for (const [id, score] of scores) if (score > 0) hits.push({ id, score });
  hits.sort((a, b) => b.score - a.score || a.id - b.id);
  return hits.length > limit ? hits.slice(0, limit) : hits;
}
