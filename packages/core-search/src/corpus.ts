import { DEFAULTS, FIELD_NAMES, type FieldName } from './defaults.js';
import { SHAPES, shapeNumber } from './retrieval/shape.js';
import type { IndexedDoc, RetrievalHit } from './retriever.js';
import { invalidIndex } from './serialize.js';
import { bestOf, candidates, Scores } from './top-k.js';
import type { QueryShape } from './types.js';

const FIELDS = FIELD_NAMES.length;

/**
 * Per-field term frequencies of one term in one document, packed into one number:
 * 6 bits per field in FIELD_NAMES order (counts saturate at 63; 8 fields x 6 bits stay
 * within a double's 53 exact bits). One small typed array per posting made garbage
 * collection the largest cost of indexing 10k tools. BM25 saturates long before 63.
 */
export const FIELD_RADIX = 64;
const FIELD_BITS = 6;
const MAX_FIELD_COUNT = FIELD_RADIX - 1;
/** Fields 0-4 fill the low 30 bits of a packed count (an int32), fields 5-7 the rest. */
const LOW_FIELDS = 5;
const LOW_MASK = 2 ** (LOW_FIELDS * FIELD_BITS) - 1;
/** (packed - low) * HIGH_SCALE: fields 5-7 as a whole number (an exact power of two, no division). */
const HIGH_SCALE = 1 / (LOW_MASK + 1);
const FIELD_BASE = FIELD_NAMES.map((_, f) => FIELD_RADIX ** f);

/** The count of field `f` in a packed posting. */
export function fieldCount(packed: number, f: number): number {
  return Math.floor(packed / FIELD_BASE[f]!) % FIELD_RADIX;
}

const PHRASINGS = FIELD_NAMES.indexOf('phrasings');
const DESCRIPTION = FIELD_NAMES.indexOf('description');
// fieldWeightedTfs finds a posting's description length as the last of its low fields' lengths.
if (DESCRIPTION !== LOW_FIELDS - 1) throw new Error('corpus: the description must be the last low field');
const LEARNED = FIELD_NAMES.indexOf('learned');
/** The fields whose absence counts the description again (descriptionBackoffs), in its order. */
const BACKOFF_FIELDS = [PHRASINGS, LEARNED] as const;
/**
 * Up to this many terms, a list's distinct terms are found by scanning it (coverage,
 * uniqueTerms): a query's own words, where a Set or Map made and dropped per strategy per
 * search cost more, and stays unoptimised for the first thousand or so searches.
 */
const SCAN_DISTINCT_MAX = 32;
/** Field weights in FIELD_NAMES order, per query shape (by shapeNumber). */
const FIELD_WEIGHTS: readonly Float64Array[] = SHAPES.map((shape) =>
  Float64Array.from(FIELD_NAMES, (field) => DEFAULTS.bm25.fieldWeights[shape][field]),
);
/** BM25's length normalisation b per field, and 1 - b, in FIELD_NAMES order. */
const LENGTH_B = Float64Array.from(FIELD_NAMES, (field) => DEFAULTS.bm25.b[field]);
const ONE_MINUS_B = LENGTH_B.map((b) => 1 - b);
/** The field of each bit of a packed count's half (fields 0-4, or 5-7 less LOW_FIELDS). */
const FIELD_OF_BIT = Int8Array.from({ length: 32 }, (_, bit) => Math.floor(bit / FIELD_BITS));
/**
 * A list's terms (ListTerms): what fieldWeightedTfs adds per posting, one entry each, in the
 * order it adds them. An entry's code: its count in the low FIELD_BITS bits, then its
 * pseudo-field (a field number, or FIELDS + k for the description counted again by backoff
 * k of BACKOFF_FIELDS), then whether it is its posting's last entry.
 */
const ENTRY_FIELDS = FIELDS + BACKOFF_FIELDS.length;
const ENTRY_FIELD_MASK = 15;
if (ENTRY_FIELDS > ENTRY_FIELD_MASK + 1) throw new Error('corpus: too many fields for an entry code');
/** The bit of an entry's code that ends its posting (the highest: code >>> ENTRY_LAST_BIT is 0 or 1). */
const ENTRY_LAST_BIT = FIELD_BITS + 4;
const ENTRY_LAST = 1 << ENTRY_LAST_BIT;
/** 1 - b and b per pseudo-field: a backoff entry is normalised as the description is. */
const ENTRY_ONE_MINUS_B = Float64Array.from({ length: ENTRY_FIELDS }, (_, f) =>
  f < FIELDS ? ONE_MINUS_B[f]! : ONE_MINUS_B[DESCRIPTION]!,
);
const ENTRY_LENGTH_B = Float64Array.from({ length: ENTRY_FIELDS }, (_, f) =>
  f < FIELDS ? LENGTH_B[f]! : LENGTH_B[DESCRIPTION]!,
);

/** A corpus' postings as flat arrays (exportPostings / importPostings). */
export interface CorpusPostings {
  /** Terms by term id. */
  terms: string[];
  /** Term t's postings are at [starts[t], starts[t + 1]). */
  starts: Int32Array;
  ids: Int32Array;
  packed: Float64Array;
}

/** One past the largest packed value: every field at its saturation count. */
const MAX_PACKED = FIELD_RADIX ** FIELDS;

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
  /**
   * The list of the same term this one grew from by postings appended after its own (an
   * add() of ids above every id), while the corpus stays at the version this list was made
   * at; else undefined. What a reader derived per posting of that list holds for this one's
   * first postings, so it can extend it instead of making it again.
   */
  readonly grownFrom: PostingList | undefined;
}

/** A posting list plus its BM25F field-weighted tfs per query shape, valid while `tfsVersion` is current. */
interface CachedList extends PostingList {
  /** By shapeNumber. */
  tfs: (Float64Array | undefined)[];
  tfsVersion: number[];
  /**
   * What its postings' tfs read, in the list's order (listTerms), from its first tfs on,
   * for the backoffs on then (`termsBackoffs`). A document's lengths change only through
   * add() or remove(), which drop the view of every term it holds, so they stay valid while
   * the view lives.
   */
  termCodes: Uint16Array | undefined;
  termLengths: Int32Array | undefined;
  /** The backoffs (bit k: BACKOFF_FIELDS[k]) the entries were made for; -1 before any. */
  termsBackoffs: number;
  grownFrom: CachedList | undefined;
  /**
   * Postings were appended to the term after this view was made (append): it is read no
   * more, and the next view of the term grows from it (cachedList).
   */
  appended: boolean;
}

/** The BM25F sum of a query's own terms, shared by the strategies of one search (Corpus.topBm25f). */
interface SharedSum {
  key: string;
  shape: QueryShape;
  accept: ((id: number) => boolean) | undefined;
  version: number;
  scores: Scores;
  /** The best `depth` documents of `scores`, best first (all of them when fewer). */
  ranked: RetrievalHit[];
  /** The limit `ranked` was selected for (0: not yet). */
  depth: number;
}

/** A weighted query term: original terms weigh 1, expansions less. */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/** Postings of one term: doc ids ascending, with their packed counts; `length` entries in use. */
interface Postings {
  ids: Int32Array;
  packed: Float64Array;
  length: number;
}

