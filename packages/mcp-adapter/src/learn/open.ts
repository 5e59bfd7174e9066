/**
 * Which store learning uses, from the settings every mode shares: a redis://
 * URL selects the shared Redis store, anything else is a file path, nothing at
 * all the default file in the cache directory. TOOLSEARCH_NO_LEARN=1 (or true)
 * switches learning off wherever the adapter runs.
 */
import { envFlag } from '../defaults.js';
import { FileUsageStore } from './file-store.js';
import { RedisUsageStore } from './redis-store.js';
import type { UsageStore } from './types.js';

/** How learning is configured: false (off) or where and how often to sync. */
export type LearnOption =
  | false
  | {
      /** A store object, a redis:// URL, or a file path; default the cache-dir file. */
      store?: UsageStore | string;
      /** Re-read the store this often for other processes' uses; default 2 s for Redis, 30 s for a file, 0 = never. */
      refreshMs?: number;
    };

export const DEFAULT_REFRESH_MS = { redis: 2_000, file: 30_000 } as const;

export function learningDisabledByEnv(env: NodeJS.ProcessEnv): boolean {
  return envFlag(env, 'TOOLSEARCH_NO_LEARN');
}

export function isRedisUrl(spec: string): boolean {
  return /^rediss?:\/\//i.test(spec);
}

/** The store a setting names, and how often to refresh from it. */
export function openStore(
  option: Exclude<LearnOption, false>,
  context: { env?: NodeJS.ProcessEnv; log?: (line: string) => void },
): { store: UsageStore; refreshMs: number } {
  const spec = option.store;
  if (spec !== undefined && typeof spec !== 'string')
    return { store: spec, refreshMs: option.refreshMs ?? DEFAULT_REFRESH_MS.file };
  if (spec !== undefined && isRedisUrl(spec))
    return {
      store: new RedisUsageStore({ url: spec, ...(context.log ? { log: context.log } : {}) }),
      refreshMs: option.refreshMs ?? DEFAULT_REFRESH_MS.redis,
    };
  return {
    store: new FileUsageStore({
      ...(spec !== undefined ? { file: spec } : {}),
      ...(context.env ? { env: context.env } : {}),
      ...(context.log ? { log: context.log } : {}),
    }),
    refreshMs: option.refreshMs ?? DEFAULT_REFRESH_MS.file,
  };
}
