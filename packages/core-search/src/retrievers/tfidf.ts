import { type Corpus, type PostingList, weightedTf } from '../corpus.js';
import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
import { literalWeight } from '../retrieval/literal-weight.js';
import { PackedMemo } from '../retrieval/packed-memo.js';
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
const SHAPES: readonly QueryShape[] = ['identifier', 'keywords', 'natural'];
const logTfMemo = Object.fromEntries(
  SHAPES.map((shape) => [
    shape,
    new PackedMemo((packed) => Math.log1p(weightedTf(packed, shape)), DEFAULTS.memos.maxPackedCounts),
  ]),
) as Record<QueryShape, PackedMemo>;
function logTf(packed: number, shape: QueryShape): number {
  return logTfMemo[shape].get(packed);
}

/** logTf of each posting of a list. Lists never change (a change makes a new one), so kept per list. */
const logTfsByList: Record<QueryShape, WeakMap<PostingList, Float64Array>> = {
  identifier: new WeakMap(),
  keywords: new WeakMap(),
  natural: new WeakMap(),
};
function logTfs(list: PostingList, shape: QueryShape): Float64Array {
  let values = logTfsByList[shape].get(list);
  if (!values) {
    const { packed } = list;
    values = new Float64Array(packed.length);
    for (let i = 0; i < packed.length; i++) values[i] = logTf(packed[i]!, shape);
    logTfsByList[shape].set(list, values);
  }
  return values;
}

/** Smoothed idf, as in the classic vector-space model, of a term in `df` documents. */
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
 */
export function createTfidfRetriever({ corpus }: RetrieverContext): Retriever {
  const normsByShape: Partial<Record<QueryShape, IncrementalNorms>> = {};
  return {
    name: 'tfidf',
    add() {},
    remove() {},
    weightFor: (query: AnalyzedQuery) => literalWeight(corpus, query),
    /**
     * The norms' sums per document and shape: a loaded index answers its first search of
     * each shape without a pass over every posting (~0.4 s at 100k tools), with the norms
     * of the engine that saved it.
     */
    exportState(dense): SavedState {
      const arrays: Record<string, Float64Array> = {};
      for (const shape of SHAPES) {
        normsByShape[shape] ??= new IncrementalNorms(corpus, shape);
        const sums = normsByShape[shape].exportSums(dense);
        sums.forEach((sum, k) => {
          arrays[`${shape}.s${k}`] = sum;
        });
      }
      return { arrays };
    },
    importState(state, count) {
      for (const shape of SHAPES) {
        const sums = [0, 1, 2].map((k) => state.arrays?.[`${shape}.s${k}`]);
        for (const sum of sums) {
          if (!(sum instanceof Float64Array) || sum.length !== count)
            invalidIndex(`tfidf: ${shape} sums must hold ${count} numbers`);
          for (const value of sum)
            if (!Number.isFinite(value)) invalidIndex(`tfidf: a ${shape} sum is not finite`);
        }
        normsByShape[shape] = new IncrementalNorms(corpus, shape);
        normsByShape[shape].importSums(sums as Float64Array[]);
      }
      return true;
    },
    retrieve(query: AnalyzedQuery, limit, accept) {
      const { shape } = query;
      normsByShape[shape] ??= new IncrementalNorms(corpus, shape);
      const norms = normsByShape[shape];
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
        const tfs = logTfs(list, shape);
        if (accept) {
          for (let i = 0; i < ids.length; i++) {
            const id = ids[i]!;
            if (accept(id)) scores.add(id, (q * tfs[i]!) / (norms.norm(id) || 1));
          }
          continue;
        }
        // No toolset filter (most searches): no check per posting.
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i]!;
          scores.add(id, (q * tfs[i]!) / (norms.norm(id) || 1));
        }
      }
      return scores.top(limit);
    },
  };
}

/** The TF-IDF document norms of a corpus, kept up to date by the terms each change touched. */
export class IncrementalNorms {
  private s0 = new Float64Array(0);
  private s1 = new Float64Array(0);
  private s2 = new Float64Array(0);
  /** Per term id: the c(t) its documents' sums hold, and the largest doc id they cover. */
  private appliedC = new Float64Array(0);
  private appliedMaxId = new Int32Array(0);
  private seenVersion = -1;
  /**
   * Norms by doc id, each computed on its first read after an update (normStamps[id] ===
   * stamp): every norm moves with N, and computing all N of them was a quarter of the
   * norm update after one add at 10k tools, while a search reads only its terms' documents.
   */
  private norms = new Float64Array(0);
  private normStamps = new Int32Array(0);
  private stamp = 0;
  /** A = ln(N + 1) + 1 at the last update. */
  private a = 1;

  constructor(
    private readonly corpus: Corpus,
    private readonly shape: QueryShape = 'keywords',
  ) {}

