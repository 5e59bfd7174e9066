/**
 * The default learned-use store: one JSON file in the user's cache directory
 * ($XDG_CACHE_HOME/toolsearch/learned.json, beside the embedding cache).
 *
 * Crash safety: every write goes to a temp file that is renamed over the old
 * one, so the file is always the old state or the new one, never a torn mix.
 *
 * Several gateway processes on one machine: a record reads, merges and rewrites
 * the file under a lock file (created with O_EXCL), so no process overwrites
 * another's events. We chose a lock over per-process append logs because the
 * file then stays one small, readable, bounded document, and a write under the
 * lock is a few milliseconds. A lock left by a killed process is recovered: it
 * names its pid and host, and is broken when that pid is gone (same host) or
 * when it is older than `staleLockMs` (any host, e.g. a shared home directory).
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { defaultCacheDir } from '@toolsearch/core-search';
import { LEARN_LOCK, stderrLog } from '../defaults.js';
import { AdapterError } from '../errors.js';
import { mergeState, normalizeEvents, parseState } from './aggregate.js';
import type { LearnEvents, LearnedState, UsageStore } from './types.js';

export const LEARNED_FILE = 'learned.json';
const FORMAT = 'toolsearch-learned';
const VERSION = 1;

export interface FileStoreOptions {
  /** The store file; default `defaultCacheDir(env)/learned.json`. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** A lock older than this is taken to be left by a crash. Default LEARN_LOCK.staleMs (defaults.ts). */
  staleLockMs?: number;
  /** How long a record waits for the lock before giving up. Default LEARN_LOCK.timeoutMs. */
  lockTimeoutMs?: number;
  now?: () => number;
}

export function defaultLearnedFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(defaultCacheDir(env), LEARNED_FILE);
}

interface LockInfo {
  pid: number;
  host: string;
  nonce: string;
  at: number;
}

export class FileUsageStore implements UsageStore {
  readonly file: string;
  readonly description: string;
  private readonly lockFile: string;
  private readonly log: (line: string) => void;
  private readonly staleLockMs: number;
  private readonly lockTimeoutMs: number;
  private readonly now: () => number;
  /** Writes of this process run one after another; the lock orders them against other processes. */
  private chain: Promise<void> = Promise.resolve();
  private warnedCorrupt = false;

  constructor(options: FileStoreOptions = {}) {
    this.file = options.file ?? defaultLearnedFile(options.env);
    this.description = `file ${this.file}`;
    this.lockFile = `${this.file}.lock`;
    this.log = options.log ?? stderrLog;
    this.staleLockMs = options.staleLockMs ?? LEARN_LOCK.staleMs;
    this.lockTimeoutMs = options.lockTimeoutMs ?? LEARN_LOCK.timeoutMs;
    this.now = options.now ?? Date.now;
  }

  async record(events: LearnEvents): Promise<void> {
    const fresh = normalizeEvents(events, this.now());
    if (fresh.uses.length + fresh.together.length === 0) return;
    await this.serial(() =>
      this.locked(async () => {
        const current = await this.read(true);
        await this.write(mergeState(current, fresh, this.now()));
      }),
    );
  }

  /** The stored state. Reads need no lock: the file is only ever replaced whole. */
  async load(): Promise<LearnedState> {
    await this.chain;
    return this.read(false);
  }

  clear(): Promise<void> {
    return this.serial(() => this.locked(() => rm(this.file, { force: true })));
  }

  async close(): Promise<void> {
    await this.chain;
  }

  private serial(task: () => Promise<void>): Promise<void> {
    const run = this.chain.then(task);
    this.chain = run.catch(() => {});
    return run;
  }

