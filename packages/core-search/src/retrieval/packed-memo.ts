/**
 * A memo from packed field counts (Corpus postings: whole numbers from 1 to 64^8) to a
 * number derived from them, in an open-addressing table of two typed arrays. Few distinct
 * packed values occur, but most are above 2^31 (a description count alone is 64^4), and a
 * Map keyed by such numbers hashes a heap number per lookup: the lookup was most of the
 * TF-IDF norm update after an add(), one per posting of every term the add touched.
 */
export class PackedMemo {
  private keys: Float64Array;
  private values: Float64Array;
  private used = 0;
  private shift: number;

  /**
   * @param compute the value of a packed count (pure: a memoised value is never recomputed)
   * @param maxEntries entries kept at most; beyond them values are computed, not stored
   */
  constructor(
    private readonly compute: (packed: number) => number,
    private readonly maxEntries: number,
  ) {
    this.keys = new Float64Array(256);
    this.values = new Float64Array(256);
    this.shift = 32 - 8;
  }

  get(packed: number): number {
    const { keys } = this;
    const mask = keys.length - 1;
    for (let at = slot(packed, this.shift); ; at = (at + 1) & mask) {
      const key = keys[at]!;
      if (key === packed) return this.values[at]!;
      if (key === 0) break; // 0 is no packed count: an empty slot
    }
    const value = this.compute(packed);
    if (this.used < this.maxEntries) this.store(packed, value);
    return value;
  }

  private store(packed: number, value: number): void {
    // Kept at most half full, so a probe ends within a few slots.
    if ((this.used + 1) * 2 > this.keys.length) this.resize(this.keys.length * 2);
    const { keys } = this;
    const mask = keys.length - 1;
    let at = slot(packed, this.shift);
    while (keys[at] !== 0) at = (at + 1) & mask;
    keys[at] = packed;
    this.values[at] = value;
    this.used++;
  }

  private resize(size: number): void {
    const { keys, values } = this;
    this.keys = new Float64Array(size);
    this.values = new Float64Array(size);
    this.shift = 32 - Math.log2(size);
    this.used = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== 0) this.store(keys[i]!, values[i]!);
  }
}

/** The home slot of a packed count: both 32-bit halves mixed (multiplicative hashing), top bits. */
function slot(packed: number, shift: number): number {
  const low = packed | 0;
  const high = (packed / 4294967296) | 0;
  return Math.imul(low ^ Math.imul(high, 0x27d4eb2d), 0x9e3779b1) >>> shift;
}