/** What append()'s first pass read (Corpus.readDocs): the runs, where each document's fields start in them, the terms touched. */
interface AppendRuns {
  sequence: Int32Array;
  starts: Int32Array;
  touched: number[];
}

/** A term's postings as stored: the first `length` of `ids` and `packed` (read only). */
export type StoredPostings = Readonly<Postings>;

const EMPTY_IDS = new Int32Array(0);
/** Beyond this many terms in one change, termsChangedSince scans the stamps (as cheap by then). */
const MAX_CHANGED_NOW = 4096;
const EMPTY_PACKED = new Float64Array(0);

/** A copy of `array` in a new array of its kind with `size` elements, the rest filled with `fill`. */
export function grownTo<
  T extends
    | Int32Array<ArrayBuffer>
    | Float64Array<ArrayBuffer>
    | Int8Array<ArrayBuffer>
    | Uint8Array<ArrayBuffer>,
>(array: T, size: number, fill = 0): T {
  const grown = new (array.constructor as new (size: number) => T)(size);
  if (fill !== 0) grown.fill(fill, array.length);
  grown.set(array);
  return grown;
}

/**
 * The shared inverted index: term -> document -> per-field term frequency, with field
 * lengths. Several strategies score from it (BM25F keyword, TF-IDF, synonym, typo and
 * prefix expansion), so it is built once per add() instead of once per strategy.
 * Adding and removing documents is incremental; nothing is ever rebuilt wholesale.
 *
 * Terms are interned to dense ids; each term's postings live in two growable typed arrays
 * (ids ascending, packed counts), 12 bytes a posting instead of a Map entry per posting,
 * which made garbage collection and Map inserts the largest costs of indexing.
 */
export class Corpus {
  private readonly termIds = new Map<string, number>();
  /** Postings by term id; undefined once a term has vanished (its id is never reused). */
  private readonly byTerm: (Postings | undefined)[] = [];
  /** Per term id: the corpus version at which its document frequency last changed. */
  private dfStamps = new Int32Array(64);
  /**
   * The terms stamped at `version`, while few (undefined past MAX_CHANGED_NOW, or after a
   * saved index was adopted): termsChangedSince(version - 1), what a structure one change
   * behind asks after each add(), visits them instead of every term's stamp.
   */
  private changedNow: number[] | undefined = [];
  /** changedNow is in ascending order (sorted once, for every structure that asks). */
  private changedNowSorted = true;
  /** Terms by id (undefined once vanished), to name a term found by id. */
  private readonly termsById: (string | undefined)[] = [];
  /** Scratch of a bulk add, per term id: the last document counted, and postings to come. */
  private lastDoc = new Int32Array(64).fill(-1);
  private pending = new Int32Array(64);
  /** Scratch of a bulk add, per term id: 1 + its place in the run being read (append's readRun), else 0. */
  private place = new Int32Array(64);
  /**
   * Scratch of a bulk add, per term id: where the next posting of a term the add brings goes
   * in the add's shared arrays, while it writes them (append), else -1.
   */
  private cursor = new Int32Array(64).fill(-1);
  /**
   * Field lengths (terms) by id * FIELDS + field; ids are dense insertion numbers. Whole
   * numbers bounded by the tool size budget: 32 bits, half of a Float64Array's 64 bytes a tool.
   */
  private lengths = new Int32Array(FIELDS * 64);
  private readonly totalLengths = new Float64Array(FIELDS);
  /** Documents with a non-empty `learned` field (the learned backoff scales with their share). */
  private learnedDocs = 0;
  private count = 0;
  private capacity = 64;
  /** One past the largest doc id ever added. */
  private idEnd = 0;
  /**
   * The version at which a removed id was added again; derived structures that assume
   * ids only grow rebuild then (the engine never reuses ids; tests and callers may).
   */
  reusedIdVersion = -1;
  /** Bumped on every change so derived structures (vocabulary, norms) know to refresh. */
  version = 0;
  /**
   * Terms that appeared or vanished since the vocabulary last looked, so it can update
   * itself instead of re-sorting every term; undefined after too many changes (rebuild).
   */
  private journal: TermJournal | undefined = { added: new Set(), removed: new Set() };
  /**
   * Read-only views of the posting arrays, made on first read and dropped for exactly the
   * terms an add or remove touches.
   */
  private readonly lists = new Map<string, CachedList>();
  /** The views made at this version that grew from another (cachedList), to let go of it at the next change. */
  private readonly growing: CachedList[] = [];
  /** The last sum of leading weight-1 terms, kept while the corpus, shape and filter are unchanged. */
  private shared: SharedSum | undefined;
  /** Average field lengths (1 for an empty field) at corpus version `averagesVersion`. */
  private readonly averages = new Float64Array(FIELDS);
  /** Scratch of fieldWeightedTfs: per pseudo-field of a list's entries, its weight and average length. */
  private readonly entryWeights = new Float64Array(ENTRY_FIELDS);
  private readonly entryAverages = new Float64Array(ENTRY_FIELDS);
  private averagesVersion = -1;

  get size(): number {
    return this.count;
  }

  /** One past the largest id ever indexed: the size dense per-id arrays need. */
  get idCapacity(): number {
    return this.capacity;
  }

  /** Distinct terms in the corpus. */
  get termCount(): number {
    return this.termIds.size;
  }

  /** Postings in the corpus (term-document pairs). */
  get postingCount(): number {
    let total = 0;
    for (const postings of this.byTerm) total += postings?.length ?? 0;
    return total;
  }

  /** Every term in the corpus, in order of first appearance. */
  terms(): IterableIterator<string> {
    return this.termIds.keys();
  }

  has(term: string): boolean {
    return this.termIds.has(term);
  }

  /**
   * Index documents. Documents with ids above every id indexed so far (every engine add)
   * are appended in bulk: their terms are counted first, then each touched posting list
   * grows once, to exactly the size it needs when the term is new (a first build), and
   * the postings are written without further checks. Growing lists by doubling while
   * appending left them a third empty on average (24 bytes a posting instead of 12, 61 MB
   * at 100k tools) and was 5% of indexing in copies and garbage. Ids below the largest
   * (a tool re-indexed in place) take the one-posting-at-a-time path.
   */
  add(docs: readonly IndexedDoc[]): void {
    this.nextVersion();
    let last = this.idEnd - 1;
    let ascending = true;
    for (const doc of docs) {
      if (doc.id <= last) ascending = false;
      last = Math.max(last, doc.id);
    }
    if (ascending) this.append(docs, last);
    else for (const doc of docs) this.insertDoc(doc);
  }

