import { type Corpus, grownTo, type PostingList, type StoredPostings, weightedTf } from '../corpus.js';
import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
import { onGrid } from '../retrieval/grid.js';
import { literalWeight } from '../retrieval/literal-weight.js';
import { PackedMemo } from '../retrieval/packed-memo.js';
import { SHAPES, shapeNumber } from '../retrieval/shape.js';
import type { AnalyzedQuery, Retriever, SavedState } from '../retriever.js';
import { invalidIndex } from '../serialize.js';
import { Scores } from '../top-k.js';
import type { QueryShape } from '../types.js';

/**
 * log(1 + field-weighted tf) of a packed posting, with the field weights of a query shape;
 * few distinct values, so memoised per shape. PackedMemo, not a Map: a Map lookup per posting
 * was most of the norm update after an add(); with it (and the memo read once per refresh)
 * one shape's refresh after adding one tool to 9,930 (18 terms, 16k postings) went
 * 1.03 -> 0.36 ms CPU (median of 40 adds, load 2.4).
 */
const logTfMemo: readonly PackedMemo[] = SHAPES.map(
  (shape) =>
    new PackedMemo((packed) => Math.log1p(weightedTf(packed, shape)), DEFAULTS.memos.maxPackedCounts),
);

/**
 * Per posting list and query shape: logTf of each posting (lists never change: a change
 * makes a new one), and what each posting adds to its document's score per unit of the
 * query term's weight q, logTf / norm (`shares`). q holds the idf the query weighs by (it
 * moves with every add) and is applied per list as the shares are summed; the shares move
 * only with the norms they divide by, which are on the statistics' grid (IncrementalNorms):
 * after an add() a list's shares are repaired for the documents whose norms moved since
 * they were made (`filledAt`), and made again whole only when every norm moved. Read as
 * they are, the norms cost two reads per posting, at random in arrays as long as the
 * corpus, where the shares are read in order: at ~100k tools, the 30 latency queries,
 * search p50 CPU 0.87-0.94x, per-query medians 0.94-0.96x; compare.ts's 10k window
 * 0.97-0.99x (old and new sources interleaved in one process, load 3-8). 8 bytes a posting
 * of the lists searched, per shape.
 */
interface ListWeights {
  logTfs: Float64Array;
  shares: Float64Array | undefined;
  /** The norms the shares divide by, and their update the shares were made or repaired at. */
  norms: IncrementalNorms | undefined;
  filledAt: number;
}
/** By shapeNumber. */
const weightsByList: readonly WeakMap<PostingList, ListWeights>[] = SHAPES.map(() => new WeakMap());
function listWeights(list: PostingList, shape: number): ListWeights {
  const byList = weightsByList[shape]!;
  let weights = byList.get(list);
  if (!weights) {
    const { packed, grownFrom } = list;
    const logTfs = new Float64Array(packed.length);
    // A list grown by appended postings (an add): the logTfs of the list it grew from hold
    // for its first postings (a logTf is of the packed count alone), and so do its shares
    // where their documents' norms did not move; the appended documents' norms are new, so
    // the repair in currentShares makes theirs.
    const before = grownFrom === undefined ? undefined : byList.get(grownFrom);
    let start = 0;
    let shares: Float64Array | undefined;
    if (before !== undefined) {
      logTfs.set(before.logTfs);
      start = before.logTfs.length;
      byList.delete(grownFrom!);
      if (before.shares !== undefined) {
        shares = new Float64Array(packed.length);
        shares.set(before.shares);
      }
    }
    const memo = logTfMemo[shape]!;
    for (let i = start; i < packed.length; i++) logTfs[i] = memo.get(packed[i]!);
    weights = shares
      ? { logTfs, shares, norms: before!.norms, filledAt: before!.filledAt }
      : { logTfs, shares: undefined, norms: undefined, filledAt: -1 };
    byList.set(list, weights);
  }
  return weights;
}

