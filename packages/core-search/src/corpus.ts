import { DEFAULTS, FIELD_NAMES, type FieldName } from './defaults.js';
import type { IndexedDoc } from './retriever.js';
import { Scores } from './retrievers/top-k.js';

const FIELDS = FIELD_NAMES.length;

/**
 * Per-field term frequencies of one term in one document, packed into one number:
 * 8 bits per field in FIELD_NAMES order (counts saturate at 255). One small typed array
 * per posting made garbage collection the largest cost of indexing 10k tools.
 */
const FIELD_BASE = FIELD_NAMES.map((_, f) => 256 ** f);

/** The count of field `f` in a packed posting. */
export function fieldCount(packed: number, f: number): number {
  return Math.floor(packed / FIELD_BASE[f]!) % 256;
}

/** Terms that appeared in / vanished from the corpus. */
export interface TermJournal {
  added: Set<string>;
  removed: Set<string>;
}

/**
 * One term's postings copied into typed arrays, in the postings Map's order. Searches
 * read these instead of the Map: iterating Map entries was most of a lexical search.
 */
export interface PostingList {
  readonly ids: Int32Array;
  readonly packed: Float64Array;
}

/** A posting list plus its BM25F field-weighted tfs, valid while `tfsVersion` is current. */
interface CachedList extends PostingList {
  tfs: Float64Array | undefined;
  tfsVersion: number;
}

/** A weighted query term: original terms weigh 1, expansions less. */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/**
 * The shared inverted index: term -> document -> per-field term frequency, with field
 * lengths. Several strategies score from it (BM25F keyword, TF-IDF, synonym, typo and
 * prefix expansion), so it is built once per add() instead of once per strategy.
 * Adding and removing documents is incremental; nothing is ever rebuilt wholesale.
 */
export class Corpus {
  readonly postings = new Map<string, Map<number, number>>();
  /** Field lengths by id * FIELDS + field; ids are dense insertion numbers. */
  private lengths = new Float64Array(FIELDS * 64);
  private readonly totalLengths = new Float64Array(FIELDS);
  private count = 0;
  private capacity = 64;
  /** Bumped on every change so derived structures (vocabulary, norms) know to refresh. */
  version = 0;
  /**
   * Terms that appeared or vanished since the vocabulary last looked, so it can update
   * itself instead of re-sorting every term; undefined after too many changes (rebuild).
   */
  private journal: TermJournal | undefined = { added: new Set(), removed: new Set() };
  /** BM25F length normalisation per id * FIELDS + field, valid for `normsVersion`. */
  private norms = new Float64Array(0);
  private normsVersion = -1;
  /**
   * Posting lists built on first read. add() and remove() drop exactly the terms they
   * touch, so a change costs a rebuild of those lists only, on their next read.
   */
  private readonly lists = new Map<string, CachedList>();

  get size(): number {
    return this.count;
  }

  /** One past the largest id ever indexed: the size dense per-id arrays need. */
  get idCapacity(): number {
    return this.capacity;
  }

  add(docs: readonly IndexedDoc[]): void {
    for (const doc of docs) {
      this.ensureCapacity(doc.id + 1);
      FIELD_NAMES.forEach((field, f) => {
        const terms = doc.fields[field];
        this.lengths[doc.id * FIELDS + f] = terms.length;
        this.totalLengths[f]! += terms.length;
        for (const term of terms) {
          this.lists.delete(term);
          let byDoc = this.postings.get(term);
          if (!byDoc) {
            byDoc = new Map();
            this.postings.set(term, byDoc);
            this.noteTerm(term, true);
          }
          const packed = byDoc.get(doc.id) ?? 0;
          if (fieldCount(packed, f) < 255) byDoc.set(doc.id, packed + FIELD_BASE[f]!);
        }
      });
      this.count++;
    }
    this.version++;
  }

  remove(docs: readonly IndexedDoc[]): void {
    for (const doc of docs) {
      FIELD_NAMES.forEach((field, f) => {
        this.totalLengths[f]! -= this.lengths[doc.id * FIELDS + f]!;
        this.lengths[doc.id * FIELDS + f] = 0;
        for (const term of doc.fields[field]) {
          this.lists.delete(term);
          const byDoc = this.postings.get(term);
          if (!byDoc) continue;
          byDoc.delete(doc.id);
          if (byDoc.size === 0) {
            this.postings.delete(term);
            this.noteTerm(term, false);
          }
        }
      });
      this.count--;
    }
    this.version++;
  }

  private noteTerm(term: string, created: boolean): void {
    const journal = this.journal;
    if (!journal) return;
    const [into, from] = created ? [journal.added, journal.removed] : [journal.removed, journal.added];
    if (!from.delete(term)) into.add(term); // appearing then vanishing again is no change
    if (journal.added.size + journal.removed.size > Math.max(1000, this.postings.size / 4))
      this.journal = undefined;
  }

  /**
   * Term changes since the previous call (for the one Vocabulary of an engine), or
   * undefined when the caller must rebuild from `postings`. Starts a new journal.
   */
  takeJournal(): TermJournal | undefined {
    const journal = this.journal;
    this.journal = { added: new Set(), removed: new Set() };
    return journal;
  }

  private ensureCapacity(ids: number): void {
    if (ids <= this.capacity) return;
    while (this.capacity < ids) this.capacity *= 2;
    const grown = new Float64Array(this.capacity * FIELDS);
    grown.set(this.lengths);
    this.lengths = grown;
  }

  /** The term's postings as typed arrays (undefined for an unknown term); do not modify. */
  postingList(term: string): PostingList | undefined {
    return this.cachedList(term);
  }

