import type { Corpus } from '../corpus.js';
import type { AnalyzedQuery } from '../retriever.js';

/**
 * Fusion weight multiplier of the strategies that match words (keyword, tfidf, and
 * synonyms and prefix, which also see a word through its synonyms or completions). On a
 * short query such a strategy sees only the share of words the corpus knows, so a
 * misspelt word hands the lead to typo matching. Squared, because these strategies vote
 * together on the words they do see, and their breadth otherwise outvotes the one
 * strategy that read the whole query ("screenshoot the page" at 10k tools). Long requests
 * always carry names and places the corpus does not know; there it stays 1 (measured:
 * discounting them cost R@5 on MCPToolBench++).
 */
export function literalWeight(
  corpus: Corpus,
  query: AnalyzedQuery,
  alsoSeen?: (term: string) => boolean,
): number {
  if (query.shape === 'natural') return 1;
  if (alsoSeen) return corpus.coverage(query.terms, corpus.knownDf, alsoSeen) ** 2;
  // keyword and tfidf ask for the plain weight of the same analysed query in one search.
  if (last?.corpus !== corpus || last.query !== query || last.version !== corpus.version) {
    last = {
      corpus,
      query,
      version: corpus.version,
      weight: corpus.coverage(query.terms, corpus.knownDf) ** 2,
    };
  }
  return last.weight;
}

/** The last plain weight computed (a search's analysed query is a new object, so it is never reused by another search). */
let last: { corpus: Corpus; query: AnalyzedQuery; version: number; weight: number } | undefined;
