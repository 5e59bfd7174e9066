import { bareName, compactKey, serverPrefix, splitIdentifier } from '../analysis/identifier.js';
import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
import {
  compareNumberedKeys,
  KeyTable,
  type KeyTableArrays,
  type NumberedKeys,
  numberKeys,
  orderedKeyTable,
} from '../retrieval/key-table.js';
import type { AnalyzedQuery, IndexedDoc, RetrievalHit, Retriever, SavedState } from '../retriever.js';
import { invalidIndex } from '../serialize.js';

const GENERIC = new Set<string>(DEFAULTS.category.genericWords);

/** A server name as people say it: "@modelcontextprotocol/server-github" -> "github". */
function spokenName(server: string): string {
  return splitIdentifier(server)
    .filter((word) => !GENERIC.has(word))
    .join('');
}

const PRINTABLE_ASCII = /^[ -~]*$/;

/** What nameKeys needs of a server or toolset name; the same for every tool of a server. */
interface ServerKeys {
  /** compactKey of the name itself, and of the name as people say it ('' for none). */
  key: string;
  spokenKey: string;
  /** Printable ASCII: compactKey(`${server} ${bare}`) is then key + compactKey(bare). */
  ascii: boolean;
  spoken: string;
  spokenAscii: boolean;
  /**
   * The name as people say it has the name's own key, both on ASCII: its "server tool"
   * key is then the name's, already among a tool's keys, and is not made again.
   */
  spokenSame: boolean;
}

/**
 * A tool's keys, the ones a query can be equal to, in any case style: full name, bare name,
 * "server tool", "toolset tool", and the same with the server as people say it ("github
 * create_issue"). `whole` holds keys as strings; a "server tool" key on printable ASCII is
 * compactKey(server) + compactKey(bare) and is held as its two parts, the server's in
 * `servers` and the bare name's in `bare` (shared by all of them).
 */
interface ToolKeys {
  whole: string[];
  servers: string[];
  bare: string;
}

/**
 * A tool's keys (ToolKeys). `servers` remembers each server's part: on printable ASCII,
 * compactKey of "a b" is compactKey(a) + compactKey(b), so a tool costs one compactKey of its
 * own bare name.
 */
function nameKeys(doc: IndexedDoc, servers: Map<string, ServerKeys>): ToolKeys {
  const bare = bareName(doc.name);
  const bareAscii = PRINTABLE_ASCII.test(bare);
  const prefix = serverPrefix(doc.name);
  const toolset = serverKeys(doc.toolset, servers);
  const prefixKeys = prefix === undefined ? undefined : serverKeys(prefix, servers);
  // Distinct and non-empty (the bare part with each server part once): arrays searched,
  // not Sets then spread (a tool has at most seven keys): exact add() of the ~100k-tool
  // corpus 796 -> 653 ms CPU (median of 7, interleaved, load 8-12).
  const keys: ToolKeys = { whole: [], servers: [], bare: compactKey(bare) };
  // A `server__tool` name is "server", "__", "tool" (bare is the name itself only when it
  // ends in "__"): on ASCII its key joins the two parts', and its "server tool" key is it.
  // Its prefix's "server tool" key is then the name's, not made twice (nor is a spoken
  // name's when it is its server's: addSpokenKey).
  const joinedName = prefix !== undefined && prefixKeys?.ascii === true && bareAscii && bare !== doc.name;
  if (joinedName) addJoined(keys, prefix, prefixKeys.key, true, bare, true);
  else addKey(keys.whole, compactKey(doc.name));
  addKey(keys.whole, keys.bare);
  addJoined(keys, doc.toolset, toolset.key, toolset.ascii, bare, bareAscii);
  if (prefix !== undefined && prefixKeys && !joinedName)
    addJoined(keys, prefix, prefixKeys.key, prefixKeys.ascii, bare, bareAscii);
  addSpokenKey(keys, toolset, bare, bareAscii);
  if (prefixKeys) addSpokenKey(keys, prefixKeys, bare, bareAscii);
  if (typeof doc.tool.title === 'string') addKey(keys.whole, compactKey(doc.tool.title));
  return keys;
}

/**
 * The "server tool" key with the server as people say it, unless none or its server's own
 * (already among the keys: not made again).
 */