  /**
   * add() of documents whose ids ascend above every id indexed so far. One loop per method
   * (the passes below each in its own): V8 optimises a long loop while it runs (on-stack
   * replacement), and the code it makes then covers the rest of its method too, code that has
   * not run yet and so has no type feedback. With the passes in one method, leaving each loop
   * threw that code out ("insufficient type feedback", --trace-deopt: five times in the ~100k
   * build, and three times in every later add() of one tool, which then ran unoptimised). One
   * tool added at 10k tools: the corpus' part of add() 131-213 -> 84-129 µs (medians of 100
   * adds, three pairs of processes alternating); the ~100k build did not measurably move.
   */
  private append(docs: readonly IndexedDoc[], last: number): void {
    // The ids ascend: the per-document lengths grow once, to what the last one needs.
    this.ensureCapacity(last + 1);
    const runs = this.readDocs(docs, termCount(docs));
    const { touched } = runs;
    // The terms this add brings (an empty list) get their lists, of exactly the size they
    // need, as views into one pair of arrays sized once for all of them (a first build: every
    // term), as a loaded index's lists are views into the saved arrays; a list copies itself
    // out on its first growth (grow). Two arrays of their own per term were ~45k array
    // buffers at ~100k tools, each with its own backing store for the collector to track.
    const fresh = this.freshPostings(touched);
    const freshIds = new Int32Array(fresh);
    const freshPacked = new Float64Array(fresh);
    this.placeLists(touched, freshIds, freshPacked);
    this.writeDocs(docs, runs, freshIds, freshPacked);
    this.resetCursors(touched);
  }

  /**
   * append()'s first pass: each document's field lengths, and each distinct term array of
   * the add (documents share one array per distinct text: AnalysisMemo; forks and mirrors
   * repeat descriptions and schemas) read once, into its distinct term ids and their counts,
   * in order of first appearance: a run in `sequence` of [n, id, count, id, count, ...]. A
   * field whose array was met before reads that run instead of looking each term up again
   * (the term Map lookup per token was a third of append(); 86% of the tokens of the
   * ~100k-tool corpus, 32% of the 10k one, are in an array met before), and both passes visit
   * a term once per field, not once per token (3.17M visits instead of 4.58M at 100k tools).
   * `sequence` grows as runs are written, from a sixteenth of its bound `total` (the runs of
   * the ~100k-tool corpus are ~1M numbers, of a bound of ~10M): a typed array of the whole
   * bound, even with its pages never touched, counts as external memory, and made V8 collect
   * the whole heap while the posting lists were then allocated (that pass took 0.46 s instead
   * of ~0.1 s). Counts the new postings of each term (`pending`), listing the terms touched.
   */
  private readDocs(docs: readonly IndexedDoc[], total: number): AppendRuns {
    let sequence = new Int32Array(Math.ceil((2 * total + docs.length * FIELDS) / 16));
    const starts = new Int32Array(docs.length * FIELDS);
    const interned = new Map<readonly string[], number>();
    const touched: number[] = [];
    let written = 0;
    for (let d = 0; d < docs.length; d++) {
      const doc = docs[d]!;
      const id = doc.id;
      this.idEnd = id + 1;
      for (let f = 0; f < FIELDS; f++) {
        const terms = doc.fields[FIELD_NAMES[f]!];
        const length = terms.length;
        this.lengths[id * FIELDS + f] = length;
        this.totalLengths[f]! += length;
        if (length === 0) continue;
        if (f === LEARNED) this.learnedDocs++;
        let from = length > 1 ? interned.get(terms) : undefined;
        if (from === undefined) {
          from = written;
          if (length > 1) interned.set(terms, from);
          const most = from + 1 + 2 * length;
          if (most > sequence.length) sequence = grownTo(sequence, Math.max(most, 2 * sequence.length));
          written = this.readRun(terms, sequence, from);
        }
        starts[d * FIELDS + f] = from;
        const end = from + 1 + 2 * sequence[from]!;
        for (let at = from + 1; at < end; at += 2) {
          const termId = sequence[at]!;
          // A term's first field in this document is a new posting.
          if (this.lastDoc[termId] !== id) {
            this.lastDoc[termId] = id;
            if (this.pending[termId]!++ === 0) touched.push(termId);
          }
        }
      }
      this.count++;
    }
    return { sequence, starts, touched };
  }

  /** The postings of the touched terms that have none yet (new terms): the fresh arrays' size. */
  private freshPostings(touched: readonly number[]): number {
    let fresh = 0;
    for (let i = 0; i < touched.length; i++) {
      const termId = touched[i]!;
      if (this.byTerm[termId]!.ids.length === 0) fresh += this.pending[termId]!;
    }
    return fresh;
  }

  /**
   * Room for each touched term's pending postings: a new term's list becomes its view into
   * the fresh arrays (written through them at its cursor), a full one grows; the views a
   * search made of an appended term are marked for the next one to grow from.
   */
  private placeLists(touched: readonly number[], freshIds: Int32Array, freshPacked: Float64Array): void {
    let freshAt = 0;
    for (let i = 0; i < touched.length; i++) {
      const termId = touched[i]!;
      const postings = this.byTerm[termId]!;
      const needed = postings.length + this.pending[termId]!;
      this.pending[termId] = 0;
      const capacity = postings.ids.length;
      if (capacity === 0) {
        postings.ids = freshIds.subarray(freshAt, freshAt + needed);
        postings.packed = freshPacked.subarray(freshAt, freshAt + needed);
        // Written below through the shared arrays: one posting per document counted above.
        postings.length = needed;
        this.cursor[termId] = freshAt;
        this.lastDoc[termId] = -1;
        freshAt += needed;
      } else if (needed > capacity) grow(postings, Math.max(needed, capacity * 2));
      this.stampDf(termId);
      // No views exist while an index is first built: skip the hash lookup per term.
      if (this.lists.size > 0) {
        // The term's postings only grow at the end (ids ascend above every id), so what its
        // view kept per posting still holds for them: the next view extends it (cachedList).
        // The tfs are of the averages before this add: dropped now.
        const list = this.lists.get(this.termsById[termId]!);
        if (list !== undefined && !list.appended) {
          list.appended = true;
          list.tfs.fill(undefined);
        }
      }
    }
  }

  /**
   * append()'s second pass: each document's postings. A new term's postings are written
   * straight into the fresh arrays at its cursor, its document's earlier field told by
   * lastDoc: no read of the term's record and views per posting (most postings of a first
   * build).
   */
  private writeDocs(
    docs: readonly IndexedDoc[],
    { sequence, starts }: AppendRuns,
    freshIds: Int32Array,
    freshPacked: Float64Array,
  ): void {
    const { cursor, lastDoc } = this;
    for (let d = 0; d < docs.length; d++) {
      const id = docs[d]!.id;
      for (let f = 0; f < FIELDS; f++) {
        if (this.lengths[id * FIELDS + f] === 0) continue;
        const base = FIELD_BASE[f]!;
        const from = starts[d * FIELDS + f]!;
        const end = from + 1 + 2 * sequence[from]!;
        for (let at = from + 1; at < end; at += 2) {
          const termId = sequence[at]!;
          // The field's count of this term, saturated; the document's other fields have
          // their own bits, and this field is added once, so its bits are still zero.
          const counts = Math.min(sequence[at + 1]!, MAX_FIELD_COUNT) * base;
          const write = cursor[termId]!;
          if (write >= 0) {
            if (lastDoc[termId] === id) freshPacked[write - 1]! += counts;
            else {
              lastDoc[termId] = id;
              freshIds[write] = id;
              freshPacked[write] = counts;
              cursor[termId] = write + 1;
            }
            continue;
          }
          const postings = this.byTerm[termId]!;
          const last = postings.length - 1;
          if (last >= 0 && postings.ids[last] === id) {
            // The doc's latest posting: its own, since a doc's terms are added together.
            postings.packed[last]! += counts;
          } else {
            postings.ids[last + 1] = id;
            postings.packed[last + 1] = counts;
            postings.length = last + 2;
          }
        }
      }
    }
  }

