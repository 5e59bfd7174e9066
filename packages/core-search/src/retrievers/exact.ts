import { bareName, compactKey, serverPrefix, splitIdentifier } from '../analysis/identifier.js';
import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
import { buildKeyTable, KeyTable, type KeyTableArrays } from '../retrieval/key-table.js';
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
 * Keys a query can be equal to, in any case style: full name, bare name, "server tool",
 * "toolset tool", and the same with the server as people say it ("github create_issue").
 * `servers` remembers each server's part: on printable ASCII, compactKey of "a b" is
 * compactKey(a) + compactKey(b), so a tool costs one compactKey of its own bare name.
 */
function nameKeys(doc: IndexedDoc, servers: Map<string, ServerKeys>): string[] {
  const bare = bareName(doc.name);
  const bareKey = compactKey(bare);
  const bareAscii = PRINTABLE_ASCII.test(bare);
  const prefix = serverPrefix(doc.name);
  const toolset = serverKeys(doc.toolset, servers);
  const prefixKeys = prefix === undefined ? undefined : serverKeys(prefix, servers);
  // A `server__tool` name is "server", "__", "tool" (bare is the name itself only when it
  // ends in "__"): on ASCII its key joins the two parts', and its "server tool" key is it.
  const joinedName = prefixKeys?.ascii === true && bareAscii && bare !== doc.name;
  const nameKey = joinedName ? prefixKeys.key + bareKey : compactKey(doc.name);
  // Distinct and non-empty, in order of first appearance; an array searched, not a Set
  // then spread (a tool has at most seven keys), and no `${prefix}__${bare}` made to compare:
  // exact add() of the ~100k-tool corpus 796 -> 653 ms CPU (median of 7, interleaved, load 8-12).
  // Keys known to equal one already listed are not made (a joined key is a new string
  // whose comparison flattens it): the prefix's "server tool" key when it is the name's
  // own, and a spoken name's when it is its server's.
  const keys: string[] = [];
  addKey(keys, nameKey);
  addKey(keys, bareKey);
  addKey(keys, joinedKey(doc.toolset, toolset.key, toolset.ascii, bare, bareKey, bareAscii));
  if (prefix && prefixKeys && !joinedName)
    addKey(keys, joinedKey(prefix, prefixKeys.key, prefixKeys.ascii, bare, bareKey, bareAscii));
  addSpokenKey(keys, toolset, bare, bareKey, bareAscii);
  if (prefixKeys) addSpokenKey(keys, prefixKeys, bare, bareKey, bareAscii);
  if (typeof doc.tool.title === 'string') addKey(keys, compactKey(doc.tool.title));
  return keys;
}

