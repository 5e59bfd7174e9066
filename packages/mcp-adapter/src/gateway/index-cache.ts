/**
 * The gateway's cache of its built index. A gateway over a large registry spends its start-up
 * analysing and indexing every upstream tool, the same tools as last time more often than not;
 * from the cache it loads the index instead (core-search's binary saved index, ToolSearch.load).
 *
 * One entry per set of upstream tool lists: the key is the sha256 of every upstream's name and
 * tool definitions, in config order, and of the settings that change what is built from them
 * (the engine options, the model variables, the adapter's and core-search's versions, via
 * core-search's indexCacheKey). An upstream that adds, removes or redefines a tool, or a changed
 * setting, is a miss and the index is built and stored again; it is never a stale index. The
 * files live beside the CLI's (core-search's index-cache.ts: $XDG_CACHE_HOME/toolsearch/indexes,
 * atomic writes, the newest few kept).
 *
 * What is stored is the index as indexed, before learned uses and model-written phrasings are
 * applied (gateway.ts takes it at that point): those are applied after a load exactly as after
 * indexing, so the ranking is the one the gateway would have built (test/index-cache.test.ts).
 *
 * An entry is the saved index as toBytes() wrote it. core-search reads it in parts: every
 * section but the tools' texts at load, checked against its crc32, so a damaged or truncated
 * file is refused at start (INVALID_INDEX) and rebuilt, never served; each tool's text when it
 * is first shown, checked against its own crc32, so a damaged one is refused before an answer
 * shows it (Catalog then rebuilds from the upstreams' lists: catalog.ts). (Entries of format 1
 * began with a sha256 of the index, checked before the load: ~0.3 s at 100k tools.)
 *
 * Listing the upstreams' tools costs more than loading their index (~100k tools over stdio:
 * 12.7 of an 18.3 s warm start, `pnpm bench --only gateway-start`, load ~10), and the key above
 * needs the lists. So a second, smaller entry remembers per configuration (upstream names,
 * commands, urls, everything else in their configs, and the same settings; not the tool lists)
 * which index the last start stored and the tool lists it was built from (last-entry.ts): the
 * gateway serves that index at once, marked as possibly stale, while the upstreams connect and
 * list, then compares keys (gateway.ts). These entries live in `last/` beside the indexes, under
 * the same atomic write and pruning; only a sha256 of the configs (which may hold credentials)
 * names them.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import {
  defaultIndexCacheDir,
  indexCacheKey,
  openCachedIndex,
  readCachedIndex,
  type SavedFile,
  writeCachedIndex,
} from '@toolsearch/core-search/internals';
import type { EngineOptions } from '../catalog.js';
import { envFlag, VERSION } from '../defaults.js';
import type { UpstreamConfig } from './config.js';
import { encodeLastEntry, LastEntry } from './last-entry.js';

/** The gateway's `indexCache` option: false switches the cache off; `dir` moves it. */
export type IndexCacheOption = false | { dir?: string };

/** Set to 1 (or true), the gateway neither reads nor writes its index cache. */
export const NO_INDEX_CACHE_ENV = 'TOOLSEARCH_NO_INDEX_CACHE';

/** What an entry's key covers besides the tools; bump when the gateway stores its index differently. */
const ENTRY_FORMAT = 2;
/** The folder (under the cache's) of the per-configuration entries. */
const LAST_DIR = 'last';

export class IndexCache {
  readonly dir: string;
  private readonly settings: unknown;
  private readonly log: (line: string) => void;

  private constructor(dir: string, settings: unknown, log: (line: string) => void) {
    this.dir = dir;
    this.settings = settings;
    this.log = log;
  }