  private resetCursors(touched: readonly number[]): void {
    for (let i = 0; i < touched.length; i++) this.cursor[touched[i]!] = -1;
  }

  /**
   * append()'s run of one term array at `sequence[from]`: its count of distinct terms, then
   * each distinct term's id and count, in order of first appearance (new terms get their ids
   * in that order, as one token at a time did). Returns where the next run goes.
   */
  private readRun(terms: readonly string[], sequence: Int32Array, from: number): number {
    let distinct = 0;
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i]!;
      const termId = this.termIds.get(term) ?? this.newTerm(term);
      const at = this.place[termId]!;
      if (at === 0) {
        this.place[termId] = ++distinct;
        sequence[from - 1 + 2 * distinct] = termId;
        sequence[from + 2 * distinct] = 1;
      } else sequence[from + 2 * at]!++;
    }
    sequence[from] = distinct;
    for (let k = 1; k <= distinct; k++) this.place[sequence[from - 1 + 2 * k]!] = 0;
    return from + 1 + 2 * distinct;
  }

  /** A new term with an empty posting list; returns its id. */
  private newTerm(term: string): number {
    const termId = this.byTerm.length;
    this.termIds.set(term, termId);
    this.termsById.push(term);
    this.byTerm.push({ ids: EMPTY_IDS, packed: EMPTY_PACKED, length: 0 });
    if (termId >= this.dfStamps.length) {
      this.dfStamps = grownTo(this.dfStamps, Math.max(termId + 1, this.dfStamps.length * 2));
    }
    this.fitScratch();
    this.noteTerm(term, true);
    return termId;
  }

  /** The bulk add's per-term scratch at least as long as dfStamps (every term id given out has a slot). */
  private fitScratch(): void {
    const size = this.dfStamps.length;
    if (this.lastDoc.length >= size) return;
    this.lastDoc = grownTo(this.lastDoc, size, -1);
    this.pending = grownTo(this.pending, size);
    this.place = grownTo(this.place, size);
    this.cursor = grownTo(this.cursor, size, -1);
  }

  /** add() of one document, one posting at a time (ids below the largest: re-indexed in place). */
  private insertDoc(doc: IndexedDoc): void {
    const id = doc.id;
    this.ensureCapacity(id + 1);
    if (id < this.idEnd) this.reusedIdVersion = this.version;
    else this.idEnd = id + 1;
    for (let f = 0; f < FIELDS; f++) {
      const terms = doc.fields[FIELD_NAMES[f]!];
      const base = FIELD_BASE[f]!;
      this.lengths[id * FIELDS + f] = terms.length;
      this.totalLengths[f]! += terms.length;
      if (f === LEARNED && terms.length > 0) this.learnedDocs++;
      for (const term of terms) {
        const termId = this.termIds.get(term) ?? this.newTerm(term);
        const postings = this.byTerm[termId]!;
        const at = postings.length - 1;
        if (at >= 0 && postings.ids[at] === id) {
          // The doc's latest posting: its own, since a doc's terms are added together.
          if (fieldCount(postings.packed[at]!, f) < MAX_FIELD_COUNT) postings.packed[at]! += base;
          continue;
        }
        if (this.lists.size > 0) this.lists.delete(term);
        this.stampDf(termId);
        if (at < 0 || postings.ids[at]! < id) append(postings, id, base);
        else insertSorted(postings, id, base, f); // an id below the last one: a re-added id
      }
    }
    this.count++;
  }

  remove(docs: readonly IndexedDoc[]): void {
    this.nextVersion();
    for (const doc of docs) {
      for (let f = 0; f < FIELDS; f++) {
        this.totalLengths[f]! -= this.lengths[doc.id * FIELDS + f]!;
        if (f === LEARNED && this.lengths[doc.id * FIELDS + f]! > 0) this.learnedDocs--;
        this.lengths[doc.id * FIELDS + f] = 0;
        for (const term of doc.fields[FIELD_NAMES[f]!]) {
          const termId = this.termIds.get(term);
          const postings = termId === undefined ? undefined : this.byTerm[termId];
          if (termId === undefined || !postings) continue;
          const at = search(postings, doc.id);
          if (at < 0) continue; // already removed with an earlier field of this doc
          this.lists.delete(term);
          this.stampDf(termId);
          postings.ids.copyWithin(at, at + 1, postings.length);
          postings.packed.copyWithin(at, at + 1, postings.length);
          postings.length--;
          if (postings.length === 0) {
            this.byTerm[termId] = undefined;
            this.termsById[termId] = undefined;
            this.termIds.delete(term);
            this.noteTerm(term, false);
          }
        }
      }
      this.count--;
    }
  }

  private nextVersion(): void {
    this.version++;
    this.changedNow = [];
    // A view keeps the one it grew from for the version it was made at (PostingList.grownFrom):
    // its readers extend what they kept in the first searches after the add, and none holds
    // the older arrays past the next change.
    for (const list of this.growing) list.grownFrom = undefined;
    this.growing.length = 0;
  }

  /** The term's document frequency changed in this version's change. */
  private stampDf(termId: number): void {
    if (this.dfStamps[termId] === this.version) return;
    this.dfStamps[termId] = this.version;
    this.changedNowSorted = false;
    if (this.changedNow && this.changedNow.push(termId) > MAX_CHANGED_NOW) this.changedNow = undefined;
  }

  /**
   * Term ids whose document frequency changed after corpus version `since` (added,
   * removed or vanished terms), in ascending order, with their postings as stored
   * (undefined once vanished), for derived structures that update incrementally. The
   * stored arrays, not views of their first `length` entries: two subarrays per term were
   * a sixth of the TF-IDF norm update after one add at 10k tools (~20 terms, two passes).
   */
  termsChangedSince(
    since: number,
    visit: (termId: number, postings: StoredPostings | undefined) => void,
  ): void {
    if (since === this.version - 1 && this.changedNow) {
      // Sorted once per change: the norms of each query shape ask twice after every add().
      if (!this.changedNowSorted) this.changedNow.sort((a, b) => a - b);
      this.changedNowSorted = true;
      for (const termId of this.changedNow) visit(termId, this.byTerm[termId]);
      return;
    }
    const stamps = this.dfStamps;
    const terms = this.byTerm.length;
    for (let termId = 0; termId < terms; termId++)
      if (stamps[termId]! > since) visit(termId, this.byTerm[termId]);
  }

  /** Whether a term id names a term still in the corpus (ids of vanished terms are never reused). */
  hasTermId(termId: number): boolean {
    return this.byTerm[termId] !== undefined;
  }

  /** One past the largest term id ever given out. */
  get termIdCapacity(): number {
    return this.byTerm.length;
  }

  private noteTerm(term: string, created: boolean): void {
    const journal = this.journal;
    if (!journal) return;
    const [into, from] = created ? [journal.added, journal.removed] : [journal.removed, journal.added];
    if (!from.delete(term)) into.add(term); // appearing then vanishing again is no change
    if (journal.added.size + journal.removed.size > Math.max(1000, this.termIds.size / 4))
      this.journal = undefined;
  }

  /**
   * Term changes since the previous call (for the one Vocabulary of an engine), or
   * undefined when the caller must rebuild from `terms()`. Starts a new journal.
   */
  takeJournal(): TermJournal | undefined {
    const journal = this.journal;
    this.journal = { added: new Set(), removed: new Set() };
    return journal;
  }

  private ensureCapacity(ids: number): void {
    if (ids <= this.capacity) return;
    while (this.capacity < ids) this.capacity *= 2;
    const grown = new Int32Array(this.capacity * FIELDS);
    grown.set(this.lengths);
    this.lengths = grown;
  }

  /** The term's postings as typed arrays, ids ascending (undefined for an unknown term); do not modify. */
  postingList(term: string): PostingList | undefined {
    return this.cachedList(term);
  }

  private cachedList(term: string): CachedList | undefined {
    const known = this.lists.get(term);
    if (known !== undefined && !known.appended) return known;
    const termId = this.termIds.get(term);
    const postings = termId === undefined ? undefined : this.byTerm[termId];
    if (!postings) return undefined;
    // A view appended to since it was made: the new one grows from it, or, when it was never
    // read, from the view it grew from (what that kept still holds: only appends since).
    let grownFrom = known;
    if (known !== undefined && known.termsBackoffs === -1) grownFrom = known.grownFrom;
    if (known !== undefined) known.grownFrom = undefined;
    const list: CachedList = {
      ids: postings.length === 0 ? EMPTY_IDS : postings.ids.subarray(0, postings.length),
      packed: postings.packed.subarray(0, postings.length),
      // Every property from the start, each shape's too: a list given one later, or shapes
      // filled in another order, had another hidden class, and fieldWeightedTfs, run only
      // after a change, was thrown out of optimised code by it ("wrong map", --trace-deopt).
      tfs: [undefined, undefined, undefined],
      tfsVersion: [-1, -1, -1],
      termCodes: undefined,
      termLengths: undefined,
      termsBackoffs: -1,
      grownFrom,
      appended: false,
    };
    if (grownFrom !== undefined) this.growing.push(list);
    this.lists.set(term, list);
    return list;
  }

  /** Documents containing the term in any field. */
  df(term: string): number {
    const termId = this.termIds.get(term);
    return termId === undefined ? 0 : (this.byTerm[termId]?.length ?? 0);
  }

  /** BM25 idf, always positive. */
  idf(term: string): number {
    return this.idfOf(this.df(term));
  }

  private idfOf(df: number): number {
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
    if (terms.length > SCAN_DISTINCT_MAX) {
      const distinct = new Set(terms);
      let known = 0;
      for (const term of distinct) if (this.df(term) >= minDf || alsoSeen?.(term)) known++;
      return known / distinct.size;
    }
    // A query's few words (most calls, once per strategy per search): each distinct term at
    // its first place, found by a scan. A Set iterated with for-of stays unoptimised for the
    // first thousand or so searches, where it cost 34 us a search (compare.ts's window).
    let distinct = 0;
    let known = 0;
    next: for (let t = 0; t < terms.length; t++) {
      const term = terms[t]!;
      for (let u = 0; u < t; u++) if (terms[u] === term) continue next;
      distinct++;
      if (this.df(term) >= minDf || alsoSeen?.(term)) known++;
    }
    return distinct === 0 ? 1 : known / distinct;
  }

  averageLength(field: FieldName): number {
    return this.averageOf(FIELD_NAMES.indexOf(field));
  }

  /** averageLength of field number `f`. */
  private averageOf(f: number): number {
    return this.count === 0 ? 0 : this.totalLengths[f]! / this.count;
  }

  /**
   * BM25F: field-weighted, per-field length-normalised term frequency, saturated once
   * per term (so a term repeated across fields is not counted as independent evidence).
   * The field weights are those of the query's shape (DEFAULTS.bm25.fieldWeights).
   */
  bm25f(
    terms: readonly WeightedTerm[],
    accept?: (id: number) => boolean,
    shape: QueryShape = 'keywords',
  ): Scores {
    const scores = new Scores(this.capacity);
    this.accumulate(scores, terms, 0, terms.length, accept, shape);
    return scores;
  }

  /**
   * The best `limit` documents by bm25f(terms), best first, equal scores by ascending id.
   * The leading terms of weight 1 (a query's own words) are summed and ranked once per
   * search: keyword, synonyms, prefix and fuzzy all start from them. A strategy's
   * expansions then re-score only the documents they reach (each from its own-term sum,
   * adding in the same order, so scores are bit-identical to bm25f's); every other
   * document keeps its own-term score, so only the shared top `limit` of those can make the
   * top. Copying the whole sum and selecting among every document it touched, once per
   * strategy, cost as much as summing it.
   *
   * `matched` (what an expansion matched, for explain) is given to every hit as it is made:
   * set afterwards by the retriever, in a loop that stays unoptimised for the first thousand
   * or so searches, it added a property (and its backing store) to each of a hundred hits.
   */
  topBm25f(
    terms: readonly WeightedTerm[],
    limit: number,
    accept?: (id: number) => boolean,
    shape: QueryShape = 'keywords',
    matched?: string[],
  ): RetrievalHit[] {
    let own = 0;
    while (own < terms.length && terms[own]!.weight === 1) own++;
    if (own === 0 || limit <= 0) {
      const hits = this.bm25f(terms, accept, shape).top(limit);
      return matched ? hits.map(({ id, score }) => hitOf(id, score, matched)) : hits;
    }
    const shared = this.ownTermScores(terms, own, accept, shape);
    if (shared.depth !== limit) {
      shared.ranked = shared.scores.best(limit);
      shared.depth = limit;
    }
    const { ranked } = shared;
    if (own === terms.length) {
      const hits: RetrievalHit[] = new Array(ranked.length);
      for (let i = 0; i < ranked.length; i++) {
        const { id, score } = ranked[i]!;
        hits[i] = hitOf(id, score, matched);
      }
      return hits;
    }
    const scores = new Scores(this.capacity);
    this.accumulate(scores, terms, own, terms.length, accept, shape, shared.scores);
    // Candidates: the re-scored documents, and those of the shared top `limit` they did not
    // reach. Any other document keeps its own-term score, and each of that top `limit` ranks
    // before it (scoring at least its own-term score), so it cannot make the top. Nor can a
    // re-scored document below the lowest score of that top `limit` (`floor`): those
    // `limit` documents all score at least that, so most documents an expansion reaches are
    // dropped before the selection instead of selected among (10k tools, the latency
    // queries: lexical search CPU -2.5%, per-query medians of 100 rounds, same process,
    // interleaved with the sources before, load 4.5).
    const floor = ranked.length === limit ? ranked[limit - 1]!.score : Number.NEGATIVE_INFINITY;
    const { ids, scores: values } = candidates(scores.size + ranked.length);
    let n = scores.copyTo(ids, values, 0, floor);
    for (let i = 0; i < ranked.length; i++) {
      const { id, score } = ranked[i]!;
      if (scores.get(id) !== 0) continue;
      ids[n] = id;
      values[n++] = score;
    }
    scores.release();
    const best = bestOf(ids, values, n, limit);
    const hits: RetrievalHit[] = new Array(best.length);
    for (let i = 0; i < best.length; i++) {
      const at = best[i]!;
      hits[i] = hitOf(ids[at]!, values[at]!, matched);
    }
    return hits;
  }

  private ownTermScores(
    terms: readonly WeightedTerm[],
    own: number,
    accept: ((id: number) => boolean) | undefined,
    shape: QueryShape,
  ): SharedSum {
    // Keyed by the terms the corpus holds: the others add nothing (fuzzy leaves them out).
    let key = '';
    for (let i = 0; i < own; i++) if (this.termIds.has(terms[i]!.term)) key += `${terms[i]!.term}\u0000`;
    const shared = this.shared;
    if (
      shared &&
      shared.key === key &&
      shared.shape === shape &&
      shared.accept === accept &&
      shared.version === this.version
    ) {
      return shared;
    }
    shared?.scores.release();
    const scores = new Scores(this.capacity);
    this.accumulate(scores, terms, 0, own, accept, shape);
    this.shared = { key, shape, accept, version: this.version, scores, ranked: [], depth: 0 };
    return this.shared;
  }

  private accumulate(
    scores: Scores,
    terms: readonly WeightedTerm[],
    from: number,
    to: number,
    accept: ((id: number) => boolean) | undefined,
    shape: QueryShape,
    /** A document first reached here starts from its score there. */
    base?: Scores,
  ): void {
    const { k1 } = DEFAULTS.bm25;
    for (let t = from; t < to; t++) {
      const { term, weight } = terms[t]!;
      const list = this.cachedList(term);
      if (!list) continue;
      // The list holds the term's postings: its length is df (no second lookup of the term).
      const idf = weight * this.idfOf(list.ids.length) * (k1 + 1);
      const { ids } = list;
      const tfs = this.fieldWeightedTfs(list, shape);
      if (!accept && !base) {
        // The common case (no toolset filter, the shared own-term sum) in a loop of its own.
        for (let i = 0; i < ids.length; i++) {
          const weighted = tfs[i]!;
          scores.add(ids[i]!, (idf * weighted) / (k1 + weighted));
        }
        continue;
      }
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (accept && !accept(id)) continue;
        const weighted = tfs[i]!;
        if (base) scores.addOnto(base, id, (idf * weighted) / (k1 + weighted));
        else scores.add(id, (idf * weighted) / (k1 + weighted));
      }
    }
  }

  /**
   * Field-weighted, length-normalised tf of each posting of a list. It depends on the
   * average field lengths, so it is kept until the corpus next changes: a term queried
   * again (the same word in many searches) skips decoding its postings. The length norm
   * is computed here, per posting of the queried terms only, rather than for every
   * document after every change: that full pass made the first search after an add()
   * cost as much as ten searches.
   *
   * Backoff: a tool without phrasings or learned requests counts its description again
   * (descriptionBackoffs).
   */
  private fieldWeightedTfs(list: CachedList, shape: QueryShape): Float64Array {
    const s = shapeNumber(shape);
    const cached = list.tfs[s];
    if (cached && list.tfsVersion[s] === this.version) return cached;
    const weights = this.entryWeights;
    weights.set(FIELD_WEIGHTS[s]!);
    const backoffs = this.descriptionBackoffs(weights);
    const averages = this.entryAverages;
    const fieldAverages = this.averagesNow();
    averages.set(fieldAverages);
    averages.fill(fieldAverages[DESCRIPTION]!, FIELDS);
    // What is added comes from the list's own entries, read in order, not from the documents'
    // rows (a row per posting, far apart): no search reads a row but here, so after an add()
    // they were out of the cache, a miss per posting. First search after one add at 10k
    // tools, this recompute took 0.23 ms for 2,002 postings in 14 lists, and 0.09 ms at once
    // again on the same data (median of 80 adds, load 4.7; scratch fwt2.mts).
    if (list.termsBackoffs !== backoffs) this.listTerms(list, backoffs);
    const codes = list.termCodes!;
    const lengths = list.termLengths!;
    const tfs = cached ?? new Float64Array(list.packed.length); // ids never change; reuse
    // Per entry, in the order the packed counts name them (fields in FIELD_NAMES order, then
    // the backoffs): weight x count / the field's length norm, 1 - b + b * length / average
    // (BM25), summed per posting (its last entry's sum is its tf). The same operations
    // in the same order as decoding the packed counts here did, so the same doubles, without
    // the decoding's branches on which fields hold a count: the 30 scale queries' 20.7k
    // postings at 10k tools, 25 -> 14 ns a posting warm, 31 -> 17.5 with the cache flushed
    // first (tfs equal bit for bit, each shape). 6 bytes an entry (about two a posting) where
    // the lengths alone took 4; the ~100k lexical point's peak RSS did not move.
    let weighted = 0;
    let i = 0;
    for (let e = 0; e < codes.length; e++) {
      const code = codes[e]!;
      const f = (code >>> FIELD_BITS) & ENTRY_FIELD_MASK;
      weighted +=
        (weights[f]! * (code & MAX_FIELD_COUNT)) /
        (ENTRY_ONE_MINUS_B[f]! + (ENTRY_LENGTH_B[f]! * lengths[e]!) / averages[f]!);
      // Without a branch on the posting's end (1 or 0: the entries per posting vary, so it
      // was mispredicted): the running tf written each entry, the next posting's started from
      // weighted x 0 = +0, the 0 it started from (weighted is finite, not negative). The 20.7k
      // postings above: 10.3 -> 9.0 ns a posting warm, 14.2 -> 12.5 cold (tfs equal bit for bit).
      const last = code >>> ENTRY_LAST_BIT;
      tfs[i] = weighted;
      i += last;
      weighted *= 1 - last;
    }
    list.tfs[s] = tfs;
    list.tfsVersion[s] = this.version;
    return tfs;
  }

  /**
   * The entries fieldWeightedTfs adds for a list, in its order: per posting, one for each
   * field it counts in (FIELD_NAMES order: the count and the field's length), then, when it
   * counts in the description, one for each backoff on (`backoffs`) whose field its
   * document leaves empty (the description's count and length).
   */
  private listTerms(list: CachedList, backoffs: number): void {
    const { ids, packed } = list;
    const lengths = this.lengths;
    // A list grown from another by appended postings (cachedList) keeps that one's entries for
    // its first postings, when made for the same backoffs, and adds those of the rest: the
    // lists of the common terms an added tool holds were made again whole in the first search
    // after it. compare.ts's protocol at 10k tools (20 runs, load 4-6): this making per first
    // search, mean 0.043 -> 0.007 ms, 90th percentile 0.140 -> 0.017 ms (a normal search: ~0.23).
    const from = list.grownFrom;
    const start = from !== undefined && from.termsBackoffs === backoffs ? from.ids.length : 0;
    const kept = start === 0 ? 0 : from!.termCodes!.length;
    let size = kept;
    for (let i = start; i < packed.length; i++) {
      const value = packed[i]!;
      const low = value & LOW_MASK;
      size += fieldsIn(low) + fieldsIn((value - low) * HIGH_SCALE);
      if (((low >>> (DESCRIPTION * FIELD_BITS)) & MAX_FIELD_COUNT) === 0) continue;
      for (let k = 0; k < BACKOFF_FIELDS.length; k++)
        if (this.takesBackoff(ids[i]! * FIELDS, k, backoffs)) size++;
    }
    const codes = new Uint16Array(size);
    const out = new Int32Array(size);
    if (kept > 0) {
      codes.set(from!.termCodes!);
      out.set(from!.termLengths!);
    }
    let at = kept;
    for (let i = start; i < packed.length; i++) {
      const row = ids[i]! * FIELDS;
      const value = packed[i]!;
      const low = value & LOW_MASK;
      for (let rest = low; rest !== 0; ) {
        const f = FIELD_OF_BIT[31 - Math.clz32(rest & -rest)]!;
        const shift = f * FIELD_BITS;
        codes[at] = (f << FIELD_BITS) | ((rest >>> shift) & MAX_FIELD_COUNT);
        out[at++] = lengths[row + f]!;
        rest &= ~(MAX_FIELD_COUNT << shift);
      }
      for (let rest = (value - low) * HIGH_SCALE; rest !== 0; ) {
        const high = FIELD_OF_BIT[31 - Math.clz32(rest & -rest)]!;
        const shift = high * FIELD_BITS;
        codes[at] = ((LOW_FIELDS + high) << FIELD_BITS) | ((rest >>> shift) & MAX_FIELD_COUNT);
        out[at++] = lengths[row + LOW_FIELDS + high]!;
        rest &= ~(MAX_FIELD_COUNT << shift);
      }
      const description = (low >>> (DESCRIPTION * FIELD_BITS)) & MAX_FIELD_COUNT;
      if (description !== 0) {
        for (let k = 0; k < BACKOFF_FIELDS.length; k++) {
          if (!this.takesBackoff(row, k, backoffs)) continue;
          codes[at] = ((FIELDS + k) << FIELD_BITS) | description;
          out[at++] = lengths[row + DESCRIPTION]!;
        }
      }
      codes[at - 1]! |= ENTRY_LAST; // every posting counts in some field
    }
    list.termCodes = codes;
    list.termLengths = out;
    list.termsBackoffs = backoffs;
  }

  /**
   * Whether the document at `row` (its id x FIELDS) counts its description again by backoff k:
   * the backoff is on (bit k of `backoffs`) and the document leaves BACKOFF_FIELDS[k] empty.
   * listTerms sizes its entries and writes them by this one rule.
   */
  private takesBackoff(row: number, k: number, backoffs: number): boolean {
    return (backoffs & (1 << k)) !== 0 && this.lengths[row + BACKOFF_FIELDS[k]!] === 0;
  }

  /** averageLength of each field, 1 for an empty one, computed once per corpus version. */
  private averagesNow(): Float64Array {
    if (this.averagesVersion !== this.version) {
      // By field number: a name lookup per field, once per change, ran in unoptimised code.
      for (let f = 0; f < FIELDS; f++) this.averages[f] = this.averageOf(f) || 1;
      this.averagesVersion = this.version;
    }
    return this.averages;
  }

  /**
   * The description backoff of fieldWeightedTfs, one rule: a tool whose field BACKOFF_FIELDS[k]
   * is empty counts its description again at the weight written to weights[FIELDS + k] (0:
   * off), in this order (phrasings, then learned); returns the backoffs on, bit k for k. The description is the best stand-in for how
   * people ask for a tool; without the backoff, a registry only partly covered by
   * phrasings or learned requests tilts every vague request towards the covered tools.
   *
   * The two weights scale differently, as measured; one scaling for both moves rankings.
   * Phrasings come from the tool's author or a pack, all at once: the full phrasings
   * weight, once any tool has phrasings (lexical, pack on: fixtures with a
   * leave-one-server-out pack, new users R@5 .152 -> .186; MCPToolBench++, 2 of 49 tools
   * without phrasings, MRR .925 -> .962; a corpus without phrasings scores as before).
   * Learned requests accrue with use: the learned weight times the share of tools that
   * have them, so one learned tool changes nothing measurable and, once most tools have
   * been used, the rest are not crowded out of requests that chain several needs (learn
   * 80% of queries by a seeded hash, test on the rest, lexical: Seal-Tools R@5 .859 -> .872,
   * .885 without learning; BFCL MRR .830 -> .835; with a 2% history BFCL MRR .719 -> .721,
   * where the full learned weight cost .719 -> .708).
   */
  private descriptionBackoffs(weights: Float64Array): number {
    let on = 0;
    for (let k = 0; k < BACKOFF_FIELDS.length; k++) {
      const field = BACKOFF_FIELDS[k]!;
      let weight = 0;
      if (field === PHRASINGS) weight = this.totalLengths[PHRASINGS]! > 0 ? weights[PHRASINGS]! : 0;
      else if (this.count > 0) weight = (weights[LEARNED]! * this.learnedDocs) / this.count;
      weights[FIELDS + k] = weight;
      if (weight > 0) on |= 1 << k;
    }
    return on;
  }

  /**
   * The postings as flat arrays for a saved index (saved-index.ts): live terms in term-id
   * order, each term's postings between starts[t] and starts[t + 1], ids renumbered by
   * `dense` (old id -> position in the file; monotone, so ids stay ascending).
   */
  exportPostings(dense: Int32Array): CorpusPostings {
    const terms: string[] = [];
    const lists: Postings[] = [];
    let total = 0;
    for (const [term, termId] of this.termIds) {
      const postings = this.byTerm[termId]!;
      terms.push(term);
      lists.push(postings);
      total += postings.length;
    }
    // termIds iterates in insertion order, which is term-id order (ids are never reused).
    const starts = new Int32Array(terms.length + 1);
    const ids = new Int32Array(total);
    const packed = new Float64Array(total);
    // With no id freed (every engine that only added), `dense` is the identity and the ids
    // are copied as they are. Either way a plain loop: the forEach callback writing through
    // its closure's `at` was 1 s of a 5 s toBytes() at ~100k tools (load 5).
    let identity = true;
    for (let id = 0; id < dense.length && identity; id++) identity = dense[id] === id;
    let at = 0;
    for (let t = 0; t < lists.length; t++) {
      const { ids: from, packed: counts, length } = lists[t]!;
      if (identity) ids.set(from.subarray(0, length), at);
      else for (let i = 0; i < length; i++) ids[at + i] = dense[from[i]!]!;
      packed.set(counts.subarray(0, length), at);
      at += length;
      starts[t + 1] = at;
    }
    return { terms, starts, ids, packed };
  }

  /**
   * Adopt saved postings instead of adding documents one term at a time: each term's
   * lists become views into the given arrays (no copy; they are copied on their first
   * growth). Only into an empty corpus; `lengths` holds FIELDS lengths per document
   * 0..docs-1. Checks what a wrong array would otherwise turn into a crash or a silent
   * misranking: starts ascending within bounds, ids ascending and below `docs`, packed
   * counts whole and in range. Throws INVALID_INDEX naming the array.
   */
  importPostings(saved: CorpusPostings, lengths: Float64Array, docs: number): void {
    if (this.count !== 0 || this.byTerm.length !== 0)
      throw new Error('importPostings: the corpus is not empty');
    const { terms, starts, ids, packed } = saved;
    if (starts.length !== terms.length + 1 || starts[0] !== 0 || starts[terms.length] !== ids.length)
      invalidIndex(
        `postings: ${terms.length} terms but ${starts.length} starts ending at ${starts[starts.length - 1]} of ${ids.length} postings`,
      );
    if (packed.length !== ids.length) invalidIndex(`postings: ${ids.length} ids but ${packed.length} counts`);
    if (lengths.length !== docs * FIELDS)
      invalidIndex(`lengths: ${lengths.length} values for ${docs} documents`);
    for (let t = 0; t < terms.length; t++) {
      const from = starts[t]!;
      const to = starts[t + 1]!;
      if (to <= from) invalidIndex(`postings of term ${t} ("${terms[t]}"): empty or out of order`);
      let last = -1;
      for (let i = from; i < to; i++) {
        const id = ids[i]!;
        const value = packed[i]!;
        if (id <= last || id >= docs)
          invalidIndex(`postings of term ${t} ("${terms[t]}"): id ${id} out of order or not below ${docs}`);
        if (!(value >= 1 && value < MAX_PACKED) || !Number.isInteger(value))
          invalidIndex(`postings of term ${t} ("${terms[t]}"): count ${value} is not a packed field count`);
        last = id;
      }
    }
    this.version++;
    this.ensureCapacity(docs);
    this.lengths.set(lengths);
    for (let id = 0; id < docs; id++) {
      for (let f = 0; f < FIELDS; f++) {
        const length = lengths[id * FIELDS + f]!;
        this.totalLengths[f]! += length;
        if (f === LEARNED && length > 0) this.learnedDocs++;
      }
    }
    this.dfStamps = new Int32Array(Math.max(64, terms.length)).fill(this.version);
    // The scratch must cover the loaded term ids too: grown only as new terms came, an add()
    // of known terms alone after a load read past its end, and its postings were lost.
    this.fitScratch();
    this.changedNow = undefined; // every term: scan
    terms.forEach((term, t) => {
      if (this.termIds.has(term)) invalidIndex(`terms: "${term}" appears twice`);
      const from = starts[t]!;
      const to = starts[t + 1]!;
      this.termIds.set(term, t);
      this.byTerm.push({ ids: ids.subarray(from, to), packed: packed.subarray(from, to), length: to - from });
    });
    this.count = docs;
    this.idEnd = docs;
    this.journal = undefined; // the vocabulary builds itself from terms() on first use
  }
}