/**
 * A list's shares (logTf / norm per posting) as of the norms' last update: kept when no norm
 * of its documents moved since they were made, repaired for the documents whose norms did,
 * made whole when every norm moved (A stepped on the grid, or a dense slot was given or freed)
 * or the first time.
 */
function currentShares(listed: ListWeights, ids: Int32Array, norms: IncrementalNorms): Float64Array {
  const tfs = listed.logTfs;
  let shares = listed.shares;
  if (shares !== undefined && listed.norms === norms && listed.filledAt >= norms.allMovedAt) {
    if (listed.filledAt === norms.updates) return shares;
    const { changedAt } = norms;
    const since = listed.filledAt;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (changedAt[id]! > since) shares[i] = tfs[i]! / (norms.norm(id) || 1);
    }
  } else {
    shares ??= new Float64Array(ids.length);
    for (let i = 0; i < ids.length; i++) shares[i] = tfs[i]! / (norms.norm(ids[i]!) || 1);
    listed.shares = shares;
    listed.norms = norms;
  }
  listed.filledAt = norms.updates;
  return shares;
}

/** Smoothed idf, as in the classic vector-space model, of a term in `df` documents (exact: the query's weights). */
function idfOf(corpus: Corpus, df: number): number {
  return Math.log((corpus.size + 1) / (df + 1)) + 1;
}

/**
 * `tfidf`: cosine similarity between sublinear TF-IDF vectors (field-weighted term
 * frequencies, the BM25F field weights). Unlike BM25 it never saturates and normalises
 * by the whole vector, so it favours tools whose text is *about* the query terms rather
 * than merely mentioning them.
 *
 * Document norms depend on every idf, and every idf moves when a tool is added, yet they
 * are kept incrementally: with idf = A - c(t), A = ln(N + 1) + 1 and c(t) = ln(df + 1),
 * |d|^2 = A^2 S0 - 2 A S1 + S2 where S0 = sum w^2, S1 = sum w^2 c(t), S2 = sum w^2 c(t)^2
 * over the document's terms (w = log(1 + tf)). N moves only A; a changed df moves c(t)
 * for the documents of that term alone. So a change costs the postings of the terms it
 * touched, not a pass over the whole index. Field weights depend on the query's shape,
 * so norms are kept per shape, each made on the first query of its shape.
 *
 * The norms take N and each df on a grid of DEFAULTS.tfidf.normGridBits significant bits
 * (`onGrid`): below 2^bits exactly, a larger count in steps of about 2^-bits of itself. So
 * one add() seldom moves A (every norm) or the c(t) of a common term (the norms of all its
 * documents), and the shares a search made stay valid for most documents. The query's own
 * weights take the exact idf. A norm is a document's length; on the grid it is that length
 * measured with idfs a few per cent off at most, and rankings and recall stayed as they
 * were (DESIGN.md, "After an add(): norms on a grid").
 */
