import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
import type { AnalyzedQuery, IndexedDoc, RetrievalHit, Retriever, SavedState } from '../retriever.js';
import { invalidIndex } from '../serialize.js';
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
export function createNgramRetriever(context?: Pick<RetrieverContext, 'docs'>): Retriever {
  /** Ids by gram; a loaded index's lists are views of the saved array until one changes. */
  const postings = new Map<string, number[] | Int32Array>();
  /**
   * Each doc's name words (the doc's own array, not a copy), to find its grams again on
   * remove(): a Set of gram strings per doc was a kilobyte a tool, a quarter of the
   * index's memory at 50k tools; removal is rare and recomputing is cheap. Documents of a
   * saved index are not listed: their words are read from the document on removal.
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
          if (Array.isArray(ids)) ids.push(doc.id);
          else postings.set(gram, ids ? [...ids, doc.id] : [doc.id]);
        }
      }
    },
    remove(ids) {
      const gone = new Set(ids);
      const touched = new Set<string>();
      for (const id of ids) {
        const words = wordsOf.get(id) ?? context?.docs.get(id)?.nameWords;
        if (words) for (const gram of charNgrams(words)) touched.add(gram);
        wordsOf.delete(id);
        gramCounts[id] = 0;
      }
      for (const gram of touched) {
        const left = Array.from(postings.get(gram) ?? []).filter((id) => !gone.has(id));
        if (left.length > 0) postings.set(gram, left);
        else postings.delete(gram);
      }
    },
    exportState(dense): SavedState {
      const grams = [...postings.keys()];
      const starts = new Int32Array(grams.length + 1);
      let total = 0;
      grams.forEach((gram, g) => {
        total += postings.get(gram)!.length;
        starts[g + 1] = total;
      });
      const ids = new Int32Array(total);
      grams.forEach((gram, g) => {
        const list = postings.get(gram)!;
        for (let i = 0; i < list.length; i++) ids[starts[g]! + i] = dense[list[i]!]!;
      });
      // One count per document in the file, in file order (removed ids have none).
      const counts: number[] = [];
      for (let id = 0; id < capacity; id++) if (dense[id]! >= 0) counts.push(gramCounts[id]!);
      return { strings: { grams }, arrays: { starts, ids, counts: Int32Array.from(counts) } };
    },
    importState(state, count) {
      const grams = state.strings?.grams;
      const { starts, ids, counts } = state.arrays ?? {};
      if (
        !grams ||
        !(starts instanceof Int32Array) ||
        !(ids instanceof Int32Array) ||
        !(counts instanceof Int32Array)
      )
        invalidIndex('ngram: grams, starts, ids and counts are required');
      if (starts.length !== grams.length + 1 || starts[0] !== 0 || starts[grams.length] !== ids.length)
        invalidIndex(`ngram: ${starts.length} starts for ${grams.length} grams and ${ids.length} ids`);
      if (counts.length !== count) invalidIndex(`ngram: ${counts.length} gram counts for ${count} documents`);
      grams.forEach((gram, g) => {
        const from = starts[g]!;
        const to = starts[g + 1]!;
        if (to <= from) invalidIndex(`ngram: gram ${g} has no ids or its starts are out of order`);
        for (let i = from; i < to; i++) {
          // A listed id with no grams would divide by zero in the cosine.
          if (!(ids[i]! >= 0 && ids[i]! < count) || counts[ids[i]!]! <= 0)
            invalidIndex(`ngram: id ${ids[i]} of gram ${g} is not a document below ${count} with grams`);
        }
        if (postings.has(gram)) invalidIndex(`ngram: gram "${gram}" appears twice`);
        postings.set(gram, ids.subarray(from, to));
      });
      gramCounts = new Int32Array(Math.max(64, count));
      gramCounts.set(counts);
      capacity = count;
      return true;
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
