import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEARN_LIMITS } from '../src/defaults.js';
import { AdapterError } from '../src/errors.js';
import { Learning } from '../src/learn/learning.js';
import { openStore } from '../src/learn/open.js';
import { RedisUsageStore, redactUrl } from '../src/learn/redis-store.js';
import type { LearnedUse } from '../src/learn/types.js';
import { HAVE_REDIS, type RedisServer, startRedis } from './redis-helpers.js';

describe('redis store selection (no server needed)', () => {
  it('a redis:// setting selects the Redis store, with its password kept out of descriptions', async () => {
    const { store, refreshMs } = openStore(
      { store: 'redis://user:hunter2@127.0.0.1:1/0' },
      { log: () => {} },
    );
    expect(store).toBeInstanceOf(RedisUsageStore);
    expect(store.description).not.toContain('hunter2');
    expect(refreshMs).toBe(2_000);
    await store.close();
    expect(redactUrl('redis://:pw@h:1')).not.toContain('pw');
  });

  it('an unreachable Redis fails a record with a typed error within its timeout', async () => {
    const lines: string[] = [];
    const store = new RedisUsageStore({
      url: 'redis://127.0.0.1:1',
      timeoutMs: 500,
      log: (l) => lines.push(l),
    });
    const error = await store.record({ uses: [{ query: 'a', tool: 't' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterError);
    expect((error as AdapterError).code).toBe('STORE_ERROR');
    await store.close();
  });
});

describe.skipIf(!HAVE_REDIS)('RedisUsageStore on a real redis-server', () => {
  let redis: RedisServer;
  let prefix = 0;
  const stores: RedisUsageStore[] = [];
  const store = () => {
    const s = new RedisUsageStore({ url: redis.url, keyPrefix: `t${prefix}:`, log: () => {} });
    stores.push(s);
    return s;
  };

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await redis?.stop();
  });

  it('adds counts from two writers at once without losing any', async () => {
    prefix++;
    const a = store();
    const b = store();
    const n = 100;
    await Promise.all(
      Array.from({ length: n }, (_, i) => [
        a.record({
          uses: [
            { query: 'shared request', tool: 'shared' },
            { query: `a ${i}`, tool: `t${i % 20}` },
          ],
        }),
        b.record({ uses: [{ query: 'Shared  request', tool: 'shared' }], together: [{ tools: ['x', 'y'] }] }),
      ]).flat(),
    );
    const state = await store().load();
    expect(state.uses.find((u) => u.tool === 'shared')?.count).toBe(2 * n);
    expect(state.uses.filter((u) => u.query.startsWith('a '))).toHaveLength(n);
    expect(state.together).toEqual([{ tools: ['x', 'y'], count: n, lastSeen: expect.any(Number) }]);
  });

  it('bounds what it keeps and trims the hashes, and clear() empties them', async () => {
    prefix++;
    const s = store();
    const uses: LearnedUse[] = Array.from({ length: LEARN_LIMITS.maxUsesPerTool + 5 }, (_, i) => ({
      query: `q ${i}`,
      tool: 'busy',
      count: i + 1,
    }));
    await s.record({ uses });
    await s.record({ uses: [{ query: 'ancient', tool: 'old', lastSeen: 1 }] });
    const state = await s.load();
    expect(state.uses.filter((u) => u.tool === 'busy')).toHaveLength(LEARN_LIMITS.maxUsesPerTool);
    expect(state.uses.some((u) => u.tool === 'old')).toBe(false);
    expect((await s.load()).uses).toHaveLength(LEARN_LIMITS.maxUsesPerTool); // trimmed, still the same
    await s.clear();
    expect(await s.load()).toEqual({ uses: [], together: [] });
  });

  it('a use learned through one process reaches another within its refresh interval', async () => {
    prefix++;
    const fedB: Required<LearnedUse>[] = [];
    const target = (fed: Required<LearnedUse>[]) => ({
      has: () => true,
      learn: (u: readonly Required<LearnedUse>[]) => void fed.push(...u),
    });
    const a = await Learning.start({ store: store(), target: target([]), refreshMs: 0, log: () => {} });
    const b = await Learning.start({ store: store(), target: target(fedB), refreshMs: 50, log: () => {} });
    a.use('Rename the orders table', 'db__rename_collection');
    a.use('rename the orders table', 'db__rename_collection');
    await a.settled();
    for (let i = 0; i < 200 && fedB.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(fedB).toEqual([
      {
        query: 'rename the orders table',
        tool: 'db__rename_collection',
        count: 2,
        lastSeen: expect.any(Number),
      },
    ]);
    // Later refreshes feed only what is new: B's engine is not given the same uses twice.
    await b.refresh();
    expect(fedB).toHaveLength(1);
    await a.close();
    await b.close();
  });
});