export function createTfidfRetriever({ corpus }: RetrieverContext): Retriever {
  /** By shapeNumber, each made on the first query of its shape. */
  const normsByShape: (IncrementalNorms | undefined)[] = SHAPES.map(() => undefined);
  const normsOf = (s: number) => (normsByShape[s] ??= new IncrementalNorms(corpus, SHAPES[s]!));
  const bits = DEFAULTS.tfidf.normGridBits;
  return {
    name: 'tfidf',
    add() {},
    remove() {},
    weightFor: (query: AnalyzedQuery) => literalWeight(corpus, query),
    /**
     * The norms' sums per document and shape: a loaded index answers its first search of
     * each shape without a pass over every posting (~0.4 s at 100k tools), with the norms
     * of the engine that saved it. The sums hold each term's c(t) on the grid: saved with
     * its bits, and taken only by an engine on the same grid.
     */
    exportState(dense): SavedState {
      const arrays: Record<string, Float64Array> = {};
      SHAPES.forEach((shape, s) => {
        const sums = normsOf(s).exportSums(dense);
        sums.forEach((sum, k) => {
          arrays[`${shape}.s${k}`] = sum;
        });
      });
      return { meta: { normGridBits: bits }, arrays };
    },
    importState(state, count) {
      // Sums on another grid, or none (a file from before the grid): not these norms'. The
      // norms are then made from the postings on the first search of each shape.
      if ((state.meta as { normGridBits?: unknown } | undefined)?.normGridBits !== bits) return false;
      for (let s = 0; s < SHAPES.length; s++) {
        const shape = SHAPES[s]!;
        const sums = [0, 1, 2].map((k) => state.arrays?.[`${shape}.s${k}`]);
        for (const sum of sums) {
          if (!(sum instanceof Float64Array) || sum.length !== count)
            invalidIndex(`tfidf: ${shape} sums must hold ${count} numbers`);
          // By the typed array's own search (includes finds NaN: SameValueZero), not a loop of
          // ours: it runs once per load, mostly before V8 optimises it (900k sums in the
          // ~100k-tool index: ~40 ms of importState's CPU as a loop, load 8-10).
          if (sum.includes(Number.NaN) || sum.includes(Infinity) || sum.includes(-Infinity))
            invalidIndex(`tfidf: a ${shape} sum is not finite`);
        }
        const norms = new IncrementalNorms(corpus, shape);
        norms.importSums(sums as Float64Array[]);
        normsByShape[s] = norms;
      }
      return true;
    },
    retrieve(query: AnalyzedQuery, limit, accept) {
      const shape = shapeNumber(query.shape);
      const norms = normsOf(shape);
      norms.update();
      const scores = new Scores(corpus.idCapacity);
      const { terms } = query;
      next: for (let t = 0; t < terms.length; t++) {
        const term = terms[t]!;
        // Each distinct term once, at its first place, with its count (a query is a few words: no Map).
        let count = 1;
        for (let u = 0; u < t; u++) if (terms[u] === term) continue next;
        for (let u = t + 1; u < terms.length; u++) if (terms[u] === term) count++;
        const list = corpus.postingList(term);
        if (!list) continue;
        const weight = idfOf(corpus, list.ids.length);
        const q = Math.log1p(count) * weight * weight;
        const { ids } = list;
        const shares = currentShares(listWeights(list, shape), ids, norms);
        if (accept) {
          for (let i = 0; i < ids.length; i++) {
            const id = ids[i]!;
            if (accept(id)) scores.add(id, q * shares[i]!);
          }
          continue;
        }
        // No toolset filter (most searches): no check per posting.
        for (let i = 0; i < ids.length; i++) scores.add(ids[i]!, q * shares[i]!);
      }
      return scores.top(limit);
    },
  };
}

const NO_TERMS: ReadonlySet<number> = new Set();

/** Dense slots at most: one bit each of a document's 32-bit mask. */
export const MAX_DENSE_SLOTS = 31;
/** Distinct packed counts one dense term can take (codes 1-255 of a byte; 0: no posting). */
const DENSE_CODES = 256;

/** Where IncrementalNorms keeps the terms in most documents (DEFAULTS.tfidf.denseTerms). */
export interface DenseTermOptions {
  /** Terms kept apart at most (0 to MAX_DENSE_SLOTS). */
  slots: number;
  /** Document frequency from which a term is kept apart. */
  minDf: number;
}

/**
 * The TF-IDF document norms of a corpus, kept up to date by the terms each change touched.
 *
 * The terms in most documents are kept apart ("dense" terms, up to `slots` of them): their
 * c(t) moves with nearly every add(), and patching the sums of every document that holds
 * them was most of the update (one add at 10k tools: 17.9k postings, 7,984 of them of
 * "mcp", which 80% of the tools carry). Instead a document keeps, per dense term it holds,
 * a byte coding its packed count, and its norm adds w^2 (A - c(t))^2 for each when read; a
 * change of their df then costs nothing per document. The norms are the same to the float32
 * they are rounded to (the sums differ only in how they are grouped; rankings byte-identical
 * with 8 slots from df 8 on every dataset, hits-dump --check). Single adds at 10k tools, the
 * update plus 3,000 norms read after it: 328 + 50 -> 141 + 84 µs CPU (load 9.7, same
 * process, interleaved with c0565ff's; its caches cold between adds).
 */
