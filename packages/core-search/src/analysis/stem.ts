import { createRequire } from 'node:module';
import { DEFAULTS } from '../defaults.js';

/**
 * Porter2 (English Snowball) stemming, memoised per unique word: a 10k-tool registry has
 * a few tens of thousands of distinct words but millions of occurrences, so the cache is
 * what keeps indexing under two seconds. wink-porter2-stemmer is the stemmer the
 * wink-eng-lite-web-model addon used before (checked identical on all 63,220 distinct
 * words of every dataset's tools and queries), without the 3.8 MB language model.
 */
// One CommonJS function without type declarations: required, and typed here.
const porter2 = createRequire(import.meta.url)('wink-porter2-stemmer') as (word: string) => string;
const cache = new Map<string, string>();

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
    if (cache.size >= DEFAULTS.memos.maxStems) cache.clear();
    cache.set(word, stemmed);
  }
  return stemmed;
}
