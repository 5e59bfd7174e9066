import { distance } from 'fastest-levenshtein';
import { uniqueTerms, type WeightedTerm } from '../corpus.js';
import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
import type { AnalyzedQuery, Retriever } from '../retriever.js';
import { oneEditApart } from './exact.js';

/** Allowed edits grow with word length: "calender" may be 1 edit off, "pr" none. */
export function maxEdits(word: string): number {
  const { minWordLength, longWordLength } = DEFAULTS.fuzzy;
  if (word.length < minWordLength) return 0;
  return word.length < longWordLength ? 1 : 2;
}

/**
 * `fuzzy`: typo-tolerant BM25F. Each query word not already common in the corpus is
 * replaced by the vocabulary terms within its edit budget (Levenshtein, via a
 * length + letter-set candidate filter), each weighted by how close it is. A query
 * with no misspelling gets no opinion instead of a copy of the keyword ranking.
 */
export function createFuzzyRetriever({ corpus, vocabulary }: RetrieverContext): Retriever {
  return {
    name: 'fuzzy',
    add() {},
    remove() {},
    retrieve(query: AnalyzedQuery, limit, accept) {
      // The query's own words first, as keyword's ranking sums them (Corpus.topBm25f shares that sum).
      // Loops, not forEach and spreads: this runs once per search, unoptimised for the first
      // thousand or so searches; most query words are known and stop at their df.
      const terms: WeightedTerm[] = [];
      const neighbours: WeightedTerm[] = [];
      const matched: string[] = [];
      const { terms: own, words } = query;
      for (let i = 0; i < own.length; i++) {
        const term = own[i]!;
        const word = words[i] ?? term;
        const df = corpus.df(term);
        if (df > 0) terms.push({ term, weight: 1 });
        if (df >= DEFAULTS.fuzzy.knownDf) continue;
        const edits = maxEdits(word);
        if (edits === 0) continue;
        const near: { term: string; d: number }[] = [];
        const candidates = vocabulary.candidates(word, edits);
        for (let c = 0; c < candidates.length; c++) {
          const candidate = candidates[c]!;
          if (candidate === term) continue;
          // Two typos and a wrong first letter is another word, not a misspelling.
          if (edits > 1 && candidate[0] !== word[0]) continue;
          let d = Math.min(distance(word, candidate), distance(term, candidate));
          if (d === 2 && oneEditApart(word, candidate)) d = 1; // swapped neighbours are one typo
          if (d <= edits) near.push({ term: candidate, d });
        }
        near.sort((a, b) => a.d - b.d || corpus.df(b.term) - corpus.df(a.term) || (a.term < b.term ? -1 : 1));
        for (let n = 0; n < near.length && n < DEFAULTS.fuzzy.maxNeighbours; n++) {
          const { term: neighbour, d } = near[n]!;
          neighbours.push({ term: neighbour, weight: 1 - d / word.length });
          matched.push(neighbour);
        }
      }
      if (matched.length === 0) return [];
      for (let n = 0; n < neighbours.length; n++) terms.push(neighbours[n]!);
      return corpus.topBm25f(uniqueTerms(terms), limit, accept, query.shape, matched);
    },
  };
}