export class IncrementalNorms {
  /**
   * Per document: the sums S0, S1, S2 over its terms that are not dense, a bit per dense
   * slot it holds, and its code in each slot (at id * slots + slot). An array per number,
   * not a record per document: updates and searches walk posting lists, ids ascending
   * and close together, and a 64-byte record per document doubled the cost of reading
   * 3,000 norms that way (scratch updbench.mts).
   */
  private s0 = new Float64Array(0);
  private s1 = new Float64Array(0);
  private s2 = new Float64Array(0);
  private masks = new Int32Array(0);
  private codes = new Uint8Array(0);
  /** Documents the per-document arrays have room for. */
  private capacity = 0;
  /** Per term id: the c(t) its documents' sums hold, and the largest doc id they cover. */
  private appliedC = new Float64Array(0);
  private appliedMaxId = new Int32Array(0);
  private seenVersion = -1;
  /**
   * Norms are computed on their first read after they moved (their stamp === stamp while
   * current): when A moves every norm does, and computing all N of them was a quarter of the
   * norm update after one add at 10k tools, while a search reads only its terms' documents.
   * An update that moves A, or gives or frees a dense slot, moves the stamp; one that does not
   * marks the documents whose norms it moved (stamp 0, never current): those whose sums it
   * patched, those new to a dense term, and all of a dense term's whose c(t) stepped.
   */
  private norms = new Float64Array(0);
  private stamps = new Int32Array(0);
  private stamp = 0;
  /** A = ln(N + 1) + 1 at the last update (N on the grid; NaN before the first update). */
  private a = Number.NaN;
  /** Updates so far, the last one that moved every norm, and per document the last that moved its norm. */
  updates = 0;
  allMovedAt = 0;
  changedAt = new Int32Array(0);
  /** Per slot: its dense term's id (-1: free). */
  private readonly denseTerm: Int32Array;
  /**
   * Per slot and code: the packed count it stands for, its w^2, and w^2 (A - c(t))^2 at the
   * last update (what the term adds to the squared norm); codes used per slot (from 1).
   */
  private readonly denseKeys: Float64Array;
  private readonly denseW2: Float64Array;
  private readonly denseAdds: Float64Array;
  private readonly denseUsed: Int32Array;
  /** Per term id: its slot, or -1; terms with more distinct counts than codes are never dense. */
  private slotOf = new Int8Array(0);
  private readonly neverDense = new Set<number>();
  /** Document frequency from which a term is taken apart. */
  private readonly minDf: number;
  /** Significant bits of the statistics (onGrid). */
  private readonly bits: number;
  /** log(1 + tf) by packed count, in this shape's field weights. */
  private readonly memo: PackedMemo;

  constructor(
    private readonly corpus: Corpus,
    shape: QueryShape = 'keywords',
    dense: DenseTermOptions = DEFAULTS.tfidf.denseTerms,
    gridBits: number = DEFAULTS.tfidf.normGridBits,
  ) {
    const { slots, minDf } = dense;
    if (!Number.isInteger(gridBits) || gridBits < 1 || gridBits > 52)
      throw new RangeError(`IncrementalNorms: grid bits must be 1-52, got ${gridBits}`);
    this.bits = gridBits;
    this.memo = logTfMemo[shapeNumber(shape)]!;
    if (!Number.isInteger(slots) || slots < 0 || slots > MAX_DENSE_SLOTS)
      throw new RangeError(`IncrementalNorms: dense slots must be 0-${MAX_DENSE_SLOTS}, got ${slots}`);
    this.minDf = Math.max(1, minDf);
    this.denseTerm = new Int32Array(slots).fill(-1);
    this.denseKeys = new Float64Array(slots * DENSE_CODES);
    this.denseW2 = new Float64Array(slots * DENSE_CODES);
    this.denseAdds = new Float64Array(slots * DENSE_CODES);
    this.denseUsed = new Int32Array(slots).fill(1);
  }

