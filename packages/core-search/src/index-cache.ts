/**
 * On-disk cache of built indexes (toBytes()), for programs that start often over the same
 * tool file: the CLI, a gateway. An entry is keyed by the sha256 of the tool file's bytes
 * and of everything that changes what is built from them (package, analyser and format
 * versions, the embedding model, the pack setting), so a changed file or version is a
 * miss, never a stale index. Same conventions as the embedding cache: under
 * $XDG_CACHE_HOME/toolsearch (else ~/.cache/toolsearch), written to a temp file renamed
 * into place (atomic on one file system), a file that cannot be read treated as absent.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULTS } from './defaults.js';
import { defaultCacheDir } from './embedding/disk-cache.js';
import { SavedFile } from './saved-file.js';
import { SAVED_INDEX_VERSION } from './saved-index.js';
import { ANALYZER_VERSION } from './serialize.js';
import { VERSION } from './version.js';

const SUFFIX = '.tsindex';

/** $XDG_CACHE_HOME/toolsearch/indexes, else ~/.cache/toolsearch/indexes. */
export function defaultIndexCacheDir(env: Record<string, string | undefined> = process.env): string {
  return join(defaultCacheDir(env), 'indexes');
}

/**
 * The key of an index built from `content` (a tool file's bytes) with `settings` (anything
 * JSON that changes the build: model, pack). Hex of a sha256.
 */
export function indexCacheKey(content: Uint8Array, settings: unknown): string {
  return createHash('sha256')
    .update(content)
    .update(
      JSON.stringify({ version: VERSION, analyzer: ANALYZER_VERSION, format: SAVED_INDEX_VERSION, settings }),
    )
    .digest('hex');
}

/** The cached index of `key`, or undefined (absent or unreadable). */
export function readCachedIndex(dir: string, key: string): Uint8Array | undefined {
  try {
    return readFileSync(join(dir, key + SUFFIX));
  } catch {
    return undefined;
  }
}

/**
 * The cached index of `key` as a file ToolSearch.load reads in parts (saved-file.ts), or
 * undefined (absent or unreadable).
 */
export function openCachedIndex(dir: string, key: string): SavedFile | undefined {
  try {
    return SavedFile.open(join(dir, key + SUFFIX));
  } catch {
    return undefined;
  }
}

/**
 * Store an index under `key`, then keep only the newest DEFAULTS.indexCache.maxFiles entries
 * (an index is as large as its tool file: a cache of every version ever searched would grow
 * without bound). Throws on a write failure (the caller decides whether that matters).
 */
export function writeCachedIndex(dir: string, key: string, bytes: Uint8Array): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, key + SUFFIX);
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, bytes);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  const entries = readdirSync(dir)
    .filter((name) => name.endsWith(SUFFIX))
    .map((name) => {
      try {
        return { name, mtime: statSync(join(dir, name)).mtimeMs };
      } catch {
        return { name, mtime: 0 }; // removed meanwhile by another process
      }
    })
    .sort((a, b) => b.mtime - a.mtime || (a.name < b.name ? -1 : 1));
  for (const { name } of entries.slice(DEFAULTS.indexCache.maxFiles)) {
    if (name !== key + SUFFIX) rmSync(join(dir, name), { force: true });
  }
}
