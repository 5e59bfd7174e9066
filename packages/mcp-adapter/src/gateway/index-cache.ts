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
 * An entry is the sha256 of the index followed by the index. core-search checks its saved
 * index's header and sections when it loads one, but each tool's text only when that tool is
 * first returned: a corrupt byte there would surface as an error in some later search. The
 * digest is checked before the load (at 100k tools it costs a few tens of ms against seconds of
 * indexing), so a damaged file is rebuilt at start, never served.
 */
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import {
  defaultIndexCacheDir,
  indexCacheKey,
  readCachedIndex,
  writeCachedIndex,
} from '@toolsearch/core-search/internals';
import type { EngineOptions } from '../catalog.js';
import { envFlag, VERSION } from '../defaults.js';

/** The gateway's `indexCache` option: false switches the cache off; `dir` moves it. */
export type IndexCacheOption = false | { dir?: string };

/** Set to 1 (or true), the gateway neither reads nor writes its index cache. */
export const NO_INDEX_CACHE_ENV = 'TOOLSEARCH_NO_INDEX_CACHE';

/** What an entry's key covers besides the tools; bump when the gateway stores its index differently. */
const ENTRY_FORMAT = 1;
const DIGEST_BYTES = 32;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

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

  /** The stored index of `key`, or undefined: absent, or damaged (logged; the caller rebuilds it). */
  read(key: string): Uint8Array | undefined {
    const entry = readCachedIndex(this.dir, key);
    if (!entry) return undefined;
    const index = entry.subarray(DIGEST_BYTES);
    if (entry.length < DIGEST_BYTES || !sha256(index).equals(entry.subarray(0, DIGEST_BYTES))) {
      this.log(
        `toolsearch-mcp: the cached index ${key.slice(0, 12)} is damaged (digest mismatch), indexing again`,
      );
      return undefined;
    }
    return index;
  }

  /** Stores `index` under `key`; a failure (read-only or full disk) is logged: it costs the next start time, not this one's answers. */
  write(key: string, index: Uint8Array): void {
    const entry = Buffer.allocUnsafe(DIGEST_BYTES + index.length);
    sha256(index).copy(entry, 0);
    entry.set(index, DIGEST_BYTES);
    try {
      writeCachedIndex(this.dir, key, entry);
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
