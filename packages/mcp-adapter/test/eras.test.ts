/**
 * Both protocol eras against one gateway over real upstream servers
 * (server-memory and the fixture), in process over Streamable HTTP: a
 * 2026-07-28 client completes search -> load -> call through handles while its
 * tool list never changes; 2025-era clients keep native binding.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gateway, type HttpHandle, serveHttp, type UseEvent } from '../src/index.js';
import {
  connectClient,
  type EraClient,
  legacyConversation,
  MODERN,
  STATELESS_LIST,
  statelessConversation,
} from './eras-helpers.js';
import { fixtureServer, memoryServer } from './fixtures/servers.js';

const KEY = 'k'.repeat(40);
let dir: string;
let gateway: Gateway;
let http: HttpHandle;
const uses: UseEvent[] = [];
const clients: EraClient[] = [];

async function client(kind: EraClient['kind']): Promise<EraClient> {
  const c = await connectClient(kind, { url: http.url });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolsearch-eras-'));
  gateway = await Gateway.start({
    config: {
      upstreams: [memoryServer(join(dir, 'memory.jsonl')), fixtureServer('fx')],
      alwaysLoaded: ['fx__whoami'],
      maxBoundTools: 40,
      callTimeoutMs: 20_000,
      handleKey: KEY,
    },
    engine: { embedding: false },
    onUse: (event) => uses.push(event),
    log: () => {},
  });
  http = await serveHttp({
    createServer: (context) => gateway.createServer(context),
    port: 0,
    log: () => {},
  });
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await http?.close();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a 2026-07-28 client (SDK v2, stateless)', () => {
  it('searches, loads and calls through handles; its tool list never changes', async () => {
    const c = await client('v2-modern');
    await statelessConversation(c, 'Ada');
    // The always-loaded tool answers directly; nothing else shows up, whatever was called.
    expect((await c.call('fx__whoami')).isError).toBe(false);
    expect(await c.names()).toEqual(STATELESS_LIST);
    expect(http.sessionCount()).toBe(0);
  });

  it('gives schemas in the search answer on request', async () => {
    const c = await client('v2-modern');
    const found = await c.call('search_tools', { query: 'echo text back', schemas: true, limit: 2 });
    expect(found.text).toMatch(/fx__echo \[fx\].*\n {3}input: \{"type":"object"/);
  });

  it('refuses a tampered or forged handle with INVALID_HANDLE, and a bad one does not call', async () => {
    const c = await client('v2-modern');
    const found = await c.call('search_tools', { query: 'echo text back' });
    const handle = found.handle as string;
    const tampered = `${handle.slice(0, 10)}${handle[10] === 'A' ? 'B' : 'A'}${handle.slice(11)}`;
    const refused = await c.call('call_tool', {
      name: 'fx__echo',
      arguments: { text: 'x' },
      handle: tampered,
    });
    expect(refused).toMatchObject({ isError: true, code: 'INVALID_HANDLE' });
    const forged = await c.call('load_toolset', { tools: ['fx__echo'], handle: 'v1.e30.AAAA' });
    expect(forged).toMatchObject({ isError: true, code: 'INVALID_HANDLE' });
    const huge = await c.call('call_tool', {
      name: 'fx__echo',
      arguments: { text: 'x' },
      handle: 'x'.repeat(9000),
    });
    expect(huge).toMatchObject({ isError: true, code: 'INVALID_HANDLE' });
    expect(huge.text).toContain('over 8192');
  });

  it('does not offer unload_toolset, and refuses it', async () => {
    const c = await client('v2-modern');
    expect(await c.names()).not.toContain('unload_toolset');
    expect(await c.call('unload_toolset', {})).toMatchObject({ isError: true, code: 'UNKNOWN_TOOL' });
  });

  it('reports a search followed by a load and a call once per tool, with the query', async () => {
    const c = await client('v2-modern');
    uses.length = 0;
    const found = await c.call('search_tools', { query: 'echo text back', limit: 3 });
    expect(found.text).toContain('fx__echo');
    const loaded = await c.call('load_toolset', { tools: ['fx__echo'], handle: found.handle });
    await c.call('call_tool', { name: 'fx__echo', arguments: { text: 'hi' }, handle: loaded.handle });
    // A call without a handle follows no search: nothing to learn from.
    await c.call('call_tool', { name: 'fx__echo', arguments: { text: 'hi' } });
    expect(uses).toEqual([{ query: 'echo text back', tool: 'fx__echo', via: 'load_toolset' }]);

    // A new search, followed straight by a call: recorded as a call, under the new query.
    const again = await c.call('search_tools', { query: 'echo the text', limit: 3 });
    expect(again.text).toContain('fx__echo');
    const echoed = await c.call('call_tool', {
      name: 'fx__echo',
      arguments: { text: 'hi' },
      handle: again.handle,
    });
    expect(echoed.isError).toBe(false);
    expect(uses.at(-1)).toEqual({ query: 'echo the text', tool: 'fx__echo', via: 'call' });
    expect(uses).toHaveLength(2);
  });
});

describe.each(['v1', 'v2-legacy'] as const)('a 2025-era client (%s)', (kind) => {
  it('searches, loads into its tool list (list_changed) and calls natively', async () => {
    const c = await client(kind);
    uses.length = 0;
    await legacyConversation(c, `Grace-${kind}`);
    expect(uses).toEqual([
      {
        query: 'create entities in the knowledge graph',
        tool: 'memory__create_entities',
        via: 'load_toolset',
      },
    ]);
    expect(http.sessionCount()).toBeGreaterThan(0);
  });
});

describe('protocol versions', () => {
  it('answers a 2026-07-28 request for a revision we do not speak with UnsupportedProtocolVersion', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2099-01-01',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' },
        },
      },
    };
    const res = await fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2099-01-01',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as { error?: { code: number; message: string; data?: unknown } };
    expect(answer.error?.message ?? '').toMatch(/[Uu]nsupported protocol version/);
    expect(JSON.stringify(answer.error?.data)).toContain(MODERN);
  });
});
