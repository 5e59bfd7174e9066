import { type Corpus, type PostingList, weightedTf } from '../corpus.js';
import type { AnalyzedQuery, Retriever } from '../retriever.js';
import type { RetrieverContext } from './context.js';
import { literalWeight } from './literal-weight.js';
import { Scores } from './top-k.js';

/** log(1 + field-weighted tf) of a packed posting; few distinct values, so memoised. */
const logTfMemo = new Map<number, number>();
function logTf(packed: number): number {
  let value = logTfMemo.get(packed);
  if (value === undefined) {
    value = Math.log1p(weightedTf(packed));
    if (logTfMemo.size < 100_000) logTfMemo.set(packed, value);
  }
  return value;
}

/** logTf of each posting of a list. Lists never change (a change makes a new one), so kept per list. */
const logTfsByList = new WeakMap<PostingList, Float64Array>();
function logTfs(list: PostingList): Float64Array {
  let values = logTfsByList.get(list);
  if (!values) {
    const { packed } = list;
    values = new Float64Array(packed.length);
    for (let i = 0; i < packed.length; i++) values[i] = logTf(packed[i]!);
    logTfsByList.set(list, values);
  }
  return values;
}

/** Smoothed idf, as in the classic vector-space model. */
function idf(corpus: Corpus, term: string): number {
  return Math.log((corpus.size + 1) / (corpus.df(term) + 1)) + 1;
}

/**
 * `tfidf`: cosine similarity between sublinear TF-IDF vectors (field-weighted term
 * frequencies, the BM25F field weights). Unlike BM25 it never saturates and normalises
 * by the whole vector, so it favours tools whose text is *about* the query terms rather
 * than merely mentioning them. Document norms depend on every idf, so they are
 * recomputed lazily, once per corpus change, not on every add.
 */
export function createTfidfRetriever({ corpus }: RetrieverContext): Retriever {
  let normsVersion = -1;
  let norms = new Float64Array(0);
  const refreshNorms = () => {
    if (normsVersion === corpus.version) return;
    const squares = new Float64Array(corpus.idCapacity);
    // Straight from the Map (forEach: no entry arrays): building all ~13k posting lists here
    // made the first refresh slower (typed-array allocations) and later ones no faster.
    corpus.postings.forEach((byDoc, term) => {
      const weight = idf(corpus, term);
      byDoc.forEach((packed, id) => {
        const w = logTf(packed) * weight;
        squares[id]! += w * w;
      });
    });
    norms = squares.map(Math.sqrt);
    normsVersion = corpus.version;
  };
  return {
    name: 'tfidf',
    add() {},
    remove() {},
    weightFor: (query: AnalyzedQuery) => literalWeight(corpus, query),
    retrieve(query: AnalyzedQuery, limit, accept) {
      refreshNorms();
      const counts = new Map<string, number>();
      for (const term of query.terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      const scores = new Scores(corpus.idCapacity);
      for (const [term, count] of counts) {
        const list = corpus.postingList(term);
        if (!list) continue;
        const weight = idf(corpus, term);
        const q = Math.log1p(count) * weight * weight;
        const { ids } = list;
        const tfs = logTfs(list);
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i]!;
          if (accept && !accept(id)) continue;
          scores.add(id, (q * tfs[i]!) / (norms[id] || 1));
        }
      }
      return scores.top(limit);
    },
  };
}
