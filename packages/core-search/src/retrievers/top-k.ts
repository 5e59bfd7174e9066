import type { RetrievalHit } from '../retriever.js';
import { TopK } from '../top-k.js';

/** Released score arrays; a search runs a handful of accumulators at once. */
const pool: Float64Array[] = [];
const MAX_POOLED = 8;

/**
 * A dense score accumulator over document ids (ids are small, dense integers), much
 * cheaper than a Map when a long query touches thousands of documents.
 */
export class Scores {
  private values: Float64Array;
  private readonly touched: number[] = [];

  constructor(capacity: number) {
    const size = Math.max(16, capacity);
    let values = pool.pop();
    while (values && values.length < size) values = pool.pop(); // too small for this corpus now
    this.values = values ?? new Float64Array(size);
  }

  /**
   * Hand the array back for the next search, zeroed where it was written. A new zeroed
   * array of the id capacity per strategy per search was most of the garbage a search
   * made (0.8 MB each at 100k tools). The accumulator is empty afterwards.
   */
  release(): void {
    const { values, touched } = this;
    for (const id of touched) values[id] = 0;
    touched.length = 0;
    if (pool.length < MAX_POOLED) pool.push(values);
    this.values = new Float64Array(16);
  }

  /** Add evidence for a document; only positive evidence counts. */
  add(id: number, value: number): void {
    if (!(value > 0)) return;
    if (id >= this.values.length) {
      const grown = new Float64Array(Math.max(id + 1, this.values.length * 2));
      grown.set(this.values);
      this.values = grown;
    }
    if (this.values[id] === 0) this.touched.push(id);
    this.values[id]! += value;
  }

  get(id: number): number {
    return this.values[id] ?? 0;
  }

  get size(): number {
    return this.touched.length;
  }

  /** Calls `visit` for every document with evidence, in first-touched order. */
  forEach(visit: (id: number, score: number) => void): void {
    for (const id of this.touched) visit(id, this.values[id]!);
  }

  /** Best `limit` positive scores, best first, equal scores by ascending id; then release(). */
  top(limit: number): RetrievalHit[] {
    const hits = this.best(limit);
    this.release();
    return hits;
  }

  private best(limit: number): RetrievalHit[] {
    if (this.touched.length > limit * 4) {
      // What topHits would do, minus one object per touched document (every touched
      // score is positive: only positive evidence is ever added).
      const heap = new TopK(limit);
      for (const id of this.touched) {
        const score = this.values[id]!;
        if (heap.accepts(id, score)) heap.push(id, score);
      }
      return heap.sorted();
    }
    const hits: RetrievalHit[] = [];
    for (const id of this.touched) {
      const score = this.values[id]!;
      if (score > 0) hits.push({ id, score });
    }
    return topHits(hits, limit);
  }
}

/**
 * Best `limit` hits, best first, equal scores by ascending id (the stable tie-break).
 * Past a few times `limit` hits, the shared bounded heap keeps it O(n log limit).
 */
export function topHits(hits: RetrievalHit[], limit: number): RetrievalHit[] {
  if (hits.length > limit * 4) {
    const heap = new TopK(limit);
    for (const hit of hits) heap.push(hit.id, hit.score);
    return heap.sorted();
  }
  hits.sort((a, b) => b.score - a.score || a.id - b.id);
  return hits.length > limit ? hits.slice(0, limit) : hits;
}
