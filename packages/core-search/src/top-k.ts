import type { RetrievalHit } from './retriever.js';

/**
 * The k best (id, score) pairs of a stream, in a bounded min-heap whose root is
 * the worst kept entry: O(n log k) time, O(k) memory. "Better" means a higher
 * score, then a lower id, so equal scores rank in insertion order (stable).
 */
export interface ScoredId {
  id: number;
  score: number;
}

export class TopK {
  private readonly ids: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(readonly k: number) {
    this.ids = new Int32Array(Math.max(0, k));
    this.scores = new Float64Array(Math.max(0, k));
  }

  /** Scores below this can never be kept: -Infinity until k entries are held, then the worst kept score. */
  get threshold(): number {
    return this.size < this.k ? Number.NEGATIVE_INFINITY : this.scores[0]!;
  }

  /** Would push() keep this candidate? A cheap pre-check for hot loops. */
  accepts(id: number, score: number): boolean {
    return this.size < this.k || this.worse(this.ids[0]!, this.scores[0]!, id, score);
  }

  /** Offers one candidate; kept only if it beats the worst of the current k. */
  push(id: number, score: number): void {
    if (this.k <= 0 || Number.isNaN(score)) return;
    if (this.size < this.k) {
      this.ids[this.size] = id;
      this.scores[this.size] = score;
      this.siftUp(this.size++);
    } else if (this.worse(this.ids[0]!, this.scores[0]!, id, score)) {
      this.ids[0] = id;
      this.scores[0] = score;
      this.siftDown(0);
    }
  }

  /** The kept entries, best first. */
  sorted(): ScoredId[] {
    const out: ScoredId[] = [];
    for (let i = 0; i < this.size; i++) out.push({ id: this.ids[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.id - b.id);
  }

  /** Is (idA, scoreA) ranked below (idB, scoreB)? */
  private worse(idA: number, scoreA: number, idB: number, scoreB: number): boolean {
    return scoreA < scoreB || (scoreA === scoreB && idA > idB);
  }

  private lessAt(i: number, j: number): boolean {
    return this.worse(this.ids[i]!, this.scores[i]!, this.ids[j]!, this.scores[j]!);
  }

  private swap(i: number, j: number): void {
    const id = this.ids[i]!;
    const score = this.scores[i]!;
    this.ids[i] = this.ids[j]!;
    this.scores[i] = this.scores[j]!;
    this.ids[j] = id;
    this.scores[j] = score;
  }

  private siftUp(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.lessAt(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(index: number): void {
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < this.size && this.lessAt(left, smallest)) smallest = left;
      if (right < this.size && this.lessAt(right, smallest)) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}

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