  /**
   * The cache the options ask for, or undefined when it is off: `option` false, the
   * environment variable set, or engine options that cannot be part of a key (objects with
   * behaviour: custom retrievers, an embedder, a phrasing pack object), which are logged.
   */
  static open(options: {
    option?: IndexCacheOption | undefined;
    engine?: EngineOptions | undefined;
    env: NodeJS.ProcessEnv;
    log: (line: string) => void;
  }): IndexCache | undefined {
    const { option, engine = {}, env, log } = options;
    if (option === false || envFlag(env, NO_INDEX_CACHE_ENV)) return undefined;
    const unkeyable = unkeyableOption(engine);
    if (unkeyable) {
      log(`toolsearch-mcp: index cache off: the engine option ${unkeyable} cannot be part of a cache key`);
      return undefined;
    }
    const modelEnv = engine.embedding === false ? undefined : (engine.embedding?.env ?? process.env);
    const settings = {
      entry: ENTRY_FORMAT,
      adapter: VERSION,
      // JSON drops the callbacks (onProgress, onWarning): they change no ranking.
      engine: JSON.parse(JSON.stringify(engine)) as unknown,
      // The model the engine picks when the options name none.
      model: modelEnv ? [modelEnv.TOOLSEARCH_MODEL ?? null, modelEnv.TOOLSEARCH_MODEL_PATH ?? null] : null,
    };
    return new IndexCache(option?.dir ?? defaultIndexCacheDir(env), settings, log);
  }

  /** The key of the index built from these tool lists (upstream name -> its tools, in config order). */
  keyOf(toolsets: ReadonlyMap<string, readonly Tool[]>): string {
    // Hashed a tool at a time: one JSON string of 100k tools would be ~100 MB.
    const hash = createHash('sha256');
    for (const [toolset, tools] of toolsets) {
      hash.update(`${JSON.stringify(toolset)}:${tools.length}\n`);
      for (const tool of tools) hash.update(`${JSON.stringify(tool)}\n`);
    }
    return indexCacheKey(hash.digest(), this.settings);
  }

  /** The key of a configuration: its upstreams' configs in order and the settings, not their tools. */
  configKeyOf(upstreams: readonly UpstreamConfig[]): string {
    const hash = createHash('sha256');
    for (const upstream of upstreams) hash.update(`${JSON.stringify(upstream)}\n`);
    return indexCacheKey(hash.digest(), { last: this.settings });
  }

  /**
   * What the last start over configuration `configKey` stored, with its index, when both are
   * in the cache and the entry is intact (the index is checked as it loads); else undefined
   * (absent, damaged or of another format: the caller starts as without it).
   */
  readLast(configKey: string): { last: LastEntry; index: SavedFile } | undefined {
    const entry = readCachedIndex(join(this.dir, LAST_DIR), configKey);
    const last = entry && LastEntry.read(entry);
    if (!last) return undefined;
    const index = this.read(last.key);
    return index ? { last, index } : undefined;
  }

  /**
   * Remembers that configuration `configKey` last indexed `toolsets` under `key`, the tools
   * `indexed` tells held by the index; a failure is logged.
   */
  writeLast(
    configKey: string,
    key: string,
    toolsets: ReadonlyMap<string, readonly Tool[]>,
    indexed: (name: string) => boolean,
  ): void {
    this.put(join(this.dir, LAST_DIR), configKey, encodeLastEntry(key, toolsets, indexed));
  }

  /**
   * The stored index of `key`, opened to be loaded in parts (its tools' texts read as they are
   * first shown), or undefined when absent (a damaged one is refused by its load).
   */
  read(key: string): SavedFile | undefined {
    return openCachedIndex(this.dir, key);
  }

  /** Stores `index` under `key`; a failure (read-only or full disk) is logged: it costs the next start time, not this one's answers. */
  write(key: string, index: Uint8Array): void {
    this.put(this.dir, key, index);
  }

  private put(dir: string, key: string, bytes: Uint8Array): void {
    try {
      writeCachedIndex(dir, key, bytes);
    } catch (err) {
      this.log(`toolsearch-mcp: index cache not written (${this.dir}): ${(err as Error).message}`);
    }
  }
}

/** The first engine option that holds behaviour rather than data (no key can tell two apart), or undefined. */
function unkeyableOption(engine: EngineOptions): string | undefined {
  if (engine.retrievers !== undefined) return '"retrievers"';
  if (engine.embedding && engine.embedding.embedder !== undefined) return '"embedding.embedder"';
  if (typeof engine.pack === 'object' && engine.pack !== null && engine.pack.source !== undefined)
    return '"pack.source"';
  return undefined;
}
