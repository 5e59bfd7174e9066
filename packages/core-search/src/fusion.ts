import type { RetrievalHit } from './retriever.js';
import { bestOf } from './top-k.js';
import type { StrategyMatch, StrategyName } from './types.js';

/** One strategy's ranking, as fusion consumes it. */
export interface StrategyRanking {
  strategy: StrategyName;
  weight: number;
  hits: readonly RetrievalHit[];
}

export interface FusedHit {
  id: number;
  score: number;
  pinned: boolean;
  matchedBy: StrategyMatch[];
}

/**
 * Ids that are non-negative int32s (doc ids) find their slot in an open-addressing table;
 * others (fuse is exported) through a Map.
 */
const isIndexId = (id: number) => (id | 0) === id && id >= 0 && id < 0x7fffffff;

/**
 * Scratch kept between calls (fusion is synchronous). The id -> slot table: id + 1 (0 for
 * empty) and slot per entry, sized to twice the hits and zeroed again where it was written.
 * A dense array by id (as long as the largest id) spread a search's few hundred candidates
 * over as many cache lines, missed again whenever other work had evicted them; this table
 * is a few kilobytes (10k tools, the latency queries: lexical search CPU -2%, per-query
 * medians of 100 rounds, same process, interleaved with the sources before, load 4-8). Per hit, its candidate's slot and its rank; per slot, its place
 * in the output (-1 for none). Typed arrays allocated per call were a fifth of its cost.
 */
let tableIds = new Int32Array(2048);
let tableSlots = new Int32Array(2048);
let hitSlots = new Int32Array(1024);
let hitRanks = new Int32Array(1024);
let outputOf = new Int32Array(1024);
/**
 * Per slot: its candidate's id, the id's place in ascending order (the id itself when dense:
 * ties break on it, as an Int32Array like every selection's), summed score, and 1 when
 * pinned. Each call writes what it reads.
 */
let slotIds = new Float64Array(1024);
let slotKeys = new Int32Array(1024);
let slotScores = new Float64Array(1024);
let slotPinned = new Uint8Array(1024);
/** Per slot, its entry in the id table (-1 for an id found through the Map): cleared from there. */
let slotEntries = new Int32Array(1024);

/**
 * Weighted reciprocal-rank fusion: score(d) = sum over strategies of w / (k + rank).
 * RRF uses ranks only, so BM25 scores, cosines and edit distances never have to be
 * made comparable. Tied scores within a strategy share a rank (competition ranking),
 * so a strategy that cannot tell tools apart (all tools of a toolset) favours none.
 * Pinned hits (exact names) come first. Ties: ascending id, i.e. insertion order.
 *
 * Only the best `limit` fused hits are returned (all by default), and only they get their
 * `matchedBy` list: a search shows ten and reads thirty of the ~300 candidates its
 * rankings bring. An entry object, a Map entry and a sorted list of match objects for
 * every candidate, and a sort of all candidates, made fusion cost as much as a BM25F
 * ranking; now a third of that (10k tools, the latency queries: 89 -> 28 µs a fusion, same process, min of 20 rounds).
 */
