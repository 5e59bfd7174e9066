import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
import type { AnalyzedQuery, IndexedDoc, RetrievalHit, Retriever, SavedState } from '../retriever.js';
import { invalidIndex } from '../serialize.js';
import { bestOf, candidates } from '../top-k.js';

/** Distinct character n-grams of a word sequence joined without separators, with edge markers. */
export function charNgrams(words: readonly string[], n: number = DEFAULTS.ngram.n): Set<string> {
  const text = `^${words.join('')}$`;
  const grams = new Set<string>();
  for (let i = 0; i + n <= text.length; i++) grams.add(text.slice(i, i + n));
  return grams;
}

/** A gram's document ids, ascending; `length` of them in use. */
interface GramList {
  ids: Int32Array;
  length: number;
}

/** Add `id` to the ascending ids (appended unless a tool is re-indexed under an old id). */
function insertId(list: GramList, id: number): void {
  if (list.length === list.ids.length) {
    const grown = new Int32Array(list.length * 2);
    grown.set(list.ids);
    list.ids = grown;
  }
  let at = list.length;
  while (at > 0 && list.ids[at - 1]! > id) at--;
  list.ids.copyWithin(at + 1, at, list.length);
  list.ids[at] = id;
  list.length++;
}

/**
 * `ngram`: character trigrams of the tool name against those of the query, compared as
 * sets (cosine). Compounds and split words meet here: "screenshot" vs "screen_shot",
 * "takescreenshot" vs "take_screenshot", "filesystem" vs "file-system".
 */
export function createNgramRetriever({ docs }: Pick<RetrieverContext, 'docs'>): Retriever {
  /**
   * Ids of the documents with a gram, ascending, in a typed array: a JS array of ids was
   * 8 bytes an id plus its growth slack (~17 MB of postings at 100k tools, now ~7).
   */
  const postings = new Map<string, GramList>();
  /** Distinct grams per doc id, read for every candidate of every search. */
  let gramCounts = new Int32Array(64);
  let capacity = 0;
  let indexed = 0;
  /** Search scratch by doc id: shared grams (zeroed again after each search), and the ids reached. */
  let shared = new Int32Array(0);
  let reached = new Int32Array(0);
  return {
    name: 'ngram',
    add(added: readonly IndexedDoc[]) {
      for (const doc of added) {
        const grams = charNgrams(doc.nameWords);
        capacity = Math.max(capacity, doc.id + 1);
        if (capacity > gramCounts.length) {
          const grown = new Int32Array(Math.max(capacity, gramCounts.length * 2));
          grown.set(gramCounts);
          gramCounts = grown;
        }
        gramCounts[doc.id] = grams.size;
        for (const gram of grams) {
          const list = postings.get(gram);
          if (list) insertId(list, doc.id);
          else postings.set(gram, { ids: Int32Array.of(doc.id), length: 1 });
        }
      }
      // An add that (at least) doubled the index, such as the first, leaves the lists as
      // long as they will stay for a while: their doubling slack is given back.
      indexed += added.length;
      if (added.length * 2 >= indexed) {
        for (const list of postings.values()) {
          if (list.ids.length > list.length) list.ids = list.ids.slice(0, list.length);
        }
      }
    },
    remove(ids) {
      // A removed document's grams are made again from its name (the engine removes a
      // document from its retrievers before it drops it): holding them was a kilobyte a
      // tool, a quarter of the index's memory at 50k tools; removal is rare.
      const gone = new Set(ids);
      const touched = new Set<string>();
      for (const id of ids) {
        const doc = docs.get(id);
        if (!doc) continue;
        indexed--;
        for (const gram of charNgrams(doc.nameWords)) touched.add(gram);
        gramCounts[id] = 0;
      }
      for (const gram of touched) {
        const list = postings.get(gram);
        if (!list) continue;
        // A new array: a loaded index's lists are views of the saved array, never written.
        const left = list.ids.subarray(0, list.length).filter((id) => !gone.has(id));
        if (left.length > 0) postings.set(gram, { ids: left, length: left.length });
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
        for (let i = 0; i < list.length; i++) ids[starts[g]! + i] = dense[list.ids[i]!]!;
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
        // A view of the saved array: insertId copies a list before it grows.
        postings.set(gram, { ids: ids.subarray(from, to), length: to - from });
      });
      gramCounts = new Int32Array(Math.max(64, count));
      gramCounts.set(counts);
      capacity = count;
      indexed = count;
      return true;
    },
    retrieve(query: AnalyzedQuery, limit, accept) {
      const grams = charNgrams(query.words);
      if (grams.size <= 2) return []; // one or two letters: every name matches
      // Shared grams counted per document in a dense array, then the cosine of only those
      // that clear the bar, selected in place: a hit object and a float accumulator entry
      // for every document sharing a gram ("ile", "te$": thousands) cost twice the counting.
      if (shared.length < capacity) {
        shared = new Int32Array(gramCounts.length);
        reached = new Int32Array(gramCounts.length);
      }
      let n = 0;
      for (const gram of grams) {
        const list = postings.get(gram);
        if (!list) continue;
        const { ids } = list;
        for (let i = 0; i < list.length; i++) {
          const id = ids[i]!;
          if (shared[id]!++ === 0) reached[n++] = id;
        }
      }
      const { ids, scores } = candidates(n);
      let kept = 0;
      for (let i = 0; i < n; i++) {
        const id = reached[i]!;
        const count = shared[id]!;
        shared[id] = 0;
        if (accept && !accept(id)) continue;
        // Cosine over gram sets; a few shared grams ("ate", "te$") are chance, not evidence.
        const score = count / Math.sqrt(grams.size * gramCounts[id]!);
        if (score < DEFAULTS.ngram.minSimilarity) continue;
        ids[kept] = id;
        scores[kept] = score;
        kept++;
      }
      return bestOf(ids, scores, kept, limit).map((i): RetrievalHit => ({ id: ids[i]!, score: scores[i]! }));
    },
  };
}