/** Fields with a count in one half of a packed count (fields of FIELD_BITS bits each). */
function fieldsIn(half: number): number {
  let fields = 0;
  for (let rest = half; rest !== 0; fields++) {
    const f = FIELD_OF_BIT[31 - Math.clz32(rest & -rest)]!;
    rest &= ~(MAX_FIELD_COUNT << (f * FIELD_BITS));
  }
  return fields;
}

/** A hit in its final shape: with the expansion's `matched` list when there is one (topBm25f). */
function hitOf(id: number, score: number, matched: string[] | undefined): RetrievalHit {
  return matched ? { id, score, matched } : { id, score };
}

/** The terms of the documents' fields, repeats included: the bound of append()'s runs. */
function termCount(docs: readonly IndexedDoc[]): number {
  let total = 0;
  for (let d = 0; d < docs.length; d++) {
    const { fields } = docs[d]!;
    for (let f = 0; f < FIELDS; f++) total += fields[FIELD_NAMES[f]!].length;
  }
  return total;
}

function append(postings: Postings, id: number, packed: number): void {
  if (postings.length === postings.ids.length) grow(postings, Math.max(4, postings.length * 2));
  postings.ids[postings.length] = id;
  postings.packed[postings.length] = packed;
  postings.length++;
}

function grow(postings: Postings, size: number): void {
  const ids = new Int32Array(size);
  ids.set(postings.ids.subarray(0, postings.length));
  const packed = new Float64Array(size);
  packed.set(postings.packed.subarray(0, postings.length));
  postings.ids = ids;
  postings.packed = packed;
}

