import { DEFAULTS } from '../defaults.js';
import type { AnalyzedQuery, IndexedDoc, Retriever } from '../retriever.js';
import { topK } from './top-k.js';

/** Distinct character n-grams of a word sequence joined without separators, with edge markers. */
export function charNgrams(words: readonly string[], n: number = DEFAULTS.ngram.n): Set<string> {
  const text = `^${words.join('')}$`;
  const grams = new Set<string>();
  for (let i = 0; i + n <= text.length; i++) grams.add(text.slice(i, i + n));
  return grams;
}

/**
 * `ngram`: character trigrams of the tool name against those of the query, compared as
 * sets (cosine). Compounds and split words meet here: "screenshot" vs "screen_shot",
 * "takescreenshot" vs "take_screenshot", "filesystem" vs "file-system".
 */
export function createNgramRetriever(): Retriever {
  const postings = new Map<string, Set<number>>();
  const gramsOf = new Map<number, Set<string>>();
  return {
    name: 'ngram',
    add(docs: readonly IndexedDoc[]) {
      for (const doc of docs) {
        const grams = charNgrams(doc.nameWords);
        gramsOf.set(doc.id, grams);
        for (const gram of grams) {
          const ids = postings.get(gram) ?? new Set<number>();
          ids.add(doc.id);
          postings.set(gram, ids);
        }
      }
    },
    remove(ids) {
      for (const id of ids) {
        for (const gram of gramsOf.get(id) ?? []) {
          const set = postings.get(gram);
          set?.delete(id);
          if (set?.size === 0) postings.delete(gram);
        }
        gramsOf.delete(id);
      }
    },
    retrieve(query: AnalyzedQuery, limit, accept) {
      const grams = charNgrams(query.words);
      if (grams.size <= 2) return []; // one or two letters: every name matches
      const shared = new Map<number, number>();
      for (const gram of grams) {
        for (const id of postings.get(gram) ?? []) shared.set(id, (shared.get(id) ?? 0) + 1);
      }
      const scores = new Map<number, number>();
      for (const [id, count] of shared) {
        if (accept && !accept(id)) continue;
        scores.set(id, count / Math.sqrt(grams.size * gramsOf.get(id)!.size));
      }
      return topK(scores, limit);
    },
  };
}