  /** Every document's norm by id, up to date (tests; a search reads norm(id)). */
  refresh(): Float64Array {
    this.update();
    const norms = new Float64Array(this.capacity);
    for (let id = 0; id < norms.length; id++) norms[id] = this.norm(id);
    return norms;
  }

  /** c(t) = ln(df + 1) of a term in `df` documents, df on the grid. */
  private cOf(df: number): number {
    return Math.log(onGrid(df, this.bits) + 1);
  }

  /** The norm of a document (0 for an id not indexed), after update(). */
  norm(id: number): number {
    if (this.stamps[id] === this.stamp) return this.norms[id]!;
    const { a, denseAdds, codes } = this;
    let squared = a * a * this.s0[id]! - 2 * a * this.s1[id]! + this.s2[id]!;
    // The slots the document holds, lowest first: the lowest set bit of what is left.
    const at = id * this.denseTerm.length;
    for (let mask = this.masks[id]!; mask !== 0; mask &= mask - 1) {
      const slot = 31 - Math.clz32(mask & -mask);
      squared += denseAdds[slot * DENSE_CODES + codes[at + slot]!]!;
    }
    // Rounded to float32: sums patched in a different order differ in their last bits, and
    // two identical tools must keep identical norms (ties break by insertion order).
    const norm = Math.fround(Math.sqrt(Math.max(0, squared)));
    this.norms[id] = norm;
    this.stamps[id] = this.stamp;
    return norm;
  }

  /** Bring the sums up to the corpus' version: the postings of the terms whose df changed. */
  update(): void {
    const { corpus } = this;
    if (this.seenVersion === corpus.version) return;
    if (corpus.reusedIdVersion > this.seenVersion) this.reset(); // an id came back: start over
    this.fit(corpus.idCapacity, corpus.termIdCapacity);
    this.updates++;
    // Two passes over the changed terms (at 100k tools a first update names every term:
    // nothing is kept of them between the passes): the terms to take apart, then the sums.
    const promoting = this.promotions();
    corpus.termsChangedSince(this.seenVersion, (termId, postings) => {
      if (!postings) return; // vanished: its documents are gone too
      if (promoting.has(termId)) this.promote(termId, postings);
      const slot = this.slotOf[termId]!;
      if (slot < 0 || !this.codeNew(slot, termId, postings)) this.patch(termId, postings);
    });
    this.updated();
  }

  /**
   * The changed terms to take apart: those in most documents (at least minDf), most first,
   * as many as slots are free. Frees the slots of dense terms that vanished.
   */
  private promotions(): ReadonlySet<number> {
    // Every slot held by a live term (after the first adds, nearly always): nothing to free or
    // promote, and no pass over the changed terms (run once per add, in unoptimised code).
    let held = 0;
    for (const termId of this.denseTerm) if (termId >= 0 && this.corpus.hasTermId(termId)) held++;
    if (held === this.denseTerm.length) return NO_TERMS;
    const candidates: number[] = [];
    const dfs: number[] = [];
    this.corpus.termsChangedSince(this.seenVersion, (termId, postings) => {
      const slot = this.slotOf[termId]!;
      if (!postings) {
        if (slot >= 0) this.free(slot);
      } else if (postings.length >= this.minDf && slot < 0 && !this.neverDense.has(termId)) {
        candidates.push(termId);
        dfs.push(postings.length);
      }
    });
    let free = 0;
    for (const termId of this.denseTerm) if (termId < 0) free++;
    if (free === 0 || candidates.length === 0) return new Set();
    const order = candidates.map((_, i) => i);
    order.sort((x, y) => dfs[y]! - dfs[x]! || candidates[x]! - candidates[y]!);
    return new Set(order.slice(0, free).map((i) => candidates[i]!));
  }

