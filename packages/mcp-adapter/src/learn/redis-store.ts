/**
 * A learned-use store on Redis, shared by any number of gateway processes
 * (replicas behind a load balancer). Counts live in hashes and grow with
 * HINCRBY, which Redis applies atomically, so concurrent writers lose nothing;
 * each process re-reads the hashes every `refreshMs` (Learning), so a use
 * recorded by one replica reaches the others within that time.
 *
 * Keys (prefix default "toolsearch:learn:"): uses:count / uses:seen map a
 * JSON [query, tool] to its count / latest epoch ms; pairs:count / pairs:seen
 * the same for a JSON [toolA, toolB]. Loading trims what the bounds drop
 * (aged or beyond the per-tool and total caps), so the hashes stay bounded.
 */
import type { RedisClientType } from '@redis/client';
import { stderrLog } from '../defaults.js';
import { AdapterError } from '../errors.js';
import { boundState, normalizeEvents, pairKey, parseState, useKey } from './aggregate.js';
import type { LearnEvents, LearnedState, UsageStore } from './types.js';

export interface RedisStoreOptions {
  /** redis:// or rediss:// URL (credentials may be in it; they are never logged). */
  url: string;
  keyPrefix?: string;
  /** How long one command (or the first connection) may take. Default 5000 ms. */
  timeoutMs?: number;
  log?: (line: string) => void;
  now?: () => number;
}

/** The plain client (no modules, functions or scripts): all this store uses. */
// biome-ignore lint/complexity/noBannedTypes: the client's own type parameters for "none"
type Client = RedisClientType<{}, {}, {}, 2, {}>;

