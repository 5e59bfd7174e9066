/**
 * Two gateway processes sharing the Redis store: a use learned through one is
 * visible through the other (issue 14), and a gateway with --no-learn records
 * nothing. Real CLI processes over HTTP, a real redis-server on loopback.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisUsageStore } from '../src/learn/redis-store.js';
import { fixtureServer } from './fixtures/servers.js';
import { textOf } from './gateway-helpers.js';
import { HAVE_REDIS, type RedisServer, startRedis } from './redis-helpers.js';

const TSX = createRequire(import.meta.url).resolve('tsx/cli');
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

describe.skipIf(!HAVE_REDIS)('two gateway processes sharing the Redis learned-use store', () => {
  let redis: RedisServer;
  let dir: string;
  const children: ChildProcess[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), 'toolsearch-replicas-'));
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    for (const child of children) child.kill('SIGTERM');
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function gateway(extra: string[] = []): Promise<Client> {
    const config = join(dir, 'mcp.json');
    const { name, ...fixture } = fixtureServer('fixture');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { [name]: fixture },
        toolsearch: { learn: { store: redis.url, refreshMs: 100 } },
      }),
    );
    const child = spawn(
      process.execPath,
      [TSX, '--conditions=toolsearch-source', CLI, '--config', config, '--http', '--port', '0', ...extra],
      // The test run switches learning off by environment; these gateways learn.
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TOOLSEARCH_NO_LEARN: '' } },
    );
    children.push(child);
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
    });
    await expect
      .poll(() => /on (http:\/\/\S+\/mcp)/.exec(err)?.[1], { timeout: 150_000, interval: 100 })
      .toBeTruthy();
    const url = /on (http:\/\/\S+\/mcp)/.exec(err)?.[1] as string;
    const client = new Client({ name: 'replica-test', version: '1.0.0' });
    client.onerror = () => {};
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(client);
    return client;
  }

  const text = async (client: Client, name: string, args: Record<string, unknown>) =>
    textOf((await client.callTool({ name, arguments: args })) as never);

  it('a use learned through one process is visible through the other; --no-learn records nothing; --clear-learned empties the store', async () => {
    const [a, b, off] = await Promise.all([gateway(), gateway(), gateway(['--no-learn'])]);
    await text(off, 'search_tools', { query: 'repeat after me' });
    await text(off, 'call_tool', { name: 'fixture__echo', arguments: { text: 'x' } });
    await text(a, 'search_tools', { query: 'say my words back to me' });
    await text(a, 'call_tool', { name: 'fixture__echo', arguments: { text: 'private words' } });
    // B learns it from Redis within its refresh interval: its details of the tool show the request.
    await expect
      .poll(async () => text(b, 'search_tools', { query: 'echo', detail: true, limit: 1 }), {
        timeout: 15_000,
        interval: 200,
      })
      .toContain('"say my words back to me"');
    const store = new RedisUsageStore({ url: redis.url, log: () => {} });
    try {
      const state = await store.load();
      // Only A's followed search: nothing from the --no-learn gateway, no argument.
      expect(state.uses).toEqual([
        { query: 'say my words back to me', tool: 'fixture__echo', count: 1, lastSeen: expect.any(Number) },
      ]);
      expect(JSON.stringify(state)).not.toContain('private words');
      const cleared = spawn(
        process.execPath,
        [TSX, '--conditions=toolsearch-source', CLI, '--config', join(dir, 'mcp.json'), '--clear-learned'],
        { stdio: 'ignore' },
      );
      expect(await new Promise((resolve) => cleared.once('exit', resolve))).toBe(0);
      expect((await store.load()).uses).toEqual([]);
    } finally {
      await store.close();
    }
  }, 240_000); // three gateway processes start under tsx: slow on a loaded 2-core machine
});
