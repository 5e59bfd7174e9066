import { bareName, compactKey, serverPrefix, splitIdentifier } from '../analysis/identifier.js';
import { grownTo } from '../corpus.js';
import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
import { buildKeyTable, KeyTable, type KeyTableArrays, KeyTableBuilder } from '../retrieval/key-table.js';
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
}

/**
 * Keys a query can be equal to, in any case style: full name, bare name, "server tool",
 * "toolset tool", and the same with the server as people say it ("github create_issue").
 * `servers` remembers each server's part: on printable ASCII, compactKey of "a b" is
 * compactKey(a) + compactKey(b), so a tool costs one compactKey of its own bare name.
 * Each key is written to `parts` as two strings to join (a server's key and the tool's,
 * or a whole key and ''), so a caller can hash the key without making it (KeyTableBuilder);
 * returns how many keys (possibly repeated or empty: see nameKeys).
 */
function keyParts(doc: IndexedDoc, servers: Map<string, ServerKeys>, parts: string[]): number {
  const bare = bareName(doc.name);
  const bareKey = compactKey(bare);
  const bareAscii = PRINTABLE_ASCII.test(bare);
  const prefix = serverPrefix(doc.name);
  const toolset = serverKeys(doc.toolset, servers);
  const prefixKeys = prefix === undefined ? undefined : serverKeys(prefix, servers);
  parts.length = 0;
  // A `server__tool` name is "server", "__", "tool" (bare is the name itself only when it
  // ends in "__"): on ASCII its key joins the two parts'.
  if (prefixKeys?.ascii && bareAscii && bare !== doc.name) parts.push(prefixKeys.key, bareKey);
  else parts.push(compactKey(doc.name), '');
  parts.push(bareKey, '');
  joinedKey(parts, doc.toolset, toolset.key, toolset.ascii, bare, bareKey, bareAscii);
  if (prefix && prefixKeys)
    joinedKey(parts, prefix, prefixKeys.key, prefixKeys.ascii, bare, bareKey, bareAscii);
  for (const server of [toolset, prefixKeys]) {
    if (server === undefined || server.spoken === '') continue;
    joinedKey(parts, server.spoken, server.spokenKey, server.spokenAscii, bare, bareKey, bareAscii);
  }
  if (typeof doc.tool.title === 'string') parts.push(compactKey(doc.tool.title), '');
  return parts.length / 2;
}

/** keyParts' scratch: one array for every tool, not one per tool. */
const PARTS: string[] = [];

/**
 * A document's keys, distinct and non-empty, in order of first appearance; an array
 * searched, not a Set then spread (a tool has at most seven keys): exact add() of the
 * ~100k-tool corpus 796 -> 653 ms CPU (median of 7, interleaved, load 8-12).
 */
function nameKeys(doc: IndexedDoc, servers: Map<string, ServerKeys>): string[] {
  const count = keyParts(doc, servers, PARTS);
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const key = PARTS[2 * i]! + PARTS[2 * i + 1]!;
    if (key !== '' && !keys.includes(key)) keys.push(key);
  }
  return keys;
}

/**
 * The first add() into an empty retriever (every engine's build): keys straight into a key
 * table (the saved index's form, which idsOf searches as it does a loaded index's), ids
 * per key number; no string per key and no Map. The same CPU as the Map (exact add() of the
 * ~100k-tool corpus 932 vs 952 ms, median of 9, interleaved in one process, load 9), but
 * 27 MB less heap once built (248 -> 221 MB after a GC, ~340k keys held as bytes).
 */
function buildKeys(docs: readonly IndexedDoc[], servers: Map<string, ServerKeys>): Saved {
  const builder = new KeyTableBuilder();
  // Per key number: its first id, and its other ids (few keys name several tools).
  let first = new Int32Array(1024);
  const more = new Map<number, number[]>();
  for (const doc of docs) {
    const count = keyParts(doc, servers, PARTS);
    for (let i = 0; i < count; i++) {
      const a = PARTS[2 * i]!;
      const b = PARTS[2 * i + 1]!;
      if (a === '' && b === '') continue;
      const size = builder.size;
      const k = builder.add(a, b);
      if (k === size) {
        if (k >= first.length) first = grownTo(first, 2 * first.length);
        first[k] = doc.id;
        continue;
      }
      const others = more.get(k);
      // A key repeated within one document (its keys are distinct) counts once.
      const last = others === undefined ? first[k] : others[others.length - 1];
      if (last === doc.id) continue;
      if (others === undefined) more.set(k, [doc.id]);
      else others.push(doc.id);
    }
  }
  const size = builder.size;
  const starts = new Int32Array(size + 1);
  let total = size;
  for (const others of more.values()) total += others.length;
  const ids = new Int32Array(total);
  let at = 0;
  for (let k = 0; k < size; k++) {
    ids[at++] = first[k]!;
    const others = more.get(k);
    if (others !== undefined) for (const id of others) ids[at++] = id;
    starts[k + 1] = at;
  }
  return { table: new KeyTable(builder.finish(), 'exact'), starts, ids, more: new Map(), added: new Map() };
}

/** exact's keys as a key table (see createExactRetriever's `saved`). */
interface Saved {
  table: KeyTable;
  starts: Int32Array;
  ids: Int32Array;
  more: Map<number, number[]>;
  added: Map<string, number | number[]>;
}

