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

function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]! <= b[j]! ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/**
 * `fresh` (sorted, none already in `sorted`) merged into `sorted`. A few new terms (one
 * add()) are binary-searched and spliced in: a merge compares every term of the
 * vocabulary as strings, which was most of the first search after an add().
 */
function insertSorted(sorted: string[], fresh: readonly string[]): string[] {
  if (fresh.length > 64) return mergeSorted(sorted, fresh);
  for (const term of fresh) {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! <= term) lo = mid + 1;
      else hi = mid;
    }
    sorted.splice(lo, 0, term);
  }
  return sorted;
}

/** Is `term` among the ascending sorted[0..n)? */
function has(sorted: readonly string[], n: number, term: string): boolean {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < term) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && sorted[lo] === term;
}

/** Shorter first, then in sorted order: the prefix strategy's order of completions. */
function ranksShorter(a: string, b: string): boolean {
  return a.length < b.length || (a.length === b.length && a < b);
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0xf0f0f0f) * 0x1010101) >>> 24;
}

/**
 * The corpus vocabulary in the two shapes typo and prefix matching need: terms sorted
 * (binary search for completions) and bucketed by length with letter masks (edit
 * distance candidates without comparing every term). Derived lazily from the corpus:
 * built once, then updated from the corpus' term journal (merging the new terms in),
 * so add()/remove() never pay for it and searches pay only for what changed.
 * One Vocabulary per corpus: it consumes the corpus' journal.
 */
export class Vocabulary {
  private version = -1;
  private sorted: string[] = [];
  private byLength = new Map<number, { terms: string[]; masks: number[] }>();

  constructor(private readonly corpus: Corpus) {}

  private refresh(): void {
    if (this.version === this.corpus.version) return;
    const journal = this.corpus.takeJournal();
    if (this.version === -1 || !journal) this.rebuild();
    else this.update(journal.added, journal.removed);
    this.version = this.corpus.version;
  }

  private rebuild(): void {
    this.sorted = [...this.corpus.terms()].sort();
    this.byLength = new Map();
    this.bucket(this.sorted);
  }

  private update(added: ReadonlySet<string>, removed: ReadonlySet<string>): void {
    if (removed.size > 0) {
      this.sorted = this.sorted.filter((term) => !removed.has(term));
      for (const length of new Set([...removed].map((term) => term.length))) {
        const bucket = this.byLength.get(length);
        if (!bucket) continue;
        const keep = bucket.terms.map((term) => !removed.has(term));
        bucket.terms = bucket.terms.filter((_, i) => keep[i]);
        bucket.masks = bucket.masks.filter((_, i) => keep[i]);
      }
    }
    if (added.size > 0) {
      const fresh = [...added].sort();
      this.sorted = insertSorted(this.sorted, fresh);
      this.bucket(fresh);
    }
  }

  private bucket(terms: readonly string[]): void {
    for (const term of terms) {
      const bucket = this.byLength.get(term.length);
      if (bucket) {
        bucket.terms.push(term);
        bucket.masks.push(letterMask(term));
      } else this.byLength.set(term.length, { terms: [term], masks: [letterMask(term)] });
    }
  }

  /** Terms starting with `prefix` (excluding `prefix` itself), in sorted order, at most `max`. */
  completions(prefix: string, max: number): string[] {
    this.refresh();
    const out: string[] = [];
    this.appendCompletions(prefix, max, out, out.length);
    return out;
  }

  /**
   * The prefix strategy's expansions of one query word: completions(word, max) and
   * completions(term, max) together (its surface word and its stem), without `term`,
   * shortest first, then in sorted order, at most `max`. One function of plain loops: a
   * Set of the two spread lists, spread again and sorted with a comparator, ran the
   * iterator protocol through every element, and once per search it stays unoptimised for
   * the first thousand or so searches (compare.ts's window: 92 -> 12 us a search warm).
   */
  shortestCompletions(word: string, term: string, max: number): string[] {
    this.refresh();
    const out: string[] = [];
    this.appendCompletions(word, max, out, 0);
    // The stem's completions that the word's did not list (both runs ascending).
    if (term !== word) this.appendCompletions(term, max, out, out.length);
    let n = 0;
    for (let i = 0; i < out.length; i++) if (out[i] !== term) out[n++] = out[i]!;
    out.length = n;
    // Insertion sort: shortest first, then in sorted order (the terms are distinct).
    for (let i = 1; i < n; i++) {
      const completion = out[i]!;
      let j = i - 1;
      while (j >= 0 && ranksShorter(completion, out[j]!)) {
        out[j + 1] = out[j]!;
        j--;
      }
      out[j + 1] = completion;
    }
    if (n > max) out.length = max;
    return out;
  }

  /**
   * Appends the first `max` terms starting with `prefix` (not `prefix` itself), in sorted
   * order, leaving out those already in out[0..distinctFrom) (ascending).
   */
  private appendCompletions(prefix: string, max: number, out: string[], distinctFrom: number): void {
    const sorted = this.sorted;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    let taken = 0;
    for (let i = lo; i < sorted.length && taken < max; i++) {
      const term = sorted[i]!;
      if (!term.startsWith(prefix)) break;
      if (term === prefix) continue;
      taken++;
      if (distinctFrom > 0 && has(out, distinctFrom, term)) continue;
      out.push(term);
    }
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
