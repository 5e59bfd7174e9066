import type { Corpus } from '../corpus.js';

/** Bit i set when letter a+i occurs: a cheap lower bound on edit distance (see near()). */
function letterMask(term: string): number {
  let mask = 0;
  for (let i = 0; i < term.length; i++) {
    const c = term.charCodeAt(i) - 97;
    if (c >= 0 && c < 26) mask |= 1 << c;
    else mask |= 1 << 26; // digits and other letters share one bit
  }
  return mask;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0xf0f0f0f) * 0x1010101) >>> 24;
}

/**
 * The corpus vocabulary in the two shapes typo and prefix matching need: terms sorted
 * (binary search for completions) and bucketed by length with letter masks (edit
 * distance candidates without comparing every term). Derived lazily from the corpus and
 * refreshed only when it changed, so add()/remove() stay cheap.
 */
export class Vocabulary {
  private version = -1;
  private sorted: string[] = [];
  private byLength = new Map<number, { terms: string[]; masks: Int32Array }>();

  constructor(private readonly corpus: Corpus) {}

  private refresh(): void {
    if (this.version === this.corpus.version) return;
    this.sorted = [...this.corpus.postings.keys()].sort();
    const buckets = new Map<number, string[]>();
    for (const term of this.sorted) {
      const bucket = buckets.get(term.length);
      if (bucket) bucket.push(term);
      else buckets.set(term.length, [term]);
    }
    this.byLength = new Map(
      [...buckets].map(([length, terms]) => [length, { terms, masks: Int32Array.from(terms, letterMask) }]),
    );
    this.version = this.corpus.version;
  }

  /** Terms starting with `prefix` (excluding `prefix` itself), in sorted order, at most `max`. */
  completions(prefix: string, max: number): string[] {
    this.refresh();
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (let i = lo; i < this.sorted.length && out.length < max; i++) {
      const term = this.sorted[i]!;
      if (!term.startsWith(prefix)) break;
      if (term !== prefix) out.push(term);
    }
    return out;
  }

  /**
   * Terms whose length is within `maxDistance` of `word` and whose letter sets differ
   * in at most 2 * maxDistance letters: every edit changes at most two letter-set bits,
   * so these are the only terms that can be within the distance. Callers verify.
   */
  candidates(word: string, maxDistance: number): string[] {
    this.refresh();
    const mask = letterMask(word);
    const out: string[] = [];
    for (let length = word.length - maxDistance; length <= word.length + maxDistance; length++) {
      const bucket = this.byLength.get(length);
      if (!bucket) continue;
      const { terms, masks } = bucket;
      for (let i = 0; i < terms.length; i++) {
        if (popcount(masks[i]! ^ mask) <= 2 * maxDistance) out.push(terms[i]!);
      }
    }
    return out;
  }
}