  /**
   * Patch the sums of the documents of a term that is not dense: its c(t) moved for those
   * it covered, and the rest are new to it.
   */
  private patch(termId: number, { ids, packed, length }: StoredPostings): void {
    const { s0, s1, s2, memo } = this;
    const c = this.cOf(length);
    const old = this.appliedC[termId]!;
    const covered = this.appliedMaxId[termId]!;
    // c(t) on the grid did not move (a common term, nearly always): its covered documents
    // hold it as they were, and only the documents new to it are added (ids ascending).
    let from = 0;
    if (c === old) {
      from = length;
      while (from > 0 && ids[from - 1]! > covered) from--;
    }
    // Runs of equal counts are common (three postings in four follow an equal one in the
    // lists one add() changes at 10k tools): the memo is asked only when the count changes.
    let last = 0; // no packed count
    let w2 = 0;
    for (let i = from; i < length; i++) {
      const id = ids[i]!;
      this.moved(id);
      if (packed[i] !== last) {
        last = packed[i]!;
        const w = memo.get(last);
        w2 = w * w;
      }
      if (id <= covered) {
        s1[id]! += w2 * (c - old);
        s2[id]! += w2 * (c * c - old * old);
      } else {
        s0[id]! += w2;
        s1[id]! += w2 * c;
        s2[id]! += w2 * c * c;
      }
    }
    this.applied(termId, ids, length, c);
  }

  /** The term's documents hold its c(t) now (`c`: that of `length` documents), up to its last document. */
  private applied(termId: number, ids: Int32Array, length: number, c = this.cOf(length)): void {
    this.appliedC[termId] = c;
    this.appliedMaxId[termId] = length > 0 ? ids[length - 1]! : -1;
  }

  /**
   * Code the documents new to a dense term (its c(t) is read when a norm is). False when
   * its counts outgrow the codes: the term is then patched into the sums again.
   */
  private codeNew(slot: number, termId: number, postings: StoredPostings): boolean {
    const { ids, packed, length } = postings;
    const covered = this.appliedMaxId[termId]!;
    let from = length;
    while (from > 0 && ids[from - 1]! > covered) from--;
    for (let i = from; i < length; i++) {
      const code = this.codeOf(slot, packed[i]!);
      if (code === 0) {
        this.demote(slot, termId, ids, from);
        return false;
      }
      this.setCode(ids[i]!, slot, code);
    }
    // What it adds to a norm moves for each of its documents (the new ones are marked).
    const c = this.cOf(length);
    if (c !== this.appliedC[termId]) for (let i = 0; i < from; i++) this.moved(ids[i]!);
    this.applied(termId, ids, length, c);
    return true;
  }

  /**
   * Give a free slot to a term: its covered documents' sums give up what they held of it,
   * and every document of it gets a code (none if its counts outnumber the codes).
   */
  private promote(termId: number, { ids, packed, length }: StoredPostings): void {
    const slot = this.denseTerm.indexOf(-1);
    this.denseTerm[slot] = termId;
    this.slotOf[termId] = slot;
    // The sums of its documents are regrouped: their norms are made again (rare: a new slot).
    this.moveAll();
    // Codes first: a term with more distinct counts than codes stays in the sums.
    const codes = new Uint8Array(length);
    for (let p = 0; p < length; p++) {
      codes[p] = this.codeOf(slot, packed[p]!);
      if (codes[p] !== 0) continue;
      this.release(slot);
      this.neverDense.add(termId);
      return;
    }
    const { s0, s1, s2 } = this;
    const { memo } = this;
    const c = this.appliedC[termId]!;
    const covered = this.appliedMaxId[termId]!;
    for (let p = 0; p < length && ids[p]! <= covered; p++) {
      const w = memo.get(packed[p]!);
      const w2 = w * w;
      const id = ids[p]!;
      s0[id]! -= w2;
      s1[id]! -= w2 * c;
      s2[id]! -= w2 * c * c;
    }
    for (let p = 0; p < length; p++) this.setCode(ids[p]!, slot, codes[p]!);
    this.applied(termId, ids, length);
  }

