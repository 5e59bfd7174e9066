import { uniqueTerms, weightedTerms } from '../corpus.js';
import type { RetrieverContext } from '../retrieval/context.js';
import { literalWeight } from '../retrieval/literal-weight.js';
import type { AnalyzedQuery, Retriever } from '../retriever.js';

/** `keyword`: BM25F over the analysed fields, name above tags/toolset above description above schema. */
export function createKeywordRetriever({ corpus }: RetrieverContext): Retriever {
  return {
    name: 'keyword',
    add() {}, // the shared corpus is indexed by the engine
    remove() {},
    weightFor: (query: AnalyzedQuery) => literalWeight(corpus, query),
    retrieve(query: AnalyzedQuery, limit, accept) {
      return corpus.topBm25f(uniqueTerms(weightedTerms(query.terms)), limit, accept, query.shape);
    },
  };
}