function addSpokenKey(keys: ToolKeys, server: ServerKeys, bare: string, bareAscii: boolean): void {
  if (server.spoken === '' || (server.spokenSame && bareAscii)) return;
  addJoined(keys, server.spoken, server.spokenKey, server.spokenAscii, bare, bareAscii);
}

/**
 * compactKey(`${server} ${bare}`): as its two parts when both are printable ASCII and
 * neither part's key is empty (the key is then the other part's, a whole key), else whole.
 */
function addJoined(
  keys: ToolKeys,
  server: string,
  serverKey: string,
  serverAscii: boolean,
  bare: string,
  bareAscii: boolean,
): void {
  if (!(serverAscii && bareAscii)) addKey(keys.whole, compactKey(`${server} ${bare}`));
  else if (serverKey === '' || keys.bare === '') addKey(keys.whole, serverKey + keys.bare);
  else if (!keys.servers.includes(serverKey)) keys.servers.push(serverKey);
}

function addKey(keys: string[], key: string): void {
  if (key !== '' && !keys.includes(key)) keys.push(key);
}

/**
 * The keys of a server or toolset name, remembered in `servers`. Module functions rather
 * than closures made per tool: with tsx (the benchmarks run the sources) each closure also
 * gets its name set, 2% of indexing 100k tools.
 */
function serverKeys(server: string, servers: Map<string, ServerKeys>): ServerKeys {
  let known = servers.get(server);
  if (!known) {
    const spoken = server === 'default' ? '' : spokenName(server);
    const key = compactKey(server);
    const spokenKey = compactKey(spoken);
    const ascii = PRINTABLE_ASCII.test(server);
    const spokenAscii = PRINTABLE_ASCII.test(spoken);
    known = {
      key,
      spokenKey,
      ascii,
      spoken,
      spokenAscii,
      spokenSame: ascii && spokenAscii && spokenKey === key,
    };
    if (servers.size >= DEFAULTS.memos.maxExactServers) servers.clear();
    servers.set(server, known);
  }
  return known;
}

/**
 * True when one typo turns `a` into `b`: an insertion, deletion, substitution or swap of
 * two adjacent letters ("naviagte"), found in linear time without a distance matrix.
 */
export function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length - 1;
  let endB = b.length - 1;
  while (endA >= start && endB >= start && a[endA] === b[endB]) {
    endA--;
    endB--;
  }
  // What is left between the common prefix and suffix is the single edit...
  if (endA - start < 1 && endB - start < 1) return true;
  // ...or two swapped neighbours.
  return endA === start + 1 && endB === start + 1 && a[start] === b[endB] && a[endA] === b[start];
}

/**
 * `exact`: a query that IS a tool's name (any case style, with or without its server
 * prefix, or "server tool") returns that tool pinned, so the engine ranks it first
 * whatever the other strategies say. Every tool sharing the name is pinned. A query one
 * edit away from exactly one tool name (an identifier-shaped typo) is a strong but
 * unpinned hit: close is not the same as equal.
 */
