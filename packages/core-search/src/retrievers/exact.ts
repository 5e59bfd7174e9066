import { bareName, compactKey, serverPrefix, splitIdentifier } from '../analysis/identifier.js';
import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
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
 */
function nameKeys(doc: IndexedDoc, servers: Map<string, ServerKeys>): string[] {
  const bare = bareName(doc.name);
  const bareKey = compactKey(bare);
  const bareAscii = PRINTABLE_ASCII.test(bare);
  const prefix = serverPrefix(doc.name);
  const toolset = serverKeys(doc.toolset, servers);
  const prefixKeys = prefix === undefined ? undefined : serverKeys(prefix, servers);
  // A `server__tool` name is "server", "__", "tool" (bare is the name itself only when it
  // ends in "__"): on ASCII its key joins the two parts'.
  const nameKey =
    prefixKeys?.ascii && bareAscii && bare !== doc.name ? prefixKeys.key + bareKey : compactKey(doc.name);
  // Distinct and non-empty, in order of first appearance; an array searched, not a Set
  // then spread (a tool has at most seven keys), and no `${prefix}__${bare}` made to compare:
  // exact add() of the ~100k-tool corpus 796 -> 653 ms CPU (median of 7, interleaved, load 8-12).
  const keys: string[] = [];
  addKey(keys, nameKey);
  addKey(keys, bareKey);
  addKey(keys, joinedKey(doc.toolset, toolset.key, toolset.ascii, bare, bareKey, bareAscii));
  if (prefix && prefixKeys)
    addKey(keys, joinedKey(prefix, prefixKeys.key, prefixKeys.ascii, bare, bareKey, bareAscii));
  for (const server of [toolset, prefixKeys]) {
    if (server === undefined || server.spoken === '') continue;
    addKey(keys, joinedKey(server.spoken, server.spokenKey, server.spokenAscii, bare, bareKey, bareAscii));
  }
  if (typeof doc.tool.title === 'string') addKey(keys, compactKey(doc.tool.title));
  return keys;
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
   * per key cost ~100 bytes for each of the ~4 keys of every tool.
   */
  const byKey = new Map<string, number | number[]>();
  const idsOf = (key: string): readonly number[] => {
    const ids = byKey.get(key);
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
      const keys = [...byKey.keys()];
      const starts = new Int32Array(keys.length + 1);
      const all: number[] = [];
      keys.forEach((key, k) => {
        const ids = byKey.get(key)!;
        if (typeof ids === 'number') all.push(dense[ids]!);
        else for (const id of ids) all.push(dense[id]!);
        starts[k + 1] = all.length;
      });
      return { strings: { keys }, arrays: { starts, ids: Int32Array.from(all) } };
    },
    importState(state, count) {
      const keys = state.strings?.keys;
      const { starts, ids } = state.arrays ?? {};
      if (!keys || !(starts instanceof Int32Array) || !(ids instanceof Int32Array))
        invalidIndex('exact: keys, starts and ids are required');
      if (starts.length !== keys.length + 1 || starts[0] !== 0 || starts[keys.length] !== ids.length)
        invalidIndex(`exact: ${starts.length} starts for ${keys.length} keys and ${ids.length} ids`);
      keys.forEach((key, k) => {
        const from = starts[k]!;
        const to = starts[k + 1]!;
        if (to <= from) invalidIndex(`exact: key ${k} has no ids or its starts are out of order`);
        for (let i = from; i < to; i++) {
          if (!(ids[i]! >= 0 && ids[i]! < count))
            invalidIndex(`exact: id ${ids[i]} of key ${k} is not below ${count}`);
        }
        if (byKey.has(key)) invalidIndex(`exact: key "${key}" appears twice`);
        byKey.set(key, to - from === 1 ? ids[from]! : Array.from(ids.subarray(from, to)));
      });
      return true;
    },
    retrieve(query: AnalyzedQuery, limit, accept) {
      const key = compactKey(query.normalized);
      const exact = byKey.get(key);
      if (exact !== undefined) {
        return [...idsOf(key)]
          .filter((id) => !accept || accept(id))
          .sort((a, b) => a - b)
          .slice(0, limit)
          .map((id): RetrievalHit => ({ id, score: 1, pinned: true, matched: [key] }));
      }
      if (query.shape !== 'identifier' || key.length < DEFAULTS.exact.minTypoKeyLength) return [];
      if (!byLength) {
        byLength = new Map();
        for (const candidate of byKey.keys()) {
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
