import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Gateway, type HttpHandle, META_TOOLS, serveHttp, withToolSearch } from '../src/index.js';
import { fixtureServer, memoryServer } from './fixtures/servers.js';
import { type TestClient, wrapClient } from './gateway-helpers.js';
import { INITIALIZE, rawRequest } from './http-helpers.js';

const META = META_TOOLS.map((t) => t.name);
let dir: string;
let gateway: Gateway;
const handles: HttpHandle[] = [];
const clients: TestClient[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolsearch-http-'));
  gateway = await Gateway.start({
    config: {
      upstreams: [memoryServer(join(dir, 'memory.jsonl')), fixtureServer('fx')],
      alwaysLoaded: [],
      maxBoundTools: 40,
      callTimeoutMs: 10_000,
    },
    engine: { embedding: false },
    log: () => {},
  });
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const h of handles) await h.close();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(options: { token?: string } = {}): Promise<HttpHandle> {
  const handle = await serveHttp({
    createServer: () => gateway.createServer(),
    port: 0,
    log: () => {},
    ...options,
  });
  handles.push(handle);
  return handle;
}

async function httpClient(url: string, token?: string): Promise<TestClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {}),
  });
  const client = new Client({ name: 'http-test', version: '1.0.0' });
  const wrapped = wrapClient(client);
  await client.connect(transport);
  clients.push(wrapped);
  return wrapped;
}

/** A raw POST with full control over Host/Origin/Authorization; resolves with the status. */
async function rawPost(url: string, headers: Record<string, string>, body: unknown): Promise<number> {
  return (await rawRequest(url, 'POST', headers, JSON.stringify(body))).status;
}

describe('Streamable HTTP transport', () => {
  it('(3) gives each Mcp-Session-Id its own loaded tools and notifications', async () => {
    const http = await serve();
    expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const a = await httpClient(http.url);
    const b = await httpClient(http.url);
    expect(http.sessionCount()).toBe(2);

    expect(await a.text('load_toolset', { toolsets: ['memory'] })).toContain('Loaded 9');
    await expect.poll(() => a.listChanged()).toBe(1);
    expect((await a.names()).filter((n) => n.startsWith('memory__'))).toHaveLength(9);
    expect(await b.names()).toEqual(META);
    expect(b.listChanged()).toBe(0);

    await b.call('load_toolset', { tools: ['fx__echo'] });
    await expect.poll(() => b.listChanged()).toBe(1);
    expect(await b.names()).toEqual([...META, 'fx__echo']);
    expect(await a.names()).not.toContain('fx__echo');
    expect(await b.text('fx__echo', { text: 'over http' })).toBe('over http');
    expect(await a.text('search_tools', {})).toMatch(/memory \(9 tools, all loaded\)/);
    expect(await b.text('search_tools', {})).toMatch(/memory \(9 tools\)/);
  });

  it('rejects foreign Host and Origin headers (DNS-rebinding protection)', async () => {
    const http = await serve();
    const host = `127.0.0.1:${http.port}`;
    expect(await rawPost(http.url, { Host: `evil.example:${http.port}` }, INITIALIZE)).toBe(403);
    expect(await rawPost(http.url, { Host: host, Origin: 'http://evil.example' }, INITIALIZE)).toBe(403);
    expect(
      await rawPost(
        http.url,
        { Host: `localhost:${http.port}`, Origin: `http://localhost:${http.port}` },
        INITIALIZE,
      ),
    ).toBe(200);
    expect(await rawPost(http.url, { Host: host, 'Mcp-Session-Id': 'no-such-session' }, INITIALIZE)).toBe(
      404,
    );
    expect(await rawPost(http.url, { Host: host }, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).toBe(
      400,
    );
  });

  it('requires the bearer token when one is set', async () => {
    const http = await serve({ token: 'let-me-in-0123' });
    const host = `127.0.0.1:${http.port}`;
    expect(await rawPost(http.url, { Host: host }, INITIALIZE)).toBe(401);
    expect(await rawPost(http.url, { Host: host, Authorization: 'Bearer wrong-token-00' }, INITIALIZE)).toBe(
      401,
    );
    const c = await httpClient(http.url, 'let-me-in-0123');
    expect(await c.names()).toEqual(META);
  });

  it('refuses to bind a non-loopback address without a token', async () => {
    await expect(
      serveHttp({ createServer: () => gateway.createServer(), host: '0.0.0.0', port: 0 }),
    ).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
  });

  it('hosts library-mode servers too, one McpServer per session', async () => {
    const http = await serveHttp({
      port: 0,
      log: () => {},
      createServer: async () => {
        const server = new McpServer({ name: 'dev', version: '1.0.0' });
        server.registerTool(
          'notes__add',
          { description: 'Add a note', inputSchema: { text: z.string() } },
          async ({ text }) => ({
            content: [{ type: 'text', text: `noted ${text}` }],
          }),
        );
        server.registerTool('notes__list', { description: 'List notes' }, async () => ({ content: [] }));
        await withToolSearch(server, { engine: { embedding: false }, env: {} });
        return server;
      },
    });
    handles.push(http);
    const a = await httpClient(http.url);
    const b = await httpClient(http.url);
    await a.call('load_toolset', { toolsets: ['notes'] });
    await expect.poll(() => a.listChanged()).toBe(1);
    expect(await a.names()).toEqual([...META, 'notes__add', 'notes__list']);
    expect(await b.names()).toEqual(META);
    expect(await a.text('notes__add', { text: 'hi' })).toBe('noted hi');
  });

  it('closes a session on DELETE', async () => {
    const http = await serve();
    const c = await httpClient(http.url);
    expect(http.sessionCount()).toBe(1);
    await (c.client.transport as StreamableHTTPClientTransport).terminateSession();
    await expect.poll(() => http.sessionCount()).toBe(0);
  });
});