/** Index of `id` in the ascending ids, or -(insertion point) - 1. */
function search(postings: Postings, id: number): number {
  let lo = 0;
  let hi = postings.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = postings.ids[mid]!;
    if (at === id) return mid;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}

/** Add one count of field `f` for `id`, keeping ids ascending (the slow path: ids re-added out of order). */
function insertSorted(postings: Postings, id: number, base: number, f: number): void {
  const at = search(postings, id);
  if (at >= 0) {
    if (fieldCount(postings.packed[at]!, f) < MAX_FIELD_COUNT) postings.packed[at]! += base;
    return;
  }
  const into = -at - 1;
  if (postings.length === postings.ids.length) grow(postings, Math.max(4, postings.length * 2));
  postings.ids.copyWithin(into + 1, into, postings.length);
  postings.packed.copyWithin(into + 1, into, postings.length);
  postings.ids[into] = id;
  postings.packed[into] = base;
  postings.length++;
}

/** Few distinct packed values occur (counts are small), so the sum is memoised, per shape. */
const weightedTfMemo: readonly Map<number, number>[] = SHAPES.map(() => new Map<number, number>());

/** Sum of field weight x count of a packed posting (the TF-IDF term frequency), for a query shape. */
export function weightedTf(packed: number, shape: QueryShape = 'keywords'): number {
  const s = shapeNumber(shape);
  const memo = weightedTfMemo[s]!;
  let tf = memo.get(packed);
  if (tf === undefined) {
    tf = 0;
    const weights = FIELD_WEIGHTS[s]!;
    let rest = packed;
    for (let f = 0; rest > 0; f++) {
      const count = rest % FIELD_RADIX;
      rest = (rest - count) / FIELD_RADIX;
      tf += weights[f]! * count;
    }
    if (memo.size < 100_000) memo.set(packed, tf);
  }
  return tf;
}