  /**
   * A dense term's counts outgrew the codes: its coded documents (its postings before
   * `from`) take it into their sums again, at the c(t) it held, and it is never dense again.
   */
  private demote(slot: number, termId: number, ids: Int32Array, from: number): void {
    const { s0, s1, s2 } = this;
    const c = this.appliedC[termId]!;
    const slots = this.denseTerm.length;
    for (let i = 0; i < from; i++) {
      const id = ids[i]!;
      const w2 = this.denseW2[slot * DENSE_CODES + this.codes[id * slots + slot]!]!;
      s0[id]! += w2;
      s1[id]! += w2 * c;
      s2[id]! += w2 * c * c;
    }
    this.free(slot); // every norm made again
    this.neverDense.add(termId);
  }

  /** The code of a packed count in a slot, given one if new; 0 when the slot's codes are used up. */
  private codeOf(slot: number, packed: number): number {
    const base = slot * DENSE_CODES;
    const used = this.denseUsed[slot]!;
    for (let code = 1; code < used; code++) if (this.denseKeys[base + code] === packed) return code;
    if (used === DENSE_CODES) return 0;
    const w = this.memo.get(packed);
    this.denseKeys[base + used] = packed;
    this.denseW2[base + used] = w * w;
    this.denseUsed[slot] = used + 1;
    return used;
  }

  private setCode(id: number, slot: number, code: number): void {
    this.codes[id * this.denseTerm.length + slot] = code;
    this.masks[id]! |= 1 << slot;
    this.moved(id);
  }

  /** Document `id`'s norm moved in this update: made again when next read, its shares repaired. */
  private moved(id: number): void {
    this.stamps[id] = 0;
    this.changedAt[id] = this.updates;
  }

  /** Every norm moved in this update (A stepped, or a dense slot was given or freed). */
  private moveAll(): void {
    this.stamp++;
    this.allMovedAt = this.updates;
  }

  /** Empty a slot: its term vanished, or left it; no document holds a code of it after. */
  private free(slot: number): void {
    this.moveAll();
    const keep = ~(1 << slot);
    const slots = this.denseTerm.length;
    for (let id = 0; id < this.capacity; id++) {
      this.masks[id]! &= keep;
      this.codes[id * slots + slot] = 0;
    }
    this.release(slot);
  }

  /** A slot's bookkeeping back to empty (its documents' codes are the caller's). */
  private release(slot: number): void {
    const termId = this.denseTerm[slot]!;
    if (termId >= 0) this.slotOf[termId] = -1;
    this.denseTerm[slot] = -1;
    this.denseUsed[slot] = 1;
  }

  /**
   * The sums are those of the corpus' version now: the norms whose sums moved are computed
   * afresh as read, and every norm when A moved or a dense slot was given or freed.
   */
  private updated(): void {
    const { corpus } = this;
    const a = Math.log(onGrid(corpus.size, this.bits) + 1) + 1;
    if (a !== this.a) this.moveAll();
    this.a = a;
    for (let slot = 0; slot < this.denseTerm.length; slot++) {
      const termId = this.denseTerm[slot]!;
      if (termId < 0) continue;
      const d = a - this.appliedC[termId]!;
      const sq = d * d;
      const base = slot * DENSE_CODES;
      for (let code = 1; code < this.denseUsed[slot]!; code++)
        this.denseAdds[base + code] = this.denseW2[base + code]! * sq;
    }
    this.seenVersion = corpus.version;
  }

