import { DEFAULTS } from './defaults.js';
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

  /** The kept entries, best first (sorted by the selection's own sort, not a comparator closure). */
  sorted(): ScoredId[] {
    const { ids, scores } = this;
    return bestOf(ids, scores, this.size, this.size).map((i) => ({ id: ids[i]!, score: scores[i]! }));
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

/** What a released accumulator holds (never written: add() grows it first). */
const RELEASED = new Float64Array(0);
const RELEASED_IDS = new Int32Array(0);

/** Released accumulators' arrays; a search runs a handful of accumulators at once. */
const pool: { values: Float64Array; touched: Int32Array }[] = [];
const MAX_POOLED = 8;

/**
 * A dense score accumulator over document ids (ids are small, dense integers), much
 * cheaper than a Map when a long query touches thousands of documents. The ids reached
 * are kept in a typed array as long as the scores, pooled with them: a JS array emptied
 * by each release() grew again by copies at every search.
 */
export class Scores {
  private values: Float64Array;
  private touched: Int32Array;
  private count = 0;

  constructor(capacity: number) {
    const size = Math.max(16, capacity);
    let arrays = pool.pop();
    while (arrays && arrays.values.length < size) arrays = pool.pop(); // too small for this corpus now
    this.values = arrays?.values ?? new Float64Array(size);
    this.touched = arrays?.touched ?? new Int32Array(size);
  }

  /**
   * Hand the arrays back for the next search, zeroed where they were written. A new zeroed
   * array of the id capacity per strategy per search was most of the garbage a search
   * made (0.8 MB each at 100k tools). The accumulator is empty afterwards.
   */
  release(): void {
    const { values, touched, count } = this;
    for (let i = 0; i < count; i++) values[touched[i]!] = 0;
    this.count = 0;
    if (pool.length < MAX_POOLED) pool.push({ values, touched });
    this.values = RELEASED;
    this.touched = RELEASED_IDS;
  }

  /** Room for id `id`: both arrays grown to the same length (an id is reached at most once). */
  private grow(id: number): void {
    const size = Math.max(id + 1, this.values.length * 2);
    const values = new Float64Array(size);
    values.set(this.values);
    this.values = values;
    const touched = new Int32Array(size);
    touched.set(this.touched.subarray(0, this.count));
    this.touched = touched;
  }

  /** Add evidence for a document; only positive evidence counts. */
  add(id: number, value: number): void {
    if (!(value > 0)) return;
    if (id >= this.values.length) this.grow(id);
    if (this.values[id] === 0) this.touched[this.count++] = id;
    this.values[id]! += value;
  }

  /** add(), where a document first reached here starts from its evidence in `base`. */
  addOnto(base: Scores, id: number, value: number): void {
    if (!(value > 0)) return;
    if (id >= this.values.length) this.grow(id);
    if (this.values[id] === 0) {
      this.touched[this.count++] = id;
      this.values[id] = base.get(id);
    }
    this.values[id]! += value;
  }

  get(id: number): number {
    return this.values[id] ?? 0;
  }

  get size(): number {
    return this.count;
  }

  /**
   * Writes the documents with evidence of at least `floor` and their scores into ids and
   * scores from position `at` (room for `size` more is the caller's), in first-touched
   * order; returns the end.
   */
  copyTo(ids: Int32Array, scores: Float64Array, at: number, floor = Number.NEGATIVE_INFINITY): number {
    const { touched, values, count } = this;
    let end = at;
    for (let i = 0; i < count; i++) {
      const id = touched[i]!;
      const score = values[id]!;
      if (score < floor) continue;
      ids[end] = id;
      scores[end++] = score;
    }
    return end;
  }

  /** Best `limit` positive scores, best first, equal scores by ascending id; then release(). */
  top(limit: number): RetrievalHit[] {
    const hits = this.best(limit);
    this.release();
    return hits;
  }

  /** Best `limit` positive scores, best first, equal scores by ascending id; the evidence is kept. */
  best(limit: number): RetrievalHit[] {
    const { touched, values, count } = this;
    const scores = scratch(count);
    for (let i = 0; i < count; i++) scores[i] = values[touched[i]!]!;
    return bestOf(touched, scores, count, limit).map((i) => ({ id: touched[i]!, score: scores[i]! }));
  }
}

/** Scratch score arrays, grown and never shrunk: filled and consumed with no await between. */
let scratchA = new Float64Array(1024);
let scratchB = new Float64Array(1024);
function scratch(n: number): Float64Array {
  if (scratchA.length < n) scratchA = new Float64Array(Math.max(n, scratchA.length * 2));
  return scratchA;
}

/** Candidate (id, score) pairs a retriever gathers before a selection; see candidates(). */
let candidateIds = new Int32Array(1024);
let candidateScores = new Float64Array(1024);

/**
 * Scratch for n candidate pairs, to fill and hand to bestOf: grown and never shrunk, valid
 * until the next call (a retriever fills and reads it with no await between). Arrays made
 * per search, or a hit object per candidate, were a tenth of a lexical search.
 */
export function candidates(n: number): { ids: Int32Array; scores: Float64Array } {
  if (candidateIds.length < n) {
    candidateIds = new Int32Array(Math.max(n, candidateIds.length * 2));
    candidateScores = new Float64Array(candidateIds.length);
  }
  return { ids: candidateIds, scores: candidateScores };
}

/**
 * The k-th largest of values[0..n) (1 <= k <= n), reordering them: Hoare quickselect,
 * expected O(n). Finding this threshold first and then sorting only what reaches it
 * replaced a bounded heap over every candidate plus a sort, which cost three times the
 * BM25F accumulation it ranked (10k tools, ~860 candidates a query, top 100: 52 µs
 * against 18 µs; 31 µs selecting; whole lexical search p50 -10%, same process).
 */
function kthLargest(values: Float64Array, n: number, k: number): number {
  const target = k - 1;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    // Median of three: sorted and reversed runs stay linear.
    const a = values[lo]!;
    const b = values[(lo + hi) >> 1]!;
    const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), values[hi]!));
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    // Now values[lo..j] >= pivot >= values[i..hi], and anything between equals the pivot.
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return pivot;
  }
  return values[target]!;
}