  /**
   * Reads and validates the file. A file that is not ours or not JSON is set
   * aside (renamed to `learned.json.corrupt-<time>`) when `setAside` (we hold
   * the lock), and warned about once; its uses are lost, the store goes on.
   */
  private async read(setAside: boolean): Promise<LearnedState> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { uses: [], together: [] };
      throw new AdapterError('STORE_ERROR', `cannot read ${this.file}: ${(err as Error).message}`);
    }
    let state: LearnedState | undefined;
    try {
      const json = JSON.parse(text) as Record<string, unknown>;
      if (json.format === FORMAT && json.version === VERSION) state = parseState(json, this.now());
    } catch {
      state = undefined;
    }
    if (state) return state;
    if (!this.warnedCorrupt) {
      this.warnedCorrupt = true;
      this.log(
        `toolsearch-mcp: learned-use store ${this.file} is unreadable; ${setAside ? 'set aside, starting afresh' : 'ignored'}`,
      );
    }
    if (setAside) await rename(this.file, `${this.file}.corrupt-${this.now()}`).catch(() => {});
    return { uses: [], together: [] };
  }

  private async write(state: LearnedState): Promise<void> {
    const text = `${JSON.stringify({ format: FORMAT, version: VERSION, ...state })}\n`;
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temp, text, { mode: 0o600 });
      await rename(temp, this.file);
    } catch (err) {
      await rm(temp, { force: true });
      throw new AdapterError('STORE_ERROR', `cannot write ${this.file}: ${(err as Error).message}`);
    }
  }

  private async locked(task: () => Promise<void>): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    const mine: LockInfo = {
      pid: process.pid,
      host: hostname(),
      nonce: randomBytes(8).toString('hex'),
      at: this.now(),
    };
    const deadline = Date.now() + this.lockTimeoutMs;
    let wait = 2;
    // The lock appears whole or not at all: written to a temp file, then hard-linked
    // to the lock's name (link never overwrites, so exactly one process wins).
    const pending = `${this.lockFile}.${process.pid}.${mine.nonce}.tmp`;
    await writeFile(pending, JSON.stringify(mine), { mode: 0o600 });
    try {
      for (;;) {
        try {
          await link(pending, this.lockFile);
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
            throw new AdapterError('STORE_ERROR', `cannot lock ${this.file}: ${(err as Error).message}`);
        }
        if (await this.breakStaleLock()) continue;
        if (Date.now() > deadline)
          throw new AdapterError(
            'STORE_ERROR',
            `${this.lockFile} has been held for over ${this.lockTimeoutMs} ms; uses not recorded`,
          );
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(wait * 2, 20);
      }
    } finally {
      await rm(pending, { force: true });
    }
    try {
      await this.removeOrphanTemps();
      await task();
    } finally {
      await this.release(mine);
    }
  }

  /** Only our own lock is removed: one broken as stale and re-taken by another process is theirs now. */
  private async release(mine: LockInfo): Promise<void> {
    const held = await this.readLock(this.lockFile);
    if (held?.nonce === mine.nonce) await rm(this.lockFile, { force: true });
  }

  /**
   * Breaks a lock left by a dead process. The lock is renamed (atomic, so of
   * two processes breaking it only one succeeds) and checked to be the stale
   * one we judged; a live lock taken meanwhile is put back with link(), which
   * never overwrites.
   */
  private async breakStaleLock(): Promise<boolean> {
    const held = await this.readLock(this.lockFile);
    if (held === null) return true; // released meanwhile: retry at once
    if (held === undefined ? !(await this.olderThanStale(this.lockFile)) : !this.isStale(held)) return false;
    // Named by its breaker, as temps are: a breaker killed before the rm below leaves
    // a file the next lock holder removes as soon as that process is gone.
    const aside = `${this.lockFile}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
    try {
      await rename(this.lockFile, aside);
    } catch {
      return true; // someone else broke or released it
    }
    const moved = await this.readLock(aside);
    if (held && moved && moved.nonce !== held.nonce) await link(aside, this.lockFile).catch(() => {});
    await rm(aside, { force: true });
    return true;
  }

  /** A lock that cannot be parsed (never written by us) is stale by age alone. */
  private async olderThanStale(path: string): Promise<boolean> {
    try {
      return Date.now() - (await stat(path)).mtimeMs > this.staleLockMs;
    } catch {
      return true;
    }
  }

  private isStale(lock: LockInfo): boolean {
    if (this.now() - lock.at > this.staleLockMs) return true;
    if (lock.host !== hostname()) return false;
    try {
      process.kill(lock.pid, 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }

  /**
   * The lock's content: null when there is no lock, undefined when it cannot be
   * parsed (not written by this code: stale by age).
   */
  private async readLock(path: string): Promise<LockInfo | null | undefined> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return null;
    }
    try {
      const info = JSON.parse(text) as LockInfo;
      if (typeof info.pid === 'number' && typeof info.nonce === 'string' && typeof info.at === 'number')
        return info;
    } catch {
      // fall through
    }
    return undefined;
  }

  /** Temp files of writers killed mid-write; ours to remove while we hold the lock. */
  private async removeOrphanTemps(): Promise<void> {
    const dir = dirname(this.file);
    const base = basename(this.file);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.startsWith(`${base}.`)) continue;
      const path = join(dir, name);
      // Write temps, lock temps and set-aside locks name their process: removed once it is gone.
      const temp = /\.(?:lock\.)?(\d+)\.[0-9a-f]+\.(?:tmp|stale)$/.exec(name.slice(base.length));
      if (temp) {
        const pid = Number(temp[1]);
        if (pid !== process.pid && !alive(pid)) await rm(path, { force: true });
      } else if (name.endsWith('.stale') && (await this.olderThanStale(path))) {
        await rm(path, { force: true }); // set aside by an older version that did not name its breaker
      }
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