  private cachedList(term: string): CachedList | undefined {
    let list = this.lists.get(term);
    if (list) return list;
    const byDoc = this.postings.get(term);
    if (!byDoc) return undefined;
    const ids = new Int32Array(byDoc.size);
    const packed = new Float64Array(byDoc.size);
    let i = 0;
    byDoc.forEach((value, id) => {
      ids[i] = id;
      packed[i++] = value;
    });
    list = { ids, packed, tfs: undefined, tfsVersion: -1 };
    this.lists.set(term, list);
    return list;
  }

  /** Documents containing the term in any field. */
  df(term: string): number {
    return this.postings.get(term)?.size ?? 0;
  }

  /** BM25 idf, always positive. */
  idf(term: string): number {
    const df = this.df(term);
    return Math.log(1 + (this.count - df + 0.5) / (df + 0.5));
  }

  /**
   * Document frequency from which a word is taken as an established, correctly spelt
   * word (DEFAULTS.fuzzy.knownDf at scale; 1 for small registries, where every word is rare).
   */
  get knownDf(): number {
    return Math.max(1, Math.min(DEFAULTS.fuzzy.knownDf, Math.round(this.count / 2000)));
  }

  /**
   * Share of the query's distinct terms that occur in the corpus. A strategy matching
   * words literally sees only this share of the query, so it weighs itself by it: with
   * "screenshoot the page" the keyword ranking is a ranking for "page" alone. Terms in
   * fewer than `minDf` documents count as unseen (a 10k-tool crawl has its own typos),
   * unless the strategy sees them some other way (`alsoSeen`: a synonym, a completion).
   */
  coverage(terms: readonly string[], minDf = 1, alsoSeen?: (term: string) => boolean): number {
    const distinct = new Set(terms);
    if (distinct.size === 0) return 1;
    let known = 0;
    for (const term of distinct) if (this.df(term) >= minDf || alsoSeen?.(term)) known++;
    return known / distinct.size;
  }

  averageLength(field: FieldName): number {
    const f = FIELD_NAMES.indexOf(field);
    return this.count === 0 ? 0 : this.totalLengths[f]! / this.count;
  }

  /** Per-document, per-field BM25F length normalisation, recomputed once per corpus change. */
  private fieldNorms(): Float64Array {
    if (this.normsVersion === this.version) return this.norms;
    const { b } = DEFAULTS.bm25;
    const norms = new Float64Array(this.capacity * FIELDS);
    FIELD_NAMES.forEach((field, f) => {
      const average = this.averageLength(field) || 1;
      const bf = b[field];
      for (let id = 0; id < this.capacity; id++) {
        norms[id * FIELDS + f] = 1 - bf + (bf * this.lengths[id * FIELDS + f]!) / average;
      }
    });
    this.norms = norms;
    this.normsVersion = this.version;
    return norms;
  }

  /**
   * BM25F: field-weighted, per-field length-normalised term frequency, saturated once
   * per term (so a term repeated across fields is not counted as independent evidence).
   */
  bm25f(terms: readonly WeightedTerm[], accept?: (id: number) => boolean): Scores {
    const { k1 } = DEFAULTS.bm25;
    const scores = new Scores(this.capacity);
    for (const { term, weight } of terms) {
      const list = this.cachedList(term);
      if (!list) continue;
      const idf = weight * this.idf(term) * (k1 + 1);
      const { ids } = list;
      const tfs = this.fieldWeightedTfs(list);
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (accept && !accept(id)) continue;
        const weighted = tfs[i]!;
        scores.add(id, (idf * weighted) / (k1 + weighted));
      }
    }
    return scores;
  }

  /**
   * Field-weighted, length-normalised tf of each posting of a list. It depends on the
   * field norms, so it is kept until the corpus next changes: a term queried again
   * (the same word in many searches) skips decoding its postings.
   */
  private fieldWeightedTfs(list: CachedList): Float64Array {
    if (list.tfs && list.tfsVersion === this.version) return list.tfs;
    const weights = FIELD_WEIGHTS;
    const norms = this.fieldNorms();
    const { ids, packed } = list;
    const tfs = list.tfs ?? new Float64Array(ids.length); // ids never change; reuse
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      let weighted = 0;
      let rest = packed[i]!;
      for (let f = 0; rest > 0; f++) {
        const count = rest % 256;
        rest = (rest - count) / 256;
        if (count !== 0) weighted += (weights[f]! * count) / norms[id * FIELDS + f]!;
      }
      tfs[i] = weighted;
    }
    list.tfs = tfs;
    list.tfsVersion = this.version;
    return tfs;
  }
}

const FIELD_WEIGHTS = FIELD_NAMES.map((field) => DEFAULTS.bm25.fieldWeights[field]);
/** Few distinct packed values occur (counts are small), so the sum is memoised. */
const weightedTfMemo = new Map<number, number>();

/** Sum of field weight x count of a packed posting (the TF-IDF term frequency). */
export function weightedTf(packed: number): number {
  let tf = weightedTfMemo.get(packed);
  if (tf === undefined) {
    tf = 0;
    let rest = packed;
    for (let f = 0; rest > 0; f++) {
      const count = rest % 256;
      rest = (rest - count) / 256;
      tf += FIELD_WEIGHTS[f]! * count;
    }
    if (weightedTfMemo.size < 100_000) weightedTfMemo.set(packed, tf);
  }
  return tf;
}

/** Merge duplicate query terms, keeping the highest weight (a query repeating a word is not two matches). */
export function uniqueTerms(terms: readonly WeightedTerm[]): WeightedTerm[] {
  const best = new Map<string, number>();
  for (const { term, weight } of terms) best.set(term, Math.max(best.get(term) ?? 0, weight));
  return [...best].map(([term, weight]) => ({ term, weight }));
}
