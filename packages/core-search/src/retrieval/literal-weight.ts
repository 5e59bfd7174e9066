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
  // keyword and tfidf ask for the plain weight of the same analysed query in one search. Kept
  // per query object (weakly: nothing here keeps a dropped engine's corpus or query alive).
  const kept = plainWeights.get(query);
  if (kept?.corpus === corpus && kept.version === corpus.version) return kept.weight;
  const weight = corpus.coverage(query.terms, corpus.knownDf) ** 2;
  plainWeights.set(query, { corpus, version: corpus.version, weight });
  return weight;
}

/** The plain weight computed for an analysed query (a search's analysed query is its own object). */
const plainWeights = new WeakMap<AnalyzedQuery, { corpus: Corpus; version: number; weight: number }>();
