import { type Corpus, fieldCount } from '../corpus.js';
import { DEFAULTS, FIELD_NAMES } from '../defaults.js';
import type { AnalyzedQuery, Retriever } from '../retriever.js';
import type { RetrieverContext } from './context.js';
import { topK } from './top-k.js';

/** Field-weighted term frequency of a packed posting (same field weights as BM25F). */
function weightedTf(packed: number): number {
  let tf = 0;
  FIELD_NAMES.forEach((field, f) => {
    tf += DEFAULTS.bm25.fieldWeights[field] * fieldCount(packed, f);
  });
  return tf;
}

/** Smoothed idf, as in the classic vector-space model. */
function idf(corpus: Corpus, term: string): number {
  return Math.log((corpus.size + 1) / (corpus.df(term) + 1)) + 1;
}

/**
 * `tfidf`: cosine similarity between sublinear TF-IDF vectors. Unlike BM25 it never
 * saturates and normalises by the whole vector, so it favours tools whose text is
 * *about* the query terms rather than merely long. Document norms depend on every idf,
 * so they are recomputed lazily, once per corpus change, not on every add.
 */
export function createTfidfRetriever({ corpus }: RetrieverContext): Retriever {
  let normsVersion = -1;
  let norms = new Map<number, number>();
  const refreshNorms = () => {
    if (normsVersion === corpus.version) return;
    const squares = new Map<number, number>();
    for (const [term, byDoc] of corpus.postings) {
      const weight = idf(corpus, term);
      for (const [id, packed] of byDoc) {
        const w = Math.log1p(weightedTf(packed)) * weight;
        squares.set(id, (squares.get(id) ?? 0) + w * w);
      }
    }
    norms = new Map([...squares].map(([id, sum]) => [id, Math.sqrt(sum)]));
    normsVersion = corpus.version;
  };
  return {
    name: 'tfidf',
    add() {},
    remove() {},
    retrieve(query: AnalyzedQuery, limit, accept) {
      refreshNorms();
      const counts = new Map<string, number>();
      for (const term of query.terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      const scores = new Map<number, number>();
      for (const [term, count] of counts) {
        const byDoc = corpus.postings.get(term);
        if (!byDoc) continue;
        const weight = idf(corpus, term);
        const q = Math.log1p(count) * weight;
        for (const [id, packed] of byDoc) {
          if (accept && !accept(id)) continue;
          const d = Math.log1p(weightedTf(packed)) * weight;
          scores.set(id, (scores.get(id) ?? 0) + (q * d) / (norms.get(id) ?? 1));
        }
      }
      return topK(scores, limit);
    },
  };
}
