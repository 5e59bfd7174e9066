/**
 * Two gateway processes sharing a handle key behind a round-robin proxy on
 * 127.0.0.1: one 2026-07-28 conversation alternates between them and still
 * works, because its state travels in handles; a tampered handle is refused;
 * and with one process killed mid-conversation the other carries it on.
 * A 2025-era HTTP session lives in the process that initialized it: the other
 * replica answers its requests 404 (the client must initialize again), so
 * those clients need session affinity, which a sticky proxy gives them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, type EraClient, legacyConversation, statelessConversation } from './eras-helpers.js';
import { fixtureServer, memoryServer, waitFor } from './fixtures/servers.js';
import { INITIALIZE, rawRequest } from './http-helpers.js';

// tsx as a loader in the gateway's own process (not its CLI, which runs a child): killing
// the process we spawned must kill the gateway.
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
/** Starting two gateways through tsx takes seconds, far more on a loaded machine. */
const SLOW = 180_000;

interface Replica {
  url: URL;
  child: ChildProcess;
}

/** What the proxy sent where: the replica index and the JSON-RPC method (tools/call: the tool). */
interface Routed {
  replica: number;
  what: string;
}

/**
 * A tiny round-robin load balancer: each request goes to the next replica;
 * one that refuses the connection is skipped, as a balancer's health check
 * would. Bodies are buffered so a request can be retried on the next replica.
 * `sticky`: a request with an Mcp-Session-Id goes to the replica that issued
 * that id (session affinity, as balancers offer by header or cookie).
 */
function roundRobin(replicas: Replica[], routed: Routed[], sticky = false): Promise<Server> {
  let next = 0;
  const owners = new Map<string, number>();
  const proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let what = req.method ?? '';
    try {
      const message = JSON.parse(body.toString('utf8')) as { method?: string; params?: { name?: string } };
      what = message.method === 'tools/call' ? `call:${message.params?.name}` : (message.method ?? what);
    } catch {}
    const session = req.headers['mcp-session-id'];
    const owner = sticky && typeof session === 'string' ? owners.get(session) : undefined;
    const attempt = (left: number): void => {
      const index = owner ?? next++ % replicas.length;
      const target = replicas[index] as Replica;
      const forward = request(
        target.url,
        { method: req.method, headers: { ...req.headers, host: target.url.host } },
        (answer) => {
          routed.push({ replica: index, what });
          const issued = answer.headers['mcp-session-id'];
          if (typeof issued === 'string') owners.set(issued, index);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => {
        if (left > 1) attempt(left - 1);
        else if (!res.headersSent) res.writeHead(502).end();
      });
      forward.end(body);
    };
    attempt(replicas.length);
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

async function startReplica(configPath: string, key: string): Promise<Replica> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      TSX_LOADER,
      '--conditions=toolsearch-source',
      CLI,
      '--config',
      configPath,
      '--http',
      '--port',
      '0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TOOLSEARCH_HANDLE_KEY: key } },
  );
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  await waitFor(
    () => /on http:\/\/\S+\/mcp/.test(err) || child.exitCode !== null,
    SLOW,
    'a gateway to listen',
  );
  const url = /on (http:\/\/\S+\/mcp)/.exec(err)?.[1];
  if (!url) throw new Error(`gateway did not start: ${err}`);
  return { url: new URL(url), child };
}

const KEY = 'replicas-share-this-key-0123456789abcdef';
let dir: string;
let replicas: Replica[] = [];
let proxy: Server;
let stickyProxy: Server;
const routed: Routed[] = [];
const clients: EraClient[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolsearch-replicas-'));
  const configPath = join(dir, 'mcp.json');
  const servers = [memoryServer(join(dir, 'memory.jsonl')), fixtureServer('fx')];
  const mcpServers = Object.fromEntries(servers.map(({ name, ...rest }) => [name, rest]));
  writeFileSync(configPath, JSON.stringify({ mcpServers, toolsearch: { alwaysLoaded: ['fx__whoami'] } }));
  replicas = await Promise.all([startReplica(configPath, KEY), startReplica(configPath, KEY)]);
  proxy = await roundRobin(replicas, routed);
  stickyProxy = await roundRobin(replicas, routed, true);
}, SLOW);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const p of [proxy, stickyProxy])
    await new Promise<void>((resolve) => (p ? p.close(() => resolve()) : resolve()));
  for (const r of replicas)
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function modernClient(): Promise<EraClient> {
  const { port } = proxy.address() as AddressInfo;
  const c = await connectClient('v2-modern', { url: `http://127.0.0.1:${port}/mcp` });
  clients.push(c);
  return c;
}

/** Where each meta-tool call of the conversation went. */
const servedBy = (what: string) => routed.filter((r) => r.what === what).map((r) => r.replica);