/** A key into the typo lookup's keys by length. */
function noteLength(byLength: Map<number, string[]>, key: string): void {
  const list = byLength.get(key.length);
  if (list) list.push(key);
  else byLength.set(key.length, [key]);
}

/** Add `id` to `key`'s ids in `byKey` (a document's ids come together); true when the key is new. */
function addId(byKey: Map<string, number | number[]>, key: string, id: number): boolean {
  const ids = byKey.get(key);
  if (ids === undefined) {
    byKey.set(key, id);
    return true;
  }
  if (typeof ids === 'number') {
    if (ids !== id) byKey.set(key, [ids, id]);
  } else if (ids[ids.length - 1] !== id) ids.push(id); // a doc's keys are distinct
  return false;
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
    known = {
      key: compactKey(server),
      spokenKey: compactKey(spoken),
      ascii: PRINTABLE_ASCII.test(server),
      spoken,
      spokenAscii: PRINTABLE_ASCII.test(spoken),
    };
    if (servers.size >= DEFAULTS.memos.maxExactServers) servers.clear();
    servers.set(server, known);
  }
  return known;
}

/** compactKey(`${server} ${bare}`) into `parts`: the parts' keys when both are printable ASCII. */
function joinedKey(
  parts: string[],
  server: string,
  key: string,
  ascii: boolean,
  bare: string,
  bareKey: string,
  bareAscii: boolean,
): void {
  if (ascii && bareAscii) parts.push(key, bareKey);
  else parts.push(compactKey(`${server} ${bare}`), '');
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
   * per key cost ~100 bytes for each of the ~4 keys of every tool. Undefined while a key
   * table answers instead (the first add()'s, or a saved index's: importState): filled from
   * it on the first remove(), so a loaded engine's first search looks up one key, and an
   * add() or a typo lookup after a build or a load does not make ~340k Map entries at 100k
   * tools (0.39 s CPU for the first add of one tool).
   */
  let byKey: Map<string, number | number[]> | undefined = new Map();
  /**
   * A key table and, per key number k, its ids at [starts[k], starts[k + 1]) of ids; ids
   * added since to its keys (`more`), and keys new since (`added`, as byKey holds them).
   */
  let saved: Saved | undefined;
  const keyMap = (): Map<string, number | number[]> => {
    if (byKey) return byKey;
    const { table, starts, ids, more, added } = saved!;
    const map = new Map<string, number | number[]>();
    table.allKeys().forEach((key, k) => {
      const from = starts[k]!;
      const to = starts[k + 1]!;
      if (map.has(key)) invalidIndex(`exact: key "${key}" appears twice`);
      const extra = more.get(k);
      if (extra) map.set(key, [...ids.subarray(from, to), ...extra]);
      else map.set(key, to - from === 1 ? ids[from]! : Array.from(ids.subarray(from, to)));
    });
    for (const [key, held] of added) map.set(key, held);
    byKey = map;
    saved = undefined;
    return map;
  };
  const idsOf = (key: string): readonly number[] => {
    if (saved) {
      const k = saved.table.find(key);
      if (k !== -1) {
        const held = Array.from(saved.ids.subarray(saved.starts[k]!, saved.starts[k + 1]!));
        const extra = saved.more.get(k);
        return extra ? [...held, ...extra] : held;
      }
    }
    const ids = (saved ? saved.added : byKey!).get(key);
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
      if (docs.length > 0 && byKey?.size === 0 && !byLength) {
        saved = buildKeys(docs, servers);
        byKey = undefined;
        return;
      }
      if (saved) {
        const { table, starts, ids, more, added } = saved;
        for (const doc of docs) {
          for (const key of nameKeys(doc, servers)) {
            const k = table.find(key);
            if (k === -1) {
              if (addId(added, key, doc.id) && byLength) noteLength(byLength, key);
              continue;
            }
            const extra = more.get(k);
            if ((extra ? extra[extra.length - 1] : ids[starts[k + 1]! - 1]) === doc.id) continue;
            if (extra) extra.push(doc.id);
            else more.set(k, [doc.id]);
          }
        }
        return;
      }
      const map = keyMap();
      for (const doc of docs) {
        for (const key of nameKeys(doc, servers)) {
          if (addId(map, key, doc.id) && byLength) noteLength(byLength, key);
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
      if (saved && saved.more.size === 0 && saved.added.size === 0) {
        // Built or loaded, and unchanged since: the same keys, ids renumbered.
        const { table, starts, ids } = saved;
        return {
          arrays: { ...tableArrays(table.arrays()), starts, ids: ids.map((id) => dense[id]!) },
        };
      }
      const map = keyMap();
      const keys = [...map.keys()];
      const starts = new Int32Array(keys.length + 1);
      const all: number[] = [];
      keys.forEach((key, k) => {
        const ids = map.get(key)!;
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
      for (let k = 0; k < table.size; k++)
        if (starts[k + 1]! <= starts[k]!)
          invalidIndex(`exact: key ${k} has no ids or its starts are out of order`);
      for (let i = 0; i < ids.length; i++) {
        if (!(ids[i]! >= 0 && ids[i]! < count)) invalidIndex(`exact: id ${ids[i]} is not below ${count}`);
      }
      byKey = undefined;
      saved = { table, starts, ids, more: new Map(), added: new Map() };
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
        // From a key table without filling the Map (~0.4 s CPU at 100k tools).
        const keys = saved ? [...saved.table.allKeys(), ...saved.added.keys()] : keyMap().keys();
        for (const candidate of keys) noteLength(byLength, candidate);
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