/** Merge duplicate query terms, keeping the highest weight (a query repeating a word is not two matches). */
export function uniqueTerms(terms: readonly WeightedTerm[]): WeightedTerm[] {
  if (terms.length > SCAN_DISTINCT_MAX) {
    const best = new Map<string, number>();
    for (const { term, weight } of terms) best.set(term, Math.max(best.get(term) ?? 0, weight));
    return [...best].map(([term, weight]) => ({ term, weight }));
  }
  // A query's own words (most lists): a scan beats a Map made and dropped per strategy per search.
  // Indexed loops, not for-of: this runs once per strategy per search, unoptimised for the
  // first thousand or so searches, where an array iterator costs a call per element.
  const unique: WeightedTerm[] = [];
  next: for (let t = 0; t < terms.length; t++) {
    const { term, weight } = terms[t]!;
    for (let u = 0; u < unique.length; u++) {
      const kept = unique[u]!;
      if (kept.term === term) {
        kept.weight = Math.max(kept.weight, weight);
        continue next;
      }
    }
    unique.push({ term, weight: Math.max(0, weight) });
  }
  return unique;
}

/**
 * A query's own terms at weight 1, in order, followed by `more` (a strategy's expansions)
 * at `weight`: the list topBm25f takes (its leading weight-1 terms are the shared sum). A
 * loop, not map() and spreads: it runs once per strategy per search.
 */
export function weightedTerms(
  terms: readonly string[],
  more: readonly string[] = [],
  weight = 1,
): WeightedTerm[] {
  const weighted: WeightedTerm[] = [];
  for (let t = 0; t < terms.length; t++) weighted.push({ term: terms[t]!, weight: 1 });
  for (let t = 0; t < more.length; t++) weighted.push({ term: more[t]!, weight });
  return weighted;
}
