import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { META_TOOLS, STATELESS_META_TOOLS, serveHttp, type UseEvent, withToolSearch } from '../src/index.js';
import { connectClient } from './eras-helpers.js';

/** A developer's SDK v2 server: a few tools answering with what they got. */
function buildServer(): McpServer {
  const server = new McpServer({ name: 'dev-v2', version: '1.0.0' });
  const tools: [string, string, z.ZodObject][] = [
    ['weather__forecast', 'Get the weather forecast for a city', z.object({ city: z.string() })],
    ['weather__alerts', 'Severe weather alerts for a region', z.object({ region: z.string() })],
    ['mail__send_email', 'Send an email message to a recipient', z.object({ to: z.string() })],
    ['calendar__list_events', 'List upcoming calendar events', z.object({})],
  ];
  for (const [name, description, inputSchema] of tools)
    server.registerTool(name, { description, inputSchema }, async (args: unknown) => ({
      content: [{ type: 'text' as const, text: `${name} ${JSON.stringify(args)}` }],
    }));
  return server;
}

let open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of open) await c.close();
  open = [];
});

const text = (r: unknown) => ((r as { content: { text: string }[] }).content[0] as { text: string }).text;

describe('withToolSearch over an SDK v2 McpServer', () => {
  it('a 2025-era client (SDK v2 legacy lane) searches, loads and calls; the list follows loads', async () => {
    const server = buildServer();
    await withToolSearch(server, { engine: { embedding: false }, env: {} });
    const client = new Client({ name: 'test', version: '1.0.0' });
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', async () => {
      changed++;
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    open.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(META_TOOLS.map((t) => t.name));
    const found = text(
      await client.callTool({ name: 'search_tools', arguments: { query: 'weather forecast city' } }),
    );
    expect(found).toContain('weather__forecast');
    await client.callTool({ name: 'load_toolset', arguments: { tools: ['weather__forecast'] } });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('weather__forecast');
    expect(changed).toBeGreaterThan(0);
    const result = await client.callTool({ name: 'weather__forecast', arguments: { city: 'Oslo' } });
    expect(text(result)).toBe('weather__forecast {"city":"Oslo"}');
    // A hidden tool still answers by name through call_tool.
    const hidden = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'mail__send_email', arguments: { to: 'a@b' } },
    });
    expect(text(hidden)).toBe('mail__send_email {"to":"a@b"}');
  });
});

describe('withToolSearch over an SDK v2 McpServer, 2026-07-28 client over HTTP', () => {
  it('keeps a fixed list, answers with schemas and handles, and calls hidden tools through call_tool', async () => {
    const uses: UseEvent[] = [];
    const http = await serveHttp({
      port: 0,
      log: () => {},
      createServer: async () => {
        const server = buildServer();
        await withToolSearch(server, {
          engine: { embedding: false },
          env: {},
          alwaysLoaded: ['calendar__list_events'],
          handleKey: 'library-handle-key-0123456789abcdef',
          onUse: (event) => uses.push(event),
        });
        return server;
      },
    });
    open.push(http);
    const c = await connectClient('v2-modern', { url: http.url });
    open.push(c);
    const fixed = [...STATELESS_META_TOOLS.map((t) => t.name), 'calendar__list_events'];
    expect(await c.names()).toEqual(fixed);
    const found = await c.call('search_tools', { query: 'weather forecast city', schemas: true });
    expect(found.text).toMatch(/weather__forecast \[weather\].*\n {3}input: \{.*"city"/);
    const loaded = await c.call('load_toolset', { tools: ['weather__forecast'], handle: found.handle });
    expect(loaded.text).toContain('weather__forecast: Get the weather forecast');
    expect(await c.names()).toEqual(fixed);
    const called = await c.call('call_tool', {
      name: 'weather__forecast',
      arguments: { city: 'Oslo' },
      handle: loaded.handle,
    });
    expect(called.text).toBe('weather__forecast {"city":"Oslo"}');
    expect(await c.names()).toEqual(fixed);
    expect(uses).toEqual([
      { query: 'weather forecast city', tool: 'weather__forecast', via: 'load_toolset' },
    ]);
    expect(http.sessionCount()).toBe(0);
  });
});