describe('two gateway replicas behind a round-robin proxy', () => {
  it(
    'one 2026-07-28 conversation alternates between them and completes search -> load -> call',
    async () => {
      const c = await modernClient();
      routed.length = 0;
      await statelessConversation(c, 'Ada-replicas');
      expect(new Set(routed.map((r) => r.replica))).toEqual(new Set([0, 1]));

      // Back to back, so each step lands on the other replica than the one that minted its handle.
      routed.length = 0;
      const found = await c.call('search_tools', { query: 'echo text back' });
      const loaded = await c.call('load_toolset', { tools: ['fx__echo'], handle: found.handle });
      const called = await c.call('call_tool', {
        name: 'fx__echo',
        arguments: { text: 'hi' },
        handle: loaded.handle,
      });
      expect(loaded.isError).toBe(false);
      expect(called.isError).toBe(false);
      const [search] = servedBy('call:search_tools');
      const [load] = servedBy('call:load_toolset');
      const [call] = servedBy('call:call_tool');
      expect(load).not.toBe(search);
      expect(call).not.toBe(load);
    },
    SLOW,
  );

  it(
    'refuses a tampered handle with INVALID_HANDLE on either replica',
    async () => {
      const c = await modernClient();
      const found = await c.call('search_tools', { query: 'echo text back' });
      const handle = found.handle as string;
      // Flip one character of the signed body: the signature no longer matches.
      const at = handle.indexOf('.') + 5;
      const tampered = `${handle.slice(0, at)}${handle[at] === 'A' ? 'B' : 'A'}${handle.slice(at + 1)}`;
      for (let i = 0; i < 2; i++)
        expect(
          await c.call('call_tool', { name: 'fx__echo', arguments: { text: 'x' }, handle: tampered }),
        ).toMatchObject({ isError: true, code: 'INVALID_HANDLE' });
      expect(new Set(servedBy('call:call_tool'))).toEqual(new Set([0, 1]));
    },
    SLOW,
  );

  it(
    'answers a 2025-era session it does not hold with 404, so the client initializes again',
    async () => {
      const [a, b] = replicas as [Replica, Replica];
      const post = (url: URL, body: object, session?: string) =>
        rawRequest(
          url.href,
          'POST',
          { 'mcp-protocol-version': '2025-06-18', ...(session ? { 'mcp-session-id': session } : {}) },
          JSON.stringify(body),
        );
      const opened = await post(a.url, INITIALIZE);
      const session = opened.headers['mcp-session-id'];
      expect(opened.status).toBe(200);
      expect(session).toBeTypeOf('string');
      // Streamable HTTP (2025): a server that does not know a session id answers 404, and the
      // client must then start a new session with initialize.
      const elsewhere = await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, String(session));
      expect(elsewhere.status).toBe(404);
      expect((JSON.parse(elsewhere.body) as { error: { message: string } }).error.message).toContain(
        'initialize again',
      );
      const again = await post(b.url, INITIALIZE);
      expect(again.status).toBe(200);
      expect(again.headers['mcp-session-id']).toBeTypeOf('string');
      // The replica that issued it still serves it.
      const home = await post(a.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, String(session));
      expect(home.status).toBe(200);
    },
    SLOW,
  );

  it(
    '2025-era clients complete search -> load -> call on either replica behind a sticky proxy',
    async () => {
      const { port } = stickyProxy.address() as AddressInfo;
      routed.length = 0;
      for (const name of ['Grace-sticky', 'Alan-sticky']) {
        const c = await connectClient('v1', { url: `http://127.0.0.1:${port}/mcp` });
        clients.push(c);
        await legacyConversation(c, name);
      }
      // Round robin placed the two sessions' initializes on different replicas.
      expect(new Set(routed.filter((r) => r.what === 'initialize').map((r) => r.replica))).toEqual(
        new Set([0, 1]),
      );
    },
    SLOW,
  );

  it(
    'carries a conversation on through the other replica when one is killed mid-conversation',
    async () => {
      const c = await modernClient();
      const found = await c.call('search_tools', { query: 'echo text back' });
      expect(found.handle).toBeTypeOf('string');
      const victim = replicas[0] as Replica;
      victim.child.kill('SIGKILL');
      await waitFor(() => victim.child.signalCode !== null, 10_000, 'the replica to die');
      routed.length = 0;
      const loaded = await c.call('load_toolset', { tools: ['fx__echo'], handle: found.handle });
      expect(loaded.isError).toBe(false);
      const called = await c.call('call_tool', {
        name: 'fx__echo',
        arguments: { text: 'still here' },
        handle: loaded.handle,
      });
      expect(called.isError).toBe(false);
      expect(called.text).toContain('still here');
      expect(new Set(routed.map((r) => r.replica))).toEqual(new Set([1]));
    },
    SLOW,
  );
});