  /** Every document's norm, up to date (saved index, tests; a search reads norm(id)). */
  refresh(): Float64Array {
    this.update();
    for (let id = 0; id < this.norms.length; id++) this.norm(id);
    return this.norms;
  }

  /** The norm of a document (0 for an id not indexed), after update(). */
  norm(id: number): number {
    if (this.normStamps[id] === this.stamp) return this.norms[id]!;
    const { a } = this;
    // Rounded to float32: sums patched in a different order differ in their last bits, and
    // two identical tools must keep identical norms (ties break by insertion order).
    const norm = Math.fround(
      Math.sqrt(Math.max(0, a * a * this.s0[id]! - 2 * a * this.s1[id]! + this.s2[id]!)),
    );
    this.norms[id] = norm;
    this.normStamps[id] = this.stamp;
    return norm;
  }

  /** Bring the sums up to the corpus' version: the postings of the terms whose df changed. */
  update(): void {
    const { corpus } = this;
    if (this.seenVersion === corpus.version) return;
    if (corpus.reusedIdVersion > this.seenVersion) this.reset(); // an id came back: start over
    this.fit(corpus.idCapacity, corpus.termIdCapacity);
    const { s0, s1, s2, appliedC, appliedMaxId } = this;
    const memo = logTfMemo[this.shape];
    corpus.termsChangedSince(this.seenVersion, (termId, list) => {
      if (!list) return; // vanished: its documents are gone too
      const c = Math.log(list.ids.length + 1);
      const old = appliedC[termId]!;
      const covered = appliedMaxId[termId]!;
      const { ids, packed } = list;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        const w = memo.get(packed[i]!);
        const w2 = w * w;
        if (id <= covered) {
          s1[id]! += w2 * (c - old);
          s2[id]! += w2 * (c * c - old * old);
        } else {
          s0[id]! += w2;
          s1[id]! += w2 * c;
          s2[id]! += w2 * c * c;
        }
      }
      appliedC[termId] = c;
      appliedMaxId[termId] = ids.length > 0 ? ids[ids.length - 1]! : -1;
    });
    this.updated();
  }

  /** The sums are those of the corpus' version now: norms are computed afresh as read. */
  private updated(): void {
    const { corpus } = this;
    if (this.norms.length !== this.s0.length) {
      this.norms = new Float64Array(this.s0.length);
      this.normStamps = new Int32Array(this.s0.length);
    }
    this.a = Math.log(corpus.size + 1) + 1;
    this.stamp++;
    this.seenVersion = corpus.version;
  }

  /** The sums S0, S1, S2 of each document, up to date, ids renumbered by `dense` (saved index). */
  exportSums(dense: Int32Array): Float64Array[] {
    this.refresh();
    let count = 0;
    for (const position of dense) if (position >= 0) count++;
    return [this.s0, this.s1, this.s2].map((sums) => {
      const out = new Float64Array(count);
      for (let id = 0; id < dense.length; id++) if (dense[id]! >= 0) out[dense[id]!] = sums[id] ?? 0;
      return out;
    });
  }

  /**
   * Take saved sums of a corpus just loaded (same documents, same ids): what each term's
   * documents hold is its current c(t) up to its last document, as after a refresh.
   */
  importSums([s0, s1, s2]: Float64Array[]): void {
    const { corpus } = this;
    this.fit(corpus.idCapacity, corpus.termIdCapacity);
    this.s0.set(s0!);
    this.s1.set(s1!);
    this.s2.set(s2!);
    corpus.termsChangedSince(-1, (termId, list) => {
      if (!list) return;
      this.appliedC[termId] = Math.log(list.ids.length + 1);
      this.appliedMaxId[termId] = list.ids[list.ids.length - 1]!;
    });
    this.updated();
  }

  private reset(): void {
    this.s0 = new Float64Array(0);
    this.s1 = new Float64Array(0);
    this.s2 = new Float64Array(0);
    this.appliedC = new Float64Array(0);
    this.appliedMaxId = new Int32Array(0);
    this.seenVersion = -1;
  }

  private fit(ids: number, terms: number): void {
    if (this.s0.length < ids) {
      const grow = (from: Float64Array) => {
        const to = new Float64Array(ids);
        to.set(from);
        return to;
      };
      this.s0 = grow(this.s0);
      this.s1 = grow(this.s1);
      this.s2 = grow(this.s2);
    }
    if (this.appliedC.length < terms) {
      const size = Math.max(terms, this.appliedC.length * 2);
      const c = new Float64Array(size);
      c.set(this.appliedC);
      const maxId = new Int32Array(size).fill(-1);
      maxId.set(this.appliedMaxId);
      this.appliedC = c;
      this.appliedMaxId = maxId;
    }
  }
}