/** The URL without its password, for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis (unparseable URL)';
  }
}

export class RedisUsageStore implements UsageStore {
  readonly description: string;
  private client: Client | undefined;
  private opening: Promise<Client> | undefined;
  private readonly url: string;
  private readonly log: (line: string) => void;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private connecting: Promise<void> | undefined;
  private closed = false;

  constructor(options: RedisStoreOptions) {
    let protocol: string;
    try {
      protocol = new URL(options.url).protocol;
    } catch {
      throw new AdapterError('INVALID_CONFIG', `learn store: "${redactUrl(options.url)}" is not a URL`);
    }
    if (protocol !== 'redis:' && protocol !== 'rediss:')
      throw new AdapterError('INVALID_CONFIG', `learn store: expected a redis:// URL, got ${protocol}`);
    this.description = `redis ${redactUrl(options.url)}`;
    this.prefix = options.keyPrefix ?? 'toolsearch:learn:';
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.now = options.now ?? Date.now;
    this.url = options.url;
    this.log = options.log ?? stderrLog;
  }

  /** The client, made once, on first use, from the optional @redis/client package. */
  private open(): Promise<Client> {
    this.opening ??= this.make();
    return this.opening;
  }

  private async make(): Promise<Client> {
    let redis: typeof import('@redis/client');
    try {
      redis = await import('@redis/client');
    } catch {
      throw new AdapterError(
        'STORE_ERROR',
        'the Redis learn store needs the optional package @redis/client: npm install @redis/client',
      );
    }
    const client = redis.createClient({
      url: this.url,
      // Commands fail at once while Redis is away (the caller logs and goes on) instead of queueing without bound.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: this.timeoutMs,
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5_000),
      },
    });
    let warned = false;
    // Without a listener an 'error' event would end the process; one line per outage is enough.
    client.on('error', (err: Error) => {
      if (warned) return;
      warned = true;
      this.log(`toolsearch-mcp: ${this.description}: ${err.message}`);
    });
    client.on('ready', () => {
      warned = false;
    });
    this.client = client;
    return client;
  }

  async record(events: LearnEvents): Promise<void> {
    const fresh = normalizeEvents(events, this.now());
    if (fresh.uses.length + fresh.together.length === 0) return;
    const client = await this.connect();
    const multi = client.multi();
    for (const u of fresh.uses) {
      const field = useKey(u.query, u.tool);
      multi.hIncrBy(this.key('uses:count'), field, u.count);
      multi.hSet(this.key('uses:seen'), field, String(u.lastSeen));
    }
    for (const p of fresh.together) {
      const field = pairKey(...p.tools);
      multi.hIncrBy(this.key('pairs:count'), field, p.count);
      multi.hSet(this.key('pairs:seen'), field, String(p.lastSeen));
    }
    await this.timed(multi.exec(), 'record');
  }

  async load(): Promise<LearnedState> {
    const client = await this.connect();
    const [useCounts, useSeen, pairCounts, pairSeen] = await this.timed(
      Promise.all([
        client.hGetAll(this.key('uses:count')),
        client.hGetAll(this.key('uses:seen')),
        client.hGetAll(this.key('pairs:count')),
        client.hGetAll(this.key('pairs:seen')),
      ]),
      'load',
    );
    const now = this.now();
    const raw = {
      uses: entries(useCounts, useSeen).map(([[query, tool], count, lastSeen]) => ({
        query,
        tool,
        count,
        lastSeen,
      })),
      together: entries(pairCounts, pairSeen).map(([tools, count, lastSeen]) => ({ tools, count, lastSeen })),
    };
    const state = parseState(raw, now) ?? { uses: [], together: [] };
    await this.trim(client, useCounts, pairCounts, state);
    return boundState(state, now);
  }

  async clear(): Promise<void> {
    const client = await this.connect();
    await this.timed(
      client.del(['uses:count', 'uses:seen', 'pairs:count', 'pairs:seen'].map((k) => this.key(k))),
      'clear',
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    if (client?.isOpen) await client.close().catch(() => client.destroy());
  }

  /** Deletes the fields the bounds dropped, so the hashes never outgrow them for long. */
  private async trim(
    client: Client,
    useCounts: Record<string, string>,
    pairCounts: Record<string, string>,
    kept: LearnedState,
  ): Promise<void> {
    const keepUses = new Set(kept.uses.map((u) => useKey(u.query, u.tool)));
    const keepPairs = new Set(kept.together.map((p) => pairKey(...p.tools)));
    const dropUses = Object.keys(useCounts).filter((f) => !keepUses.has(f));
    const dropPairs = Object.keys(pairCounts).filter((f) => !keepPairs.has(f));
    if (dropUses.length + dropPairs.length === 0) return;
    const multi = client.multi();
    if (dropUses.length > 0) {
      multi.hDel(this.key('uses:count'), dropUses);
      multi.hDel(this.key('uses:seen'), dropUses);
    }
    if (dropPairs.length > 0) {
      multi.hDel(this.key('pairs:count'), dropPairs);
      multi.hDel(this.key('pairs:seen'), dropPairs);
    }
    await this.timed(multi.exec(), 'trim');
  }

  private key(name: string): string {
    return `${this.prefix}${name}`;
  }

  private async connect(): Promise<Client> {
    if (this.closed) throw new AdapterError('STORE_ERROR', `${this.description} is closed`);
    const client = await this.open();
    if (client.isReady) return client;
    this.connecting ??= this.timed(
      client.connect().then(() => undefined),
      'connect',
    ).finally(() => {
      this.connecting = undefined;
    });
    await this.connecting;
    return client;
  }

  private async timed<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new AdapterError('STORE_ERROR', `${this.description}: ${what} took over ${this.timeoutMs} ms`),
          ),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([work, timeout]);
    } catch (err) {
      if (err instanceof AdapterError) throw err;
      throw new AdapterError('STORE_ERROR', `${this.description}: ${what} failed: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Pairs a count hash with its time hash; fields whose JSON or numbers are malformed are skipped. */
function entries(
  counts: Record<string, string>,
  seen: Record<string, string>,
): [[string, string], number, number][] {
  const out: [[string, string], number, number][] = [];
  for (const [field, count] of Object.entries(counts)) {
    let key: unknown;
    try {
      key = JSON.parse(field);
    } catch {
      continue;
    }
    if (!Array.isArray(key) || key.length !== 2 || typeof key[0] !== 'string' || typeof key[1] !== 'string')
      continue;
    out.push([[key[0], key[1]], Number(count), Number(seen[field] ?? 0)]);
  }
  return out;
}