export function createExactRetriever({ docs }: Pick<RetrieverContext, 'docs'>): Retriever {
  /**
   * Ids by whole key: one id as a number (most keys name one tool), several as an array. A
   * Set per key cost ~100 bytes for each of the ~4 keys of every tool. Undefined while a
   * saved index's key table answers instead (importState): filled from it on the first
   * add(), remove() or typo lookup, so a loaded engine's first search looks up one key.
   */
  let whole: Map<string, Ids> | undefined = new Map();
  /**
   * Ids of the "server tool" keys added as two parts (ToolKeys), by server part, then by bare
   * part. A lookup splits the query's key at each length a server part can have. Why: most
   * of a registry's keys are such joined keys (the ~100k-tool corpus: 230k of its 379k, for
   * 150k of its 169k distinct keys), and as strings each was a new string that the Map
   * flattened and hashed, and kept; as parts, the server part is the server's remembered
   * key and the bare part the tool's bare key, both hashed once. A loaded index's joined keys
   * stay whole (its key table does not tell the parts), so a key may be held both ways:
   * readers take the union.
   */
  const joined = new Map<string, Map<string, Ids>>();
  /** The longest server part in `joined`, ever: no query key is split further in. */
  let longestServer = 0;
  /** A saved index's keys and, per key number k, its ids at [starts[k], starts[k + 1]) of ids. */
  let saved: { table: KeyTable; starts: Int32Array; ids: Int32Array } | undefined;
  /**
   * A saved index's ids of every key, checked in full before they are all read (wholeKeys,
   * exportState); a lookup checks only its key's (idsOf). Checking all ~680k starts and ids of
   * the ~100k-tool index at load was for a first search that reads one key's.
   */
  let savedCount = 0;
  let savedChecked = false;
  /** Key k's run of ids lies within the ids, is not empty, and names documents below savedCount. */
  const checkKey = (k: number): void => {
    const { starts, ids } = saved!;
    const from = starts[k]!;
    const to = starts[k + 1]!;
    if (!(from >= 0 && from < to && to <= ids.length))
      invalidIndex(`exact: key ${k} has no ids or its starts are out of order`);
    for (let i = from; i < to; i++)
      if (!(ids[i]! >= 0 && ids[i]! < savedCount))
        invalidIndex(`exact: id ${ids[i]} is not below ${savedCount}`);
  };
  const checkSaved = (): void => {
    if (!saved || savedChecked) return;
    for (let k = 0; k < saved.table.size; k++) checkKey(k);
    savedChecked = true;
  };
  const wholeKeys = (): Map<string, Ids> => {
    if (whole) return whole;
    checkSaved();
    const { table, starts, ids } = saved!;
    const map = new Map<string, Ids>();
    table.allKeys().forEach((key, k) => {
      const from = starts[k]!;
      const to = starts[k + 1]!;
      if (map.has(key)) invalidIndex(`exact: key "${key}" appears twice`);
      map.set(key, to - from === 1 ? ids[from]! : Array.from(ids.subarray(from, to)));
    });
    whole = map;
    saved = undefined;
    return map;
  };
  /** The ids of `key`, in no order, an id perhaps twice (a key held whole and as parts). */
  const idsOf = (key: string): number[] => {
    if (saved) {
      const k = saved.table.find(key);
      if (k === -1) return [];
      checkKey(k);
      return Array.from(saved.ids.subarray(saved.starts[k]!, saved.starts[k + 1]!));
    }
    const found: number[] = [];
    pushIds(found, whole!.get(key));
    for (let at = Math.min(key.length - 1, longestServer); at >= 1; at--) {
      const bares = joined.get(key.slice(0, at));
      if (bares) pushIds(found, bares.get(key.slice(at)));
    }
    return found;
  };
  /**
   * Keys by length, for typo lookup, a key perhaps listed twice (held whole and as parts):
   * built on the first typo lookup, then kept in step with add() and remove() (rebuilding it
   * after every add made the first identifier search after a change walk every key of the
   * registry).
   */
  let byLength: Map<number, string[]> | undefined;
  const servers = new Map<string, ServerKeys>();
  return {
    name: 'exact',
    add(docs) {
      const keyed = wholeKeys();
      for (const doc of docs) {
        const keys = nameKeys(doc, servers);
        for (const key of keys.whole) if (addId(keyed, key, doc.id) && byLength) listByLength(byLength, key);
        for (const server of keys.servers) {
          let bares = joined.get(server);
          if (!bares) {
            bares = new Map();
            joined.set(server, bares);
            longestServer = Math.max(longestServer, server.length);
          }
          if (addId(bares, keys.bare, doc.id) && byLength) listByLength(byLength, server + keys.bare);
        }
      }
    },
    remove(ids) {
      const keyed = wholeKeys();
      // Removed ids grouped by key, so a key shared by many tools is filtered once. A
      // removed document's keys are computed again (the engine removes a document from its
      // retrievers before it drops it): keeping each tool's keys for remove() cost ~120
      // bytes a tool, and removal is rare. A joined key is looked for whole too (a loaded
      // index's are).
      const removedByKey = new Map<string, Set<number>>();
      const removedByParts = new Map<string, Map<string, Set<number>>>();
      const group = <K>(byKey: Map<K, Set<number>>, key: K, id: number): void => {
        const removed = byKey.get(key);
        if (removed) removed.add(id);
        else byKey.set(key, new Set([id]));
      };
      for (const id of ids) {
        const doc = docs.get(id);
        if (!doc) continue;
        const keys = nameKeys(doc, servers);
        for (const key of keys.whole) group(removedByKey, key, id);
        for (const server of keys.servers) {
          group(removedByKey, server + keys.bare, id);
          let removed = removedByParts.get(server);
          if (!removed) {
            removed = new Map();
            removedByParts.set(server, removed);
          }
          group(removed, keys.bare, id);
        }
      }
      const emptied: string[] = [];
      for (const [key, removed] of removedByKey) if (removeIds(keyed, key, removed)) emptied.push(key);
      for (const [server, removed] of removedByParts) {
        const bares = joined.get(server);
        if (!bares) continue;
        for (const [bare, ids] of removed) if (removeIds(bares, bare, ids)) emptied.push(server + bare);
        if (bares.size === 0) joined.delete(server);
      }
      if (!byLength) return;
      // A key emptied one way may still be held the other.
      const vanished = new Set(emptied.filter((key) => idsOf(key).length === 0));
      for (const length of new Set([...vanished].map((key) => key.length))) {
        const left = byLength.get(length)!.filter((key) => !vanished.has(key));
        if (left.length > 0) byLength.set(length, left);
        else byLength.delete(length);
      }
    },
    exportState(dense): SavedState {
      if (saved) {
        // Loaded and unchanged since (a change fills the map): the same keys, ids renumbered.
        checkSaved();
        const { table, starts, ids } = saved;
        return {
          arrays: { ...tableArrays(table.arrays()), starts, ids: ids.map((id) => dense[id]!) },
        };
      }
      // Every key as held (whole, or a server's and a bare part), written and numbered
      // without joining the parts; a key held both ways (or joined from two splits) is one key.
      const heads: string[] = [];
      const tails: string[] = [];
      const held: Ids[] = [];
      // forEach, not for-of over entries: no [key, value] array per key.
      whole!.forEach((ids, key) => {
        heads.push(key);
        tails.push('');
        held.push(ids);
      });
      joined.forEach((bares, server) => {
        bares.forEach((ids, bare) => {
          heads.push(server);
          tails.push(bare);
          held.push(ids);
        });
      });
      const numbered = numberKeys(heads, tails);
      // Each key's ids, ascending (a key held more than one way merged; a tool re-indexed
      // under its id comes last in its keys' lists), and its first id renumbered.
      const keyIds = new Array<Ids>(numbered.firsts.length);
      numbered.numbers.forEach((n, i) => {
        const before = keyIds[n];
        keyIds[n] = before === undefined ? held[i]! : pushIds(pushIds([], before), held[i]);
      });
      const firstIds = new Int32Array(keyIds.length);
      keyIds.forEach((ids, n) => {
        if (typeof ids !== 'number' && !isAscending(ids)) keyIds[n] = ids = distinctAscending([...ids]);
        firstIds[n] = dense[typeof ids === 'number' ? ids : ids[0]!]!;
      });
      const order = savedOrder(numbered, firstIds, dense.length);
      const starts = new Int32Array(order.length + 1);
      for (let k = 0; k < order.length; k++) {
        const ids = keyIds[order[k]!]!;
        starts[k + 1] = starts[k]! + (typeof ids === 'number' ? 1 : ids.length);
      }
      const ids = new Int32Array(starts[order.length]!);
      for (let k = 0; k < order.length; k++) {
        const list = keyIds[order[k]!]!;
        if (typeof list === 'number') ids[starts[k]!] = dense[list]!;
        else for (let i = 0; i < list.length; i++) ids[starts[k]! + i] = dense[list[i]!]!;
      }
      return { arrays: { ...tableArrays(orderedKeyTable(numbered, order)), starts, ids } };
    },
    importState(state, count) {
      const { keys, keyStarts, slots, starts, ids } = state.arrays ?? {};
      if (
        !(keys instanceof Uint8Array) ||
        !(keyStarts instanceof Int32Array) ||
        !(slots instanceof Int32Array) ||
        !(starts instanceof Int32Array) ||
        !(ids instanceof Int32Array)
      )
        invalidIndex('exact: keys, keyStarts, slots, starts and ids are required');
      const table = new KeyTable({ keys, starts: keyStarts, slots }, 'exact');
      if (starts.length !== table.size + 1 || starts[0] !== 0 || starts[table.size] !== ids.length)
        invalidIndex(`exact: ${starts.length} starts for ${table.size} keys and ${ids.length} ids`);
      whole = undefined;
      joined.clear();
      saved = { table, starts, ids };
      savedCount = count;
      savedChecked = false;
      return true;
    },
    retrieve(query: AnalyzedQuery, limit, accept) {
      const key = compactKey(query.normalized);
      const exact = idsOf(key);
      if (exact.length > 0) {
        return distinctAscending(exact)
          .filter((id) => !accept || accept(id))
          .slice(0, limit)
          .map((id): RetrievalHit => ({ id, score: 1, pinned: true, matched: [key] }));
      }
      if (query.shape !== 'identifier' || key.length < DEFAULTS.exact.minTypoKeyLength) return [];
      if (!byLength) {
        byLength = new Map();
        for (const candidate of wholeKeys().keys()) listByLength(byLength, candidate);
        for (const [server, bares] of joined)
          for (const bare of bares.keys()) listByLength(byLength, server + bare);
      }
      const near: string[] = [];
      for (let length = key.length - 1; length <= key.length + 1; length++) {
        for (const candidate of byLength.get(length) ?? []) {
          if (oneEditApart(candidate, key) && !near.includes(candidate)) near.push(candidate);
        }
      }
      if (near.length !== 1) return []; // ambiguous: leave it to fuzzy matching
      const ids = distinctAscending(idsOf(near[0]!)).filter((id) => !accept || accept(id));
      return ids.slice(0, limit).map((id) => ({ id, score: 0.5, matched: near }));
    },
  };
}