/** The positions bestOf selects among (narrow()), ascending. */
let narrowed = new Int32Array(1024);

/**
 * Positions of the best `limit` of n (ids[i], scores[i]) pairs (scores not NaN), best
 * first, equal scores by ascending id: what a bounded heap keeps, found by selecting the
 * limit-th score and sorting only the pairs at or above it.
 *
 * Many candidates per wanted one (a strategy's top 100 of the ~1,000 documents a query
 * reaches at 10k tools, ~10,000 at 100k) are first narrowed to those that can make the cut
 * (narrow()): the selection then sees the same pairs, in the same order, minus some that
 * score below the limit-th, so it chooses the same positions. The quickselect over every
 * candidate, each step a branch on random data, was most of a selection's cost (random
 * BM25-like scores, top 100, old and new interleaved in one process, load 8.5: of 1,000
 * candidates 0.56x, of 3,000 0.54x, of 20,000 0.34x the time; scratch bench2.mts).
 */
export function bestOf(ids: Int32Array, scores: Float64Array, n: number, limit: number): number[] {
  const kept: number[] = [];
  if (limit <= 0 || n === 0) return kept;
  if (n <= limit) {
    for (let i = 0; i < n; i++) kept.push(i);
  } else {
    if (narrowed.length < n) narrowed = new Int32Array(Math.max(n, narrowed.length * 2));
    const positions = narrowed;
    const m =
      n >= narrowFrom * limit && n >= 2 * SAMPLE ? narrow(scores, n, limit, positions) : all(positions, n);
    if (scratchB.length < m) scratchB = new Float64Array(Math.max(m, scratchB.length * 2));
    const select = scratchB;
    for (let j = 0; j < m; j++) select[j] = scores[positions[j]!]!;
    const threshold = kthLargest(select, m, limit);
    const tied: number[] = [];
    for (let j = 0; j < m; j++) {
      const i = positions[j]!;
      const score = scores[i]!;
      if (score > threshold) kept.push(i);
      else if (score === threshold) tied.push(i);
    }
    // Fewer than `limit` score above the threshold; the lowest ids among the tied fill the rest.
    if (kept.length + tied.length > limit) tied.sort((a, b) => ids[a]! - ids[b]!);
    for (let i = 0; kept.length < limit; i++) kept.push(tied[i]!);
  }
  sortPositions(kept, 0, kept.length - 1, scores, ids);
  return kept;
}

const { sample: SAMPLE, margin, narrowFrom } = DEFAULTS.selection;
const sampled = new Float64Array(SAMPLE);

/** Positions 0..n into `positions`; returns n. */
function all(positions: Int32Array, n: number): number {
  for (let i = 0; i < n; i++) positions[i] = i;
  return n;
}

/**
 * Writes into `positions`, ascending, the positions scoring at least a guess at the
 * limit-th largest of n scores (limit < n), and returns how many; every position when
 * fewer than `limit` reach the guess. Exact either way: with at least `limit` at or above
 * the guess, the limit-th largest score is too, and so is every score that can make the cut.
 * The guess is the score that ranks among SAMPLE evenly spaced scores where limit x margin
 * would rank among all n: a pass of one comparison per score, which nearly always fails.
 */
function narrow(scores: Float64Array, n: number, limit: number, positions: Int32Array): number {
  const stride = n / SAMPLE;
  for (let j = 0; j < SAMPLE; j++) sampled[j] = scores[Math.floor(j * stride)]!;
  const rank = Math.min(SAMPLE, Math.ceil((limit * SAMPLE * margin) / n) + 2);
  const guess = kthLargest(sampled, SAMPLE, rank);
  let m = 0;
  for (let i = 0; i < n; i++) if (scores[i]! >= guess) positions[m++] = i;
  return m >= limit ? m : all(positions, n);
}

/** Does position a rank before position b: higher score, then lower id? */
function before(a: number, b: number, scores: Float64Array, ids: Int32Array): boolean {
  const x = scores[a]!;
  const y = scores[b]!;
  return x > y || (x === y && ids[a]! < ids[b]!);
}

/**
 * Sorts positions[lo..hi] best first: quicksort, insertion sort on short runs. Array#sort
 * calling a comparator closure was most of what selecting a top 100 cost.
 */
function sortPositions(
  positions: number[],
  lo: number,
  hi: number,
  scores: Float64Array,
  ids: Int32Array,
): void {
  while (hi - lo > 12) {
    const pivot = positions[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (before(positions[i]!, pivot, scores, ids)) i++;
      while (before(pivot, positions[j]!, scores, ids)) j--;
      if (i <= j) {
        const swap = positions[i]!;
        positions[i] = positions[j]!;
        positions[j] = swap;
        i++;
        j--;
      }
    }
    // Recurse into the shorter side, loop on the longer: stack depth stays logarithmic.
    if (j - lo < hi - i) {
      sortPositions(positions, lo, j, scores, ids);
      lo = i;
    } else {
      sortPositions(positions, i, hi, scores, ids);
      hi = j;
    }
  }
  for (let i = lo + 1; i <= hi; i++) {
    const position = positions[i]!;
    let j = i - 1;
    while (j >= lo && before(position, positions[j]!, scores, ids)) {
      positions[j + 1] = positions[j]!;
      j--;
    }
    positions[j + 1] = position;
  }
}
