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