/** A key's ids: one as a number (most keys name one tool), several as an array. */
type Ids = number | number[];

/** Adds `id` to the ids of `key`; true when the key is new. A document's keys are distinct. */
function addId<K>(map: Map<K, Ids>, key: K, id: number): boolean {
  const ids = map.get(key);
  if (ids === undefined) {
    map.set(key, id);
    return true;
  }
  if (typeof ids === 'number') {
    if (ids !== id) map.set(key, [ids, id]);
  } else if (ids[ids.length - 1] !== id) ids.push(id);
  return false;
}

/** Takes `removed` from the ids of `key`; true when none are left (the key is then gone). */
function removeIds<K>(map: Map<K, Ids>, key: K, removed: ReadonlySet<number>): boolean {
  const held = map.get(key);
  if (held === undefined) return false;
  const left = (typeof held === 'number' ? [held] : held).filter((id) => !removed.has(id));
  if (left.length === 0) {
    map.delete(key);
    return true;
  }
  map.set(key, left.length === 1 ? left[0]! : left);
  return false;
}

function pushIds(into: number[], ids: Ids | undefined): number[] {
  if (typeof ids === 'number') into.push(ids);
  else if (ids !== undefined) for (const id of ids) into.push(id);
  return into;
}

function isAscending(ids: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) return false;
  return true;
}

