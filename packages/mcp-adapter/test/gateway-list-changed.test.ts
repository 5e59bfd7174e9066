/**
 * Upstream tool-list changes as each kind of client sees them. Two real
 * upstreams (the fixture, one built on SDK v2 and one on v1) add tools at run
 * time. The index follows both; a 2026-07-28 client, whose list is the
 * meta-tools plus the always-loaded toolset `fx`, is told (list_changed on its
 * subscriptions/listen stream, over Streamable HTTP and over a pinned stdio
 * connection) only when that list changed: a change elsewhere reaches it
 * through search alone.
 */
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gateway, type HttpHandle, STATELESS_META_TOOLS, serveHttp } from '../src/index.js';
import { MODERN } from './eras-helpers.js';
import { FIXTURE_TOOLS, fixtureServer, waitFor } from './fixtures/servers.js';

let gateway: Gateway;
let http: HttpHandle;
const closers: (() => Promise<unknown>)[] = [];

interface Listener {
  client: Client;
  /** notifications/tools/list_changed received so far. */
  count(): number;
  names(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>): Promise<string>;
}

/** A 2026-07-28 client with a subscriptions/listen stream open for tool-list changes. */
async function listener(transport: StreamableHTTPClientTransport | InMemoryTransport): Promise<Listener> {
  const client = new Client(
    { name: 'list-changed-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  let changed = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changed++;
  });
  await client.connect(transport);
  const subscription = await client.listen({ toolsListChanged: true });
  expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
  closers.push(() => client.close());
  return {
    client,
    count: () => changed,
    names: async () => (await client.listTools({}, { cacheMode: 'bypass' })).tools.map((t) => t.name),
    call: async (name, args) => {
      const result = (await client.callTool({ name, arguments: args })) as { content: { text?: string }[] };
      return result.content.map((c) => c.text ?? '').join('\n');
    },
  };
}

beforeAll(async () => {
  gateway = await Gateway.start({
    config: {
      upstreams: [fixtureServer('fx', ['--v2']), fixtureServer('other')],
      alwaysLoaded: ['fx'],
      maxBoundTools: 40,
      callTimeoutMs: 20_000,
      handleKey: 'h'.repeat(40),
    },
    engine: { embedding: false },
    learn: false,
    log: () => {},
  });
  http = await serveHttp({
    createServer: (context) => gateway.createServer(context),
    onToolListChanged: (notify) => gateway.onToolListChanged(notify),
    port: 0,
    log: () => {},
  });
});

afterAll(async () => {
  for (const close of closers) await close().catch(() => {});
  await http?.close();
  await gateway?.close();
});

describe('upstream tool-list changes', () => {
  it('reach 2026-07-28 clients only when their list changed, over HTTP and stdio', async () => {
    const overHttp = await listener(new StreamableHTTPClientTransport(new URL(http.url)));
    // The CLI's stdio wiring: serveStdio pins one server per connection (`pinned`).
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const stdio = serveStdio(({ era }) => gateway.createServer({ era, pinned: true }), {
      transport: serverSide,
    });
    closers.push(() => stdio.close());
    const overStdio = await listener(clientSide);

    const initial = [...STATELESS_META_TOOLS.map((t) => t.name), ...FIXTURE_TOOLS.map((t) => `fx__${t}`)];
    expect(await overHttp.names()).toEqual(initial);
    expect(await overStdio.names()).toEqual(initial);

    // A tool added outside the always-loaded toolset: the index follows, the list does not move.
    await overHttp.call('call_tool', { name: 'other__add_tool', arguments: { name: 'bake_bread' } });
    await waitFor(() => gateway.catalog.has('other__bake_bread'), 10_000, 'other__bake_bread indexed');
    expect(await overStdio.call('search_tools', { query: 'bake_bread', limit: 1 })).toContain(
      'other__bake_bread',
    );

    // A tool added to the always-loaded toolset: both streams hear of it, once, and list it.
    await overStdio.call('fx__add_tool', { name: 'late_arrival' });
    await waitFor(
      () => overHttp.count() > 0 && overStdio.count() > 0,
      10_000,
      'list_changed on both streams',
    );
    // Notifications on one stream arrive in order: none came for the change outside the list.
    expect([overHttp.count(), overStdio.count()]).toEqual([1, 1]);
    expect(await overHttp.names()).toEqual([...initial, 'fx__late_arrival']);
    expect(await overStdio.names()).toEqual([...initial, 'fx__late_arrival']);
    expect(await overHttp.call('fx__late_arrival', {})).toBe('ran late_arrival');
  });
});
