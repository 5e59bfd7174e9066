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
  readonly gram: string;
  ids: Int32Array;
  length: number;
  /** The document whose grams were last counted into this list (a name repeats grams). */
  stamp: number;
  /** Ids an add() is about to write (0 between adds). */
  pending: number;
}

const EMPTY_IDS = new Int32Array(0);

/** Put `id` into the ascending ids, which have room for it (appended unless a tool is re-indexed under an old id). */
function insertId(list: GramList, id: number): void {
  const length = list.length;
  if (length === 0 || list.ids[length - 1]! < id) {
    // Appending, as every add() of new tools does, without a copyWithin call per id: ngram
    // add() of the ~100k-tool corpus 422 -> 312 ms CPU (median of 7, interleaved, load 8).
    list.ids[length] = id;
    list.length = length + 1;
    return;
  }
  let at = length;
  while (at > 0 && list.ids[at - 1]! > id) at--;
  list.ids.copyWithin(at + 1, at, list.length);
  list.ids[at] = id;
  list.length++;
}

/** Digits of a gram code: '^' and '$' (the edge markers), a-z, 0-9; 0 for any other character. */
const GRAM_RADIX = 39;
const GRAM_DIGIT = new Uint8Array(128);
GRAM_DIGIT['^'.charCodeAt(0)] = 1;
GRAM_DIGIT['$'.charCodeAt(0)] = 2;
for (let c = 0; c < 26; c++) GRAM_DIGIT[97 + c] = 3 + c;
for (let c = 0; c < 10; c++) GRAM_DIGIT[48 + c] = 29 + c;
/** Direct-addressed codes while they fit this many slots (n = 3: 39^3, 59,319); longer grams are looked up by text. */
const MAX_GRAM_CODES = 1 << 20;

/** The gram of `n` characters at `at` as a number, or -1 when one is outside GRAM_DIGIT's alphabet. */
function gramCode(text: string, at: number, n: number): number {
  let code = 0;
  for (let k = 0; k < n; k++) {
    const c = text.charCodeAt(at + k);
    const digit = c < 128 ? GRAM_DIGIT[c]! : 0;
    if (digit === 0) return -1;
    code = code * GRAM_RADIX + digit;
  }
  return code;
}

/**
 * `ngram`: character trigrams of the tool name against those of the query, compared as
 * sets (cosine). Compounds and split words meet here: "screenshot" vs "screen_shot",
 * "takescreenshot" vs "take_screenshot", "filesystem" vs "file-system".
 */
