/**
 * Upstreams of both protocol eras: the fixture built on SDK v2 (serving
 * 2026-07-28) and on SDK v1 (2025 only), over stdio and Streamable HTTP. The
 * gateway's client probes each and speaks the newest revision both sides
 * know; calls, tool-list changes, crashes, restarts and timeouts behave the
 * same in either era.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamManager } from '../src/gateway/upstreams.js';
import {
  expectAdapterError,
  FIXTURE_TOOLS,
  fixtureServer,
  type HttpFixture,
  startHttpFixture,
  statusOf,
  waitFor,
} from './fixtures/servers.js';

const MODERN = '2026-07-28';
let manager: UpstreamManager;
let http: HttpFixture;
const logs: string[] = [];

/** Resolves when `upstream`'s tools are re-read after a change. */
function changed(upstream: string): Promise<void> {
  return new Promise((resolve) => {
    const off = manager.onToolsChanged((name) => {
      if (name !== upstream) return;
      off();
      resolve();
    });
  });
}

beforeAll(async () => {
  http = await startHttpFixture(['--v2', '--tools', '5', '--page-size', '3']);
  manager = new UpstreamManager(
    [
      fixtureServer('modern', ['--v2', '--tools', '5', '--page-size', '3']),
      fixtureServer('legacy'),
      { name: 'remote', url: http.url },
    ],
    { log: (line) => logs.push(line), startTimeoutMs: 30_000, backoffMs: 100, callTimeoutMs: 20_000 },
  );
  await manager.start();
});

afterAll(async () => {
  await manager?.close();
  http?.stop();
});

describe('upstreams of both protocol eras', () => {
  it('speaks 2026-07-28 to a server that does and 2025 to one that does not, over stdio and HTTP', () => {
    expect(statusOf(manager, 'modern')).toMatchObject({
      state: 'ready',
      protocol: MODERN,
      transport: 'stdio',
    });
    expect(statusOf(manager, 'remote')).toMatchObject({
      state: 'ready',
      protocol: MODERN,
      transport: 'http',
    });
    const legacy = statusOf(manager, 'legacy');
    expect(legacy.state).toBe('ready');
    expect(legacy.protocol).toMatch(/^2025-/);
  });

  it('reads every page of a 2026-07-28 tools/list', () => {
    for (const upstream of ['modern', 'remote']) {
      const names = manager
        .tools()
        .filter((t) => t.upstream === upstream)
        .map((t) => t.name);
      expect(names).toEqual([...FIXTURE_TOOLS, ...Array.from({ length: 5 }, (_, i) => `tool_${i + 1}`)]);
    }
  });

  it('routes calls in either era and passes the content through unchanged', async () => {
    for (const upstream of ['modern', 'legacy', 'remote']) {
      const result = await manager.call(`${upstream}__echo`, { text: `via ${upstream}` });
      expect(result).toMatchObject({
        content: [{ type: 'text', text: `via ${upstream}` }],
        _meta: { fixture: 'echo' },
        extraField: 42,
      });
      expect(await manager.call(`${upstream}__fail`, { message: 'no' })).toMatchObject({
        content: [{ type: 'text', text: 'failed: no' }],
        isError: true,
      });
    }
  });

  it('reports a 2026-07-28 JSON-RPC error as UPSTREAM_ERROR with its code', async () => {
    const err = await expectAdapterError(manager.call('modern__rpc_error', {}), 'UPSTREAM_ERROR');
    expect(err.details).toMatchObject({ rpcCode: -32602 });
    expect(statusOf(manager, 'modern').state).toBe('ready');
  });

  it('follows a 2026-07-28 upstream tool-list change over stdio (subscriptions/listen)', async () => {
    const done = changed('modern');
    await manager.call('modern__add_tool', { name: 'late_stdio' });
    await done;
    expect(manager.tools().map((t) => t.qualifiedName)).toContain('modern__late_stdio');
  });

  it('follows a 2026-07-28 upstream tool-list change over HTTP (subscriptions/listen)', async () => {
    const done = changed('remote');
    await manager.call('remote__add_tool', { name: 'late_http' });
    await done;
    expect(manager.tools().map((t) => t.qualifiedName)).toContain('remote__late_http');
  });

  it('times out a hanging 2026-07-28 call; the upstream answers the liveness probe and keeps serving', async () => {
    await expectAdapterError(manager.call('modern__hang', {}, { timeoutMs: 300 }), 'UPSTREAM_TIMEOUT');
    // 2026-07-28 has no ping: server/discover told a slow tool from a hung server.
    expect(statusOf(manager, 'modern')).toMatchObject({ state: 'ready', restarts: 0 });
    expect(await manager.call('modern__echo', { text: 'still here' })).toMatchObject({
      content: [{ text: 'still here' }],
    });
  });

  it('restarts a crashed 2026-07-28 stdio upstream on next use, in the same era', async () => {
    const before = statusOf(manager, 'modern').pid;
    await expectAdapterError(manager.call('modern__crash', {}), 'UPSTREAM_DOWN');
    await waitFor(() => statusOf(manager, 'modern').state === 'crashed', 5000, 'crash noticed');
    expect(await manager.call('modern__echo', { text: 'back' })).toMatchObject({
      content: [{ text: 'back' }],
    });
    const after = statusOf(manager, 'modern');
    expect(after).toMatchObject({ state: 'ready', protocol: MODERN, restarts: 1 });
    expect(after.pid).not.toBe(before);
    // The restarted connection listens for tool-list changes again.
    const done = changed('modern');
    await manager.call('modern__add_tool', { name: 'after_restart' });
    await done;
    expect(manager.tools().map((t) => t.qualifiedName)).toContain('modern__after_restart');
  });

  it('re-opens the tool-list stream of a 2026-07-28 HTTP upstream that came back, and re-lists it', async () => {
    const port = new URL(http.url).port;
    const done = changed('remote');
    http.stop();
    await waitFor(() => http.child.exitCode !== null || http.child.signalCode !== null, 5000, 'fixture exit');
    // Stateless: the same server on the same port, now with other tools; no session to renew.
    http = await startHttpFixture(['--v2', '--tools', '2', '--port', port]);
    await done;
    const names = manager
      .tools()
      .filter((t) => t.upstream === 'remote')
      .map((t) => t.name);
    expect(names).toEqual([...FIXTURE_TOOLS, 'tool_1', 'tool_2']);
    expect(await manager.call('remote__echo', { text: 'again' })).toMatchObject({
      content: [{ text: 'again' }],
    });
    expect(statusOf(manager, 'remote')).toMatchObject({ state: 'ready', restarts: 0 });
  });
});
