/**
 * Streamable HTTP upstreams (config `url` + `headers`): the fixture over HTTP
 * on loopback with a bearer token from ${VAR} expansion, server-everything in
 * its streamableHttp mode, a wrong token, and an HTTP upstream going away and
 * coming back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../src/gateway/config.js';
import { UpstreamManager } from '../src/gateway/upstreams.js';
import {
  expectAdapterError,
  FIXTURE_TOOLS,
  fixtureServer,
  type HttpFixture,
  startEverythingHttp,
  startHttpFixture,
  statusOf,
  waitFor,
} from './fixtures/servers.js';

const TOKEN = 'tok-9d8c7b6a5f4e';
const fixtures: HttpFixture[] = [];
let remote: HttpFixture;
let everything: HttpFixture;
let manager: UpstreamManager;
const logs: string[] = [];

beforeAll(async () => {
  [remote, everything] = await Promise.all([
    startHttpFixture(['--require-token', TOKEN, '--tools', '10', '--page-size', '4']),
    startEverythingHttp(),
  ]);
  fixtures.push(remote, everything);
  const config = parseGatewayConfig(
    {
      mcpServers: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp.json's ${VAR} syntax, expanded by the parser
        remote: { url: remote.url, headers: { Authorization: 'Bearer ${FIXTURE_TOKEN}' } },
        wrongtoken: { type: 'http', url: remote.url, headers: { Authorization: 'Bearer wrong-token-1234' } },
        everything: { url: everything.url },
        local: fixtureServer('local'),
      },
    },
    'test mcp.json',
    { FIXTURE_TOKEN: TOKEN },
  );
  manager = new UpstreamManager(config.upstreams, {
    log: (line) => logs.push(line),
    startTimeoutMs: 60_000,
    backoffMs: 200,
  });
  await manager.start();
});

afterAll(async () => {
  await manager?.close();
  for (const fixture of fixtures) fixture.stop();
});

describe('Streamable HTTP upstreams', () => {
  it('connects with the expanded bearer token and lists every page', () => {
    expect(statusOf(manager, 'remote')).toMatchObject({
      state: 'ready',
      transport: 'http',
      toolCount: FIXTURE_TOOLS.length + 10,
    });
    expect(statusOf(manager, 'remote').pid).toBeUndefined();
    const names = manager
      .tools()
      .filter((t) => t.upstream === 'remote')
      .map((t) => t.name);
    expect(names.slice(-10)).toEqual(Array.from({ length: 10 }, (_, i) => `tool_${i + 1}`));
  });

  it('routes calls and passes results through unchanged', async () => {
    expect(await manager.call('remote__echo', { text: 'over http' })).toEqual({
      content: [{ type: 'text', text: 'over http' }],
      _meta: { fixture: 'echo' },
      extraField: 42,
    });
    expect(await manager.call('remote__fail', { message: 'no' })).toEqual({
      content: [{ type: 'text', text: 'failed: no' }],
      isError: true,
    });
  });

  it('works with server-everything in streamableHttp mode', async () => {
    expect(statusOf(manager, 'everything')).toMatchObject({ state: 'ready', transport: 'http' });
    const result = await manager.call('everything__echo', { message: 'hello' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Echo: hello' }] });
  });

  it('reports a rejected token as a failed start without revealing it', () => {
    const status = statusOf(manager, 'wrongtoken');
    expect(status.state).toBe('failed');
    expect(status.error).toContain('401');
    const reported = JSON.stringify([manager.status(), logs]);
    expect(reported).not.toContain('wrong-token-1234');
    expect(reported).not.toContain(TOKEN);
  });

  it('receives list_changed over HTTP and re-lists', async () => {
    const changed = new Promise<string>((resolve) => {
      const off = manager.onToolsChanged((upstream) => {
        if (upstream !== 'remote') return;
        off();
        resolve(upstream);
      });
    });
    await manager.call('remote__add_tool', { name: 'http_late' });
    expect(await changed).toBe('remote');
    expect(manager.tools().some((t) => t.qualifiedName === 'remote__http_late')).toBe(true);
  });

  it('reports an HTTP upstream that went away, keeps the others, and reconnects when it is back', async () => {
    const port = new URL(remote.url).port;
    remote.stop();
    await waitFor(
      () => remote.child.exitCode !== null || remote.child.signalCode !== null,
      5000,
      'fixture exit',
    );

    await expectAdapterError(manager.call('remote__echo', { text: 'x' }), 'UPSTREAM_DOWN');
    expect(statusOf(manager, 'remote').state).toBe('crashed');
    expect(await manager.call('local__echo', { text: 'local ok' })).toMatchObject({
      content: [{ text: 'local ok' }],
    });

    const again = await startHttpFixture(['--require-token', TOKEN, '--port', port]);
    fixtures.push(again);
    expect(await manager.call('remote__echo', { text: 'back' })).toMatchObject({
      content: [{ text: 'back' }],
    });
    expect(statusOf(manager, 'remote')).toMatchObject({ state: 'ready', restarts: 1 });
  });
});