  /**
   * The sums S0, S1, S2 of each document over all its terms, dense ones included, up to
   * date, ids renumbered by `dense` (saved index).
   */
  exportSums(dense: Int32Array): Float64Array[] {
    this.update();
    let count = 0;
    for (const position of dense) if (position >= 0) count++;
    const out = [new Float64Array(count), new Float64Array(count), new Float64Array(count)];
    const slots = this.denseTerm.length;
    for (let id = 0; id < dense.length && id < this.capacity; id++) {
      const to = dense[id]!;
      if (to < 0) continue;
      let s0 = this.s0[id]!;
      let s1 = this.s1[id]!;
      let s2 = this.s2[id]!;
      for (let mask = this.masks[id]!; mask !== 0; mask &= mask - 1) {
        const slot = 31 - Math.clz32(mask & -mask);
        const w2 = this.denseW2[slot * DENSE_CODES + this.codes[id * slots + slot]!]!;
        const c = this.appliedC[this.denseTerm[slot]!]!;
        s0 += w2;
        s1 += w2 * c;
        s2 += w2 * c * c;
      }
      out[0]![to] = s0;
      out[1]![to] = s1;
      out[2]![to] = s2;
    }
    return out;
  }

  /**
   * Take saved sums of a corpus just loaded (same documents, same ids): what each term's
   * documents hold is its current c(t) up to its last document, as after a refresh. No
   * term is dense yet: those that change later are taken apart then.
   */
  importSums(sums: Float64Array[]): void {
    const { corpus } = this;
    this.reset();
    this.fit(corpus.idCapacity, corpus.termIdCapacity);
    this.s0.set(sums[0]!);
    this.s1.set(sums[1]!);
    this.s2.set(sums[2]!);
    corpus.termsChangedSince(-1, (termId, postings) => {
      if (postings) this.applied(termId, postings.ids, postings.length);
    });
    this.updated();
  }

  private reset(): void {
    this.s0 = new Float64Array(0);
    this.s1 = new Float64Array(0);
    this.s2 = new Float64Array(0);
    this.masks = new Int32Array(0);
    this.codes = new Uint8Array(0);
    this.norms = new Float64Array(0);
    this.stamps = new Int32Array(0);
    this.changedAt = new Int32Array(0);
    this.capacity = 0;
    this.appliedC = new Float64Array(0);
    this.appliedMaxId = new Int32Array(0);
    this.slotOf = new Int8Array(0);
    this.denseTerm.fill(-1);
    this.denseUsed.fill(1);
    this.neverDense.clear();
    this.seenVersion = -1;
    this.a = Number.NaN; // the next update makes every norm again
  }

  private fit(ids: number, terms: number): void {
    if (this.capacity < ids) {
      // Stamps start at 0, never current (the stamp counts from 1 after the first update).
      this.s0 = grownTo(this.s0, ids);
      this.s1 = grownTo(this.s1, ids);
      this.s2 = grownTo(this.s2, ids);
      this.norms = grownTo(this.norms, ids);
      this.stamps = grownTo(this.stamps, ids);
      this.changedAt = grownTo(this.changedAt, ids);
      this.masks = grownTo(this.masks, ids);
      this.codes = grownTo(this.codes, ids * this.denseTerm.length);
      this.capacity = ids;
    }
    if (this.appliedC.length < terms) {
      // A quarter more than the terms now: sized exactly, the first update after a build
      // doubled the term arrays again at the next add's first new term (1-2 ms of a first
      // search, once per shape; compare.ts's protocol at 10k tools, CPU profile).
      const size = Math.max(terms + (terms >> 2), this.appliedC.length * 2);
      this.appliedC = grownTo(this.appliedC, size);
      this.appliedMaxId = grownTo(this.appliedMaxId, size, -1);
      this.slotOf = grownTo(this.slotOf, size, -1);
    }
  }
}