export function fuse(
  rankings: readonly StrategyRanking[],
  k: number,
  limit: number = Number.POSITIVE_INFINITY,
  /** Only the best `detail` fused hits get their matchedBy list (the rest an empty one): a search shows fewer hits than it reads. */
  detail: number = limit,
): FusedHit[] {
  let total = 0;
  for (const { hits } of rankings) total += hits.length;
  if (tableIds.length < total * 2) {
    let size = tableIds.length;
    while (size < total * 2) size *= 2;
    tableIds = new Int32Array(size);
    tableSlots = new Int32Array(size);
  }
  const table = tableIds;
  const tableSlot = tableSlots;
  const mask = table.length - 1;
  if (hitSlots.length < total) {
    hitSlots = new Int32Array(Math.max(total, hitSlots.length * 2));
    hitRanks = new Int32Array(hitSlots.length);
  }
  // Candidates by slot, in order of first appearance; scores summed in ranking order. At
  // most `total` slots: the per-slot scratch is sized to that first.
  if (slotIds.length < total) {
    const size = Math.max(total, slotIds.length * 2);
    slotIds = new Float64Array(size);
    slotKeys = new Int32Array(size);
    slotScores = new Float64Array(size);
    slotPinned = new Uint8Array(size);
    slotEntries = new Int32Array(size);
  }
  const ids = slotIds;
  const scores = slotScores;
  const pinned = slotPinned;
  let slots = 0;
  let anyPinned = false;
  let sparse: Map<number, number> | undefined;
  let at = 0;
  for (const { weight, hits } of rankings) {
    let rank = 0;
    let previous = Number.NaN;
    for (let position = 0; position < hits.length; position++, at++) {
      const hit = hits[position]!;
      if (hit.score !== previous) {
        rank = position + 1;
        previous = hit.score;
      }
      const id = hit.id;
      const indexed = isIndexId(id);
      let entry = -1;
      let slot = -1;
      if (indexed) {
        // Linear probing from a multiplicative hash; the table is at most half full.
        for (entry = Math.imul(id, 0x9e3779b1) & mask; table[entry] !== 0; entry = (entry + 1) & mask) {
          if (table[entry] === id + 1) {
            slot = tableSlot[entry]!;
            break;
          }
        }
      } else slot = sparse?.get(id) ?? -1;
      if (slot < 0) {
        slot = slots++;
        slotEntries[slot] = entry;
        if (indexed) {
          table[entry] = id + 1;
          tableSlot[entry] = slot;
        } else {
          sparse ??= new Map();
          sparse.set(id, slot);
        }
        ids[slot] = id;
        scores[slot] = 0;
        pinned[slot] = 0;
      }
      scores[slot]! += weight / (k + rank);
      if (hit.pinned === true) {
        pinned[slot] = 1;
        anyPinned = true;
      }
      hitSlots[at] = slot;
      hitRanks[at] = rank;
    }
  }
  const keys = slotKeys;
  for (let slot = 0; slot < slots; slot++) keys[slot] = ids[slot]!;
  for (let slot = 0; slot < slots; slot++) if (slotEntries[slot]! >= 0) table[slotEntries[slot]!] = 0;
  // Ids that are not small integers (only from outside callers) break ties by their order.
  if (sparse) {
    const ascending = Array.from({ length: slots }, (_, slot) => slot).sort((a, b) => ids[a]! - ids[b]!);
    ascending.forEach((slot, order) => {
      keys[slot] = order;
    });
  }

  const chosen = anyPinned
    ? best(keys, scores, pinned, slots, limit)
    : bestOf(keys, scores, slots, Math.min(limit, slots));
  const fused: FusedHit[] = [];
  if (outputOf.length < slots) outputOf = new Int32Array(Math.max(slots, outputOf.length * 2));
  outputOf.fill(-1, 0, slots);
  for (const slot of chosen) {
    outputOf[slot] = fused.length < detail ? fused.length : -1;
    fused.push({ id: ids[slot]!, score: scores[slot]!, pinned: pinned[slot] === 1, matchedBy: [] });
  }
  at = 0;
  for (const { strategy, hits } of rankings) {
    for (const hit of hits) {
      const out = outputOf[hitSlots[at]!]!;
      if (out >= 0) {
        const match: StrategyMatch = { strategy, rank: hitRanks[at]!, score: hit.score };
        if (hit.matched) match.matched = hit.matched;
        insertByRank(fused[out]!.matchedBy, match);
      }
      at++;
    }
  }
  return fused;
}

/** Insert keeping ranks ascending, after equal ranks (stable: ranking order breaks ties); lists are a handful long. */
function insertByRank(matches: StrategyMatch[], match: StrategyMatch): void {
  let i = matches.length;
  matches.push(match);
  while (i > 0 && matches[i - 1]!.rank > match.rank) {
    matches[i] = matches[i - 1]!;
    i--;
  }
  matches[i] = match;
}

/** Slots of the best `limit` of n candidates: pinned first, then by score, then by ascending key. */
function best(
  keys: Int32Array,
  scores: Float64Array,
  pinned: Uint8Array,
  n: number,
  limit: number,
): number[] {
  const first: number[] = [];
  const restSlots: number[] = [];
  for (let slot = 0; slot < n; slot++) {
    if (pinned[slot] === 1) first.push(slot);
    else restSlots.push(slot);
  }
  first.sort((a, b) => scores[b]! - scores[a]! || keys[a]! - keys[b]!);
  if (first.length >= limit) return first.slice(0, limit);
  // Loops, not Int32Array.from(list, map): that mapping call was 8% of a lexical search.
  const restKeys = new Int32Array(restSlots.length);
  const restScores = new Float64Array(restSlots.length);
  for (let i = 0; i < restSlots.length; i++) {
    restKeys[i] = keys[restSlots[i]!]!;
    restScores[i] = scores[restSlots[i]!]!;
  }
  const wanted = Math.min(limit - first.length, restSlots.length);
  for (const i of bestOf(restKeys, restScores, restSlots.length, wanted)) first.push(restSlots[i]!);
  return first;
}
