import { STOP_WORDS } from '../analysis/stopwords.js';
import { uniqueTerms, type WeightedTerm } from '../corpus.js';
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
  return {
    name: 'prefix',
    add() {},
    remove() {},
    weightFor: (query: AnalyzedQuery) => literalWeight(corpus, query, completes),
    retrieve(query: AnalyzedQuery, limit, accept) {
      // The query's own words first, as keyword's ranking sums them (Corpus.topBm25f shares that sum).
      const terms: WeightedTerm[] = query.terms.map((term) => ({ term, weight: 1 }));
      const completed: WeightedTerm[] = [];
      const matched: string[] = [];
      const complete = (word: string, term: string) => {
        if (word.length < minPrefixLength) return;
        const completions = new Set([
          ...vocabulary.completions(word, maxExpansions),
          ...vocabulary.completions(term, maxExpansions),
        ]);
        completions.delete(term);
        const shortestFirst = [...completions].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
        for (const completion of shortestFirst.slice(0, maxExpansions)) {
          completed.push({
            term: completion,
            weight: Math.max(minCompletionWeight, term.length / completion.length),
          });
          matched.push(completion);
        }
      };
      query.terms.forEach((term, i) => {
        complete(query.words[i] ?? term, term);
      });
      // A half-typed last word can look like a stop word ("list even" -> "events"), which
      // analysis dropped; short queries get it back here.
      const last =
        query.normalized
          .split(' ')
          .at(-1)
          ?.replace(/[^\p{L}\p{N}]+/gu, '') ?? '';
      if (query.shape !== 'natural' && STOP_WORDS.has(last)) complete(last, last);
      if (matched.length === 0) return [];
      return corpus.topBm25f(uniqueTerms([...terms, ...completed]), limit, accept, query.shape, matched);
    },
  };
}
