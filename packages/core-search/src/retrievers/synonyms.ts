import { uniqueTerms, weightedTerms } from '../corpus.js';
import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
import { literalWeight } from '../retrieval/literal-weight.js';
import { expandTerms } from '../retrieval/synonym-map.js';
import type { AnalyzedQuery, Retriever } from '../retriever.js';

/**
 * `synonyms`: BM25F over the query's terms plus their synonyms, the synonyms weighted
 * down (DEFAULTS.synonyms.expansionWeight) so a tool using the user's own words still
 * wins. No expansion, no opinion: it would only repeat the keyword ranking.
 */
export function createSynonymsRetriever({ corpus, synonyms }: RetrieverContext): Retriever {
  const hasSynonyms = (term: string) => synonyms.entries.has(term);
  return {
    name: 'synonyms',
    add() {},
    remove() {},
    weightFor: (query: AnalyzedQuery) => literalWeight(corpus, query, hasSynonyms),
    retrieve(query: AnalyzedQuery, limit, accept) {
      const expansions = expandTerms(query.terms, synonyms);
      if (expansions.length === 0) return [];
      const terms = uniqueTerms(weightedTerms(query.terms, expansions, DEFAULTS.synonyms.expansionWeight));
      return corpus.topBm25f(terms, limit, accept, query.shape, expansions);
    },
  };
}