/** The "server tool" key with the server as people say it, unless none or its server's own. */
function addSpokenKey(
  keys: string[],
  server: ServerKeys,
  bare: string,
  bareKey: string,
  bareAscii: boolean,
): void {
  if (server.spoken === '' || (server.spokenSame && bareAscii)) return;
  addKey(keys, joinedKey(server.spoken, server.spokenKey, server.spokenAscii, bare, bareKey, bareAscii));
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

/** compactKey(`${server} ${bare}`), from the parts' keys when both are printable ASCII. */
function joinedKey(
  server: string,
  key: string,
  ascii: boolean,
  bare: string,
  bareKey: string,
  bareAscii: boolean,
): string {
  return ascii && bareAscii ? key + bareKey : compactKey(`${server} ${bare}`);
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
   * Ids by key: one id as a number (most keys name one tool), several as an array. A Set
   * per key cost ~100 bytes for each of the ~4 keys of every tool. Undefined while a saved
   * index's key table answers instead (importState): filled from it on the first add(),
   * remove() or typo lookup, so a loaded engine's first search looks up one key.
   */
  let byKey: Map<string, number | number[]> | undefined = new Map();
  /** A saved index's keys and, per key number k, its ids at [starts[k], starts[k + 1]) of ids. */
  let saved: { table: KeyTable; starts: Int32Array; ids: Int32Array } | undefined;
  /**
   * A saved index's ids of every key, checked in full before they are all read (keyMap,
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
  const keyMap = (): Map<string, number | number[]> => {
    if (byKey) return byKey;
    checkSaved();
    const { table, starts, ids } = saved!;
    const map = new Map<string, number | number[]>();
    table.allKeys().forEach((key, k) => {
      const from = starts[k]!;
      const to = starts[k + 1]!;
      if (map.has(key)) invalidIndex(`exact: key "${key}" appears twice`);
      map.set(key, to - from === 1 ? ids[from]! : Array.from(ids.subarray(from, to)));
    });
    byKey = map;
    saved = undefined;
    return map;
  };
  const idsOf = (key: string): readonly number[] => {
    if (saved) {
      const k = saved.table.find(key);
      if (k === -1) return [];
      checkKey(k);
      return Array.from(saved.ids.subarray(saved.starts[k]!, saved.starts[k + 1]!));
    }
    const ids = byKey!.get(key);
    return ids === undefined ? [] : typeof ids === 'number' ? [ids] : ids;
  };
  /**
   * Keys by length, for typo lookup: built on the first typo lookup, then kept in step
   * with add() and remove() (rebuilding it after every add made the first identifier
   * search after a change walk every key of the registry).
   */
  let byLength: Map<number, string[]> | undefined;
  const servers = new Map<string, ServerKeys>();
  return {
    name: 'exact',
    add(docs) {
      const byKey = keyMap();
      for (const doc of docs) {
        for (const key of nameKeys(doc, servers)) {
          const ids = byKey.get(key);
          if (ids !== undefined) {
            if (typeof ids === 'number') {
              if (ids !== doc.id) byKey.set(key, [ids, doc.id]);
            } else if (ids[ids.length - 1] !== doc.id) ids.push(doc.id); // a doc's keys are distinct
            continue;
          }
          byKey.set(key, doc.id);
          if (!byLength) continue;
          const list = byLength.get(key.length);
          if (list) list.push(key);
          else byLength.set(key.length, [key]);
        }
      }
    },
    remove(ids) {
      const byKey = keyMap();
      // Removed ids grouped by key, so a key shared by many tools is filtered once. A
      // removed document's keys are computed again (the engine removes a document from its
      // retrievers before it drops it): keeping each tool's keys for remove() cost ~120
      // bytes a tool, and removal is rare.
      const removedByKey = new Map<string, Set<number>>();
      for (const id of ids) {
        const doc = docs.get(id);
        if (!doc) continue;
        for (const key of nameKeys(doc, servers)) {
          const removed = removedByKey.get(key);
          if (removed) removed.add(id);
          else removedByKey.set(key, new Set([id]));
        }
      }
      const vanished = new Set<string>();
      for (const [key, removed] of removedByKey) {
        const held = byKey.get(key);
        if (held === undefined) continue;
        const left = (typeof held === 'number' ? [held] : held).filter((id) => !removed.has(id));
        if (left.length === 0) {
          byKey.delete(key);
          vanished.add(key);
        } else byKey.set(key, left.length === 1 ? left[0]! : left);
      }
      if (!byLength) return;
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
      const keys = [...byKey!.keys()];
      const starts = new Int32Array(keys.length + 1);
      const all: number[] = [];
      keys.forEach((key, k) => {
        const ids = byKey!.get(key)!;
        if (typeof ids === 'number') all.push(dense[ids]!);
        else for (const id of ids) all.push(dense[id]!);
        starts[k + 1] = all.length;
      });
      return { arrays: { ...tableArrays(buildKeyTable(keys)), starts, ids: Int32Array.from(all) } };
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
      byKey = undefined;
      saved = { table, starts, ids };
      savedCount = count;
      savedChecked = false;
      return true;
    },
    retrieve(query: AnalyzedQuery, limit, accept) {
      const key = compactKey(query.normalized);
      const exact = idsOf(key);
      if (exact.length > 0) {
        return [...exact]
          .filter((id) => !accept || accept(id))
          .sort((a, b) => a - b)
          .slice(0, limit)
          .map((id): RetrievalHit => ({ id, score: 1, pinned: true, matched: [key] }));
      }
      if (query.shape !== 'identifier' || key.length < DEFAULTS.exact.minTypoKeyLength) return [];
      if (!byLength) {
        byLength = new Map();
        for (const candidate of keyMap().keys()) {
          const list = byLength.get(candidate.length);
          if (list) list.push(candidate);
          else byLength.set(candidate.length, [candidate]);
        }
      }
      const near: string[] = [];
      for (let length = key.length - 1; length <= key.length + 1; length++) {
        for (const candidate of byLength.get(length) ?? []) {
          if (oneEditApart(candidate, key)) near.push(candidate);
        }
      }
      if (near.length !== 1) return []; // ambiguous: leave it to fuzzy matching
      const ids = [...idsOf(near[0]!)].filter((id) => !accept || accept(id)).sort((a, b) => a - b);
      return ids.slice(0, limit).map((id) => ({ id, score: 0.5, matched: near }));
    },
  };
}

/** A key table's arrays under the names exact saves them by. */
function tableArrays({ keys, starts, slots }: KeyTableArrays): Record<string, Uint8Array | Int32Array> {
  return { keys, keyStarts: starts, slots };
}