/**
 * The order a save lists keys in (numbers of `keys`), one that depends on the keys and
 * their ids alone, not on how they are held (a loaded index, changed, saves the bytes of
 * the same index built): by first id (`firstIds`, below `idCount`), then by bytes. Counted
 * by first id: a comparison sort of ~170k keys cost more than the rest of a save.
 */
function savedOrder(keys: NumberedKeys, firstIds: Int32Array, idCount: number): Int32Array {
  const starts = new Int32Array(idCount + 1);
  for (const id of firstIds) starts[id + 1]!++;
  for (let id = 1; id <= idCount; id++) starts[id]! += starts[id - 1]!;
  const order = new Int32Array(firstIds.length);
  const next = starts.slice();
  firstIds.forEach((id, n) => {
    order[next[id]!++] = n;
  });
  // Each first id's few keys (a tool's new ones), by insertion.
  for (let id = 0; id < idCount; id++) {
    for (let at = starts[id]! + 1; at < starts[id + 1]!; at++) {
      const n = order[at]!;
      let to = at;
      for (; to > starts[id]! && compareNumberedKeys(keys, order[to - 1]!, n) > 0; to--)
        order[to] = order[to - 1]!;
      order[to] = n;
    }
  }
  return order;
}

/** `ids` sorted, each once (in place). */
function distinctAscending(ids: number[]): number[] {
  ids.sort((a, b) => a - b);
  let kept = 0;
  for (let i = 0; i < ids.length; i++) if (i === 0 || ids[i] !== ids[i - 1]) ids[kept++] = ids[i]!;
  ids.length = kept;
  return ids;
}

function listByLength(byLength: Map<number, string[]>, key: string): void {
  const list = byLength.get(key.length);
  if (list) list.push(key);
  else byLength.set(key.length, [key]);
}

/** A key table's arrays under the names exact saves them by. */
function tableArrays({ keys, starts, slots }: KeyTableArrays): Record<string, Uint8Array | Int32Array> {
  return { keys, keyStarts: starts, slots };
}