export function createNgramRetriever({ docs }: Pick<RetrieverContext, 'docs'>): Retriever {
  const gramLength = DEFAULTS.ngram.n;
  const codes = GRAM_RADIX ** gramLength <= MAX_GRAM_CODES ? GRAM_RADIX ** gramLength : 0;
  /**
   * Gram lists in order of first appearance (a removed gram leaves a hole), found by code
   * for grams of a-z, 0-9 and the edges (nearly every name), by text for the rest. A name's
   * grams are read as numbers from its characters: making a string of each gram and a Set
   * per name, and a Map lookup by string per gram, were most of indexing names.
   * Ids are in typed arrays: a JS array of ids was 8 bytes an id plus its growth slack
   * (~17 MB of postings at 100k tools, now ~7).
   */
  const lists: (GramList | undefined)[] = [];
  const byCode = new Int32Array(codes).fill(-1);
  const byText = new Map<string, number>();
  /** A gram string's code (-1: looked up by text). */
  const codeOf = (gram: string) =>
    codes > 0 && gram.length === gramLength ? gramCode(gram, 0, gramLength) : -1;
  const listOf = (gram: string): GramList | undefined => {
    const code = codeOf(gram);
    const index = code >= 0 ? byCode[code]! : (byText.get(gram) ?? -1);
    return index < 0 ? undefined : lists[index];
  };
  /** A new gram's list, holding `ids` (length `length`); returns its index. */
  const newList = (gram: string, ids: Int32Array, length: number, code: number): number => {
    const index = lists.length;
    if (code >= 0) byCode[code] = index;
    else byText.set(gram, index);
    lists.push({ gram, ids, length, stamp: -1, pending: 0 });
    return index;
  };
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
      // Each document's distinct grams as list indexes, in document order; then every
      // touched list grows once (to exactly its size when the gram is new, as in a first
      // build), then the ids are written. Growing lists by doubling as ids came, and
      // trimming the slack after, copied every list two or three times.
      // Documents with the same bare name share one nameWords array (identifierWords'
      // memo): registries repeat bare names ("search", "create_issue", a server's forks and
      // mirrors), and such a document reads the grams its first holder found instead of
      // joining its words and coding its grams again: ngram add() of the ~100k-tool corpus
      // 361 -> 277 and 395 -> 282 ms CPU (two runs, median of 11, old and new interleaved in
      // one process, load 4.4-6.3).
      const owner = new Int32Array(added.length);
      const firstWith = new Map<readonly string[], number>();
      const texts: string[] = new Array(added.length);
      let bound = 0;
      for (let d = 0; d < added.length; d++) {
        const words = added[d]!.nameWords;
        const first = firstWith.get(words);
        if (first !== undefined) {
          owner[d] = first;
          continue;
        }
        firstWith.set(words, d);
        owner[d] = d;
        const text = `^${words.join('')}$`;
        texts[d] = text;
        bound += Math.max(0, text.length - gramLength + 1);
      }
      const sequence = new Int32Array(bound);
      /** Where each document's distinct grams start in `sequence` (its first holder's). */
      const starts = new Int32Array(added.length);
      const touched: number[] = [];
      let at = 0;
      for (let d = 0; d < added.length; d++) {
        const id = added[d]!.id;
        capacity = Math.max(capacity, id + 1);
        if (capacity > gramCounts.length) {
          const grown = new Int32Array(Math.max(capacity, gramCounts.length * 2));
          grown.set(gramCounts);
          gramCounts = grown;
        }
        const first = owner[d]!;
        if (first !== d) {
          // The first holder's grams are distinct already, and its id is below this one.
          const from = starts[first]!;
          const distinct = gramCounts[added[first]!.id]!;
          starts[d] = from;
          for (let i = from; i < from + distinct; i++) {
            const list = lists[sequence[i]!]!;
            list.stamp = id;
            if (list.pending++ === 0) touched.push(sequence[i]!);
          }
          gramCounts[id] = distinct;
          continue;
        }
        // The grams of charNgrams(doc.nameWords), each counted once per document.
        const text = texts[d]!;
        starts[d] = at;
        let distinct = 0;
        for (let i = 0; i + gramLength <= text.length; i++) {
          const code = codes > 0 ? gramCode(text, i, gramLength) : -1;
          const gram = code >= 0 ? undefined : text.slice(i, i + gramLength);
          let index = code >= 0 ? byCode[code]! : (byText.get(gram!) ?? -1);
          if (index < 0) index = newList(gram ?? text.slice(i, i + gramLength), EMPTY_IDS, 0, code);
          const list = lists[index]!;
          if (list.stamp === id) continue;
          list.stamp = id;
          if (list.pending++ === 0) touched.push(index);
          sequence[at++] = index;
          distinct++;
        }
        gramCounts[id] = distinct;
      }
      for (const index of touched) {
        const list = lists[index]!;
        const needed = list.length + list.pending;
        list.pending = 0;
        const size = list.ids.length;
        if (needed <= size) continue;
        // A view of a saved array (its size is its length) is copied here, never written.
        const grown = new Int32Array(size === 0 ? needed : Math.max(needed, size * 2));
        grown.set(list.ids.subarray(0, list.length));
        list.ids = grown;
      }
      for (let d = 0; d < added.length; d++) {
        const id = added[d]!.id;
        const from = starts[d]!;
        const end = from + gramCounts[id]!;
        for (let i = from; i < end; i++) insertId(lists[sequence[i]!]!, id);
      }
      // An add that (at least) doubled the index leaves the lists as long as they will stay
      // for a while: the doubling slack of lists that held ids before is given back.
      indexed += added.length;
      if (added.length * 2 >= indexed) {
        for (const list of lists) {
          if (list && list.ids.length > list.length) list.ids = list.ids.slice(0, list.length);
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
        const code = codeOf(gram);
        const index = code >= 0 ? byCode[code]! : (byText.get(gram) ?? -1);
        if (index < 0) continue;
        const list = lists[index]!;
        // A new array: a loaded index's lists are views of the saved array, never written.
        const left = list.ids.subarray(0, list.length).filter((id) => !gone.has(id));
        if (left.length > 0) {
          list.ids = left;
          list.length = left.length;
          list.stamp = -1;
          continue;
        }
        // Gone: a gram that comes back is listed after the others, as a Map would list it.
        lists[index] = undefined;
        if (code >= 0) byCode[code] = -1;
        else byText.delete(gram);
      }
    },
    exportState(dense): SavedState {
      const kept = lists.filter((list) => list !== undefined);
      const grams = kept.map((list) => list.gram);
      const starts = new Int32Array(grams.length + 1);
      let total = 0;
      kept.forEach((list, g) => {
        total += list.length;
        starts[g + 1] = total;
      });
      const ids = new Int32Array(total);
      kept.forEach((list, g) => {
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
      // A plain loop and a small checking function, not a forEach callback with the check
      // inline: this runs once per load, and the callback stayed unoptimised through ~1.6M ids
      // (~10k grams) of the ~100k-tool index.
      for (let g = 0; g < grams.length; g++) {
        const gram = grams[g]!;
        const from = starts[g]!;
        const to = starts[g + 1]!;
        if (to <= from) invalidIndex(`ngram: gram ${g} has no ids or its starts are out of order`);
        const bad = firstBadId(ids, from, to, counts, count);
        if (bad !== -1)
          invalidIndex(`ngram: id ${ids[bad]} of gram ${g} is not a document below ${count} with grams`);
        if (listOf(gram)) invalidIndex(`ngram: gram "${gram}" appears twice`);
        // A view of the saved array: insertId copies a list before it grows.
        newList(gram, ids.subarray(from, to), to - from, codeOf(gram));
      }
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
        const list = listOf(gram);
        if (!list) continue;
        const { ids } = list;
        for (let i = 0; i < list.length; i++) {
          const id = ids[i]!;
          if (shared[id]!++ === 0) reached[n++] = id;
        }
      }
      const { ids, scores } = candidates(n);
      const { minSimilarity } = DEFAULTS.ngram;
      const queryGrams = grams.size;
      let kept = 0;
      for (let i = 0; i < n; i++) {
        const id = reached[i]!;
        const count = shared[id]!;
        shared[id] = 0;
        if (accept && !accept(id)) continue;
        // Cosine over gram sets; a few shared grams ("ate", "te$") are chance, not evidence.
        const score = count / Math.sqrt(queryGrams * gramCounts[id]!);
        if (score < minSimilarity) continue;
        ids[kept] = id;
        scores[kept] = score;
        kept++;
      }
      return bestOf(ids, scores, kept, limit).map((i): RetrievalHit => ({ id: ids[i]!, score: scores[i]! }));
    },
  };
}

/**
 * The first of ids[from..to) that is not a document below `count` with grams (counts[id] > 0:
 * a listed id with no grams would divide by zero in the cosine), or -1.
 */
function firstBadId(ids: Int32Array, from: number, to: number, counts: Int32Array, count: number): number {
  for (let i = from; i < to; i++) {
    const id = ids[i]!;
    if (!(id >= 0 && id < count) || counts[id]! <= 0) return i;
  }
  return -1;
}
