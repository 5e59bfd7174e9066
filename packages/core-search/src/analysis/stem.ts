import model from 'wink-eng-lite-web-model';
import { DEFAULTS } from '../defaults.js';

/**
 * Porter2 stemming via wink-nlp's English model addon, memoised per unique word:
 * a 10k-tool registry has a few tens of thousands of distinct words but millions of
 * occurrences, so the cache is what keeps indexing under two seconds.
 */
type Stemmer = (word: string) => string;

const porter2 = (model as unknown as { addons: { stem: Stemmer } }).addons.stem;
const cache = new Map<string, string>();
/** Bound the memo so a long-running server fed arbitrary queries cannot grow it forever. */
const MAX_CACHE = 200_000;

export function stem(word: string): string {
  let stemmed = cache.get(word);
  if (stemmed === undefined) {
    // Porter2 is for English words; numbers, codes and very short words pass unchanged.
    // Nor do words longer than any English word: Porter2's suffix rules take time
    // quadratic in the length (a 1,000-letter word took 50 ms).
    stemmed =
      word.length <= 3 || word.length > DEFAULTS.analysis.maxStemChars || /\d/.test(word)
        ? word
        : porter2(word);
    if (cache.size >= MAX_CACHE) cache.clear();
    cache.set(word, stemmed);
  }
  return stemmed;
}
