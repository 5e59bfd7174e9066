import { STOP_WORDS } from '../analysis/stopwords.js';
import { uniqueTerms, type WeightedTerm, weightedTerms } from '../corpus.js';
import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
import { literalWeight } from '../retrieval/literal-weight.js';
import type { AnalyzedQuery, Retriever } from '../retriever.js';

/**
 * `prefix`: partial words. Each query word of at least minPrefixLength letters also
 * matches the vocabulary terms it begins ("screen" -> "screenshot", "calend" ->
 * "calendar", "git" -> "github"); a completion weighs the share of it that was typed.
 * Completions only: with none, no opinion.
 */
export function createPrefixRetriever({ corpus, vocabulary }: RetrieverContext): Retriever {
  const { minPrefixLength, maxExpansions, minCompletionWeight } = DEFAULTS.prefix;
  const completes = (term: string) =>
    term.length >= minPrefixLength && vocabulary.completions(term, 1).length > 0;
  /** Appends the completions of one query word to `terms` (after its own words) and `matched`. */
  const expand = (word: string, term: string, terms: WeightedTerm[], matched: string[]) => {
    if (word.length < minPrefixLength) return;
    const completions = vocabulary.shortestCompletions(word, term, maxExpansions);
    for (let i = 0; i < completions.length; i++) {
      const completion = completions[i]!;
      terms.push({
        term: completion,
        weight: Math.max(minCompletionWeight, term.length / completion.length),
      });
      matched.push(completion);
    }
  };
  return {
    name: 'prefix',
    add() {},
    remove() {},
    weightFor: (query: AnalyzedQuery) => literalWeight(corpus, query, completes),
    retrieve(query: AnalyzedQuery, limit, accept) {
      // The query's own words first, as keyword's ranking sums them (Corpus.topBm25f shares that sum).
      const { terms: own, words } = query;
      const terms = weightedTerms(own);
      const matched: string[] = [];
      const count = terms.length;
      for (let i = 0; i < own.length; i++) {
        const term = own[i]!;
        expand(words[i] ?? term, term, terms, matched);
      }
      // A half-typed last word can look like a stop word ("list even" -> "events"), which
      // analysis dropped; short queries get it back here.
      if (query.shape !== 'natural') {
        const last = lastWord(query.normalized);
        if (STOP_WORDS.has(last)) expand(last, last, terms, matched);
      }
      if (terms.length === count) return [];
      return corpus.topBm25f(uniqueTerms(terms), limit, accept, query.shape, matched);
    },
  };
}

/**
 * The last space-separated word of a normalised query, letters and digits only. Checked
 * with a loop first: once per search, a split and a Unicode-class replace cost more than
 * the stop-word check they feed, and the last word is nearly always letters already.
 */
function lastWord(normalized: string): string {
  const word = normalized.slice(normalized.lastIndexOf(' ') + 1);
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90)))
      return word.replace(/[^\p{L}\p{N}]+/gu, '');
  }
  return word;
}
