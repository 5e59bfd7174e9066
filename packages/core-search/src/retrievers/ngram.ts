import { DEFAULTS } from '../defaults.js';
import type { AnalyzedQuery, IndexedDoc, RetrievalHit, Retriever } from '../retriever.js';
import { Scores, topHits } from '../top-k.js';

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
  const postings = new Map<string, number[]>();
  /**
   * Each doc's name words (the doc's own array, not a copy), to find its grams again on
   * remove(): a Set of gram strings per doc was a kilobyte a tool, a quarter of the
   * index's memory at 50k tools; removal is rare and recomputing is cheap.
   */
  const wordsOf = new Map<number, readonly string[]>();
  /** Distinct grams per doc id, read for every candidate of every search. */
  let gramCounts = new Int32Array(64);
  let capacity = 0;
  return {
    name: 'ngram',
    add(docs: readonly IndexedDoc[]) {
      for (const doc of docs) {
        const grams = charNgrams(doc.nameWords);
        wordsOf.set(doc.id, doc.nameWords);
        capacity = Math.max(capacity, doc.id + 1);
        if (capacity > gramCounts.length) {
          const grown = new Int32Array(Math.max(capacity, gramCounts.length * 2));
          grown.set(gramCounts);
          gramCounts = grown;
        }
        gramCounts[doc.id] = grams.size;
        for (const gram of grams) {
          const ids = postings.get(gram);
          if (ids) ids.push(doc.id);
          else postings.set(gram, [doc.id]);
        }
      }
    },
    remove(ids) {
      const gone = new Set(ids);
      const touched = new Set<string>();
      for (const id of ids) {
        const words = wordsOf.get(id);
        if (words) for (const gram of charNgrams(words)) touched.add(gram);
        wordsOf.delete(id);
        gramCounts[id] = 0;
      }
      for (const gram of touched) {
        const left = postings.get(gram)?.filter((id) => !gone.has(id)) ?? [];
        if (left.length > 0) postings.set(gram, left);
        else postings.delete(gram);
      }
    },
    retrieve(query: AnalyzedQuery, limit, accept) {
      const grams = charNgrams(query.words);
      if (grams.size <= 2) return []; // one or two letters: every name matches
      const shared = new Scores(capacity);
      for (const gram of grams) {
        for (const id of postings.get(gram) ?? []) shared.add(id, 1);
      }
      // Cosine over gram sets; a few shared grams ("ate", "te$") are chance, not evidence.
      const hits: RetrievalHit[] = [];
      shared.forEach((id, count) => {
        if (accept && !accept(id)) return;
        const score = count / Math.sqrt(grams.size * gramCounts[id]!);
        if (score >= DEFAULTS.ngram.minSimilarity) hits.push({ id, score });
      });
      shared.release();
      return topHits(hits, limit);
    },
  };
}
