import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_META_KEY, Gateway } from '../src/index.js';
import { fixtureServer, isAlive, memoryServer, waitFor } from './fixtures/servers.js';
import { connectSession, type TestClient, textOf } from './gateway-helpers.js';

let dir: string;
let gateway: Gateway;
let c: TestClient;
const SECRET = 'sk-test-do-not-leak-1234';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolsearch-faults-'));
  writeFileSync(join(dir, 'not-yet'), '');
  gateway = await Gateway.start({
    config: {
      upstreams: [
        memoryServer(join(dir, 'memory.jsonl')),
        fixtureServer('fx', ['--tools', '3']),
        fixtureServer('broken', ['--fail-start'], { FIXTURE_SECRET: SECRET }),
        // These two fail their first start only: the file is removed once the gateway is up.
        fixtureServer('late', ['--fail-if-exists', join(dir, 'not-yet')]),
        fixtureServer('later', ['--fail-if-exists', join(dir, 'not-yet')]),
      ],
      alwaysLoaded: [],
      maxBoundTools: 40,
      callTimeoutMs: 3000, // the hang test waits this long; real calls must fit in it under load
    },
    engine: { embedding: false },
    // A healthy server must never miss its start on a loaded machine: failing ones exit at once.
    upstreams: { startTimeoutMs: 60_000, backoffMs: 50 },
    log: () => {},
  });
  c = await connectSession(gateway);
});

afterAll(async () => {
  await c?.close();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

const code = (r: { _meta?: Record<string, unknown> }) =>
  (r._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code;

describe('(4) gateway faults: one upstream down, the others keep answering', () => {
  it('reports an upstream that failed to start in the overview, with secrets redacted', async () => {
    const overview = await c.text('search_tools', {});
    expect(overview).toMatch(/- broken \(0 tools, upstream failed/);
    expect(overview).not.toContain(SECRET);
    expect(overview).toMatch(/- memory \(9 tools\)/);
    const load = await c.call('load_toolset', { toolsets: ['broken'] });
    expect(code(load)).toBe('UPSTREAM_DOWN');
    expect(textOf(load)).toMatch(/upstream "broken" is down \(failed to start/);
    expect(textOf(load)).not.toContain(SECRET);
  });

  it('a tool of an upstream that never started is UPSTREAM_DOWN, not a did-you-mean for another server', async () => {
    const call = await c.call('call_tool', { name: 'broken__echo', arguments: { text: 'x' } });
    expect(code(call)).toBe('UPSTREAM_DOWN');
    expect(textOf(call)).toMatch(/upstream "broken" is down/);
    expect(textOf(call)).not.toContain('fx__echo');
    expect(code(await c.call('broken__echo', { text: 'x' }))).toBe('UPSTREAM_DOWN');
  });

  it('an upstream that failed its first start is restarted on use (load_toolset, call_tool)', async () => {
    expect(gateway.upstreams.status().find((s) => s.name === 'late')?.state).toBe('failed');
    rmSync(join(dir, 'not-yet'));
    expect(await c.text('load_toolset', { toolsets: ['late'] })).toContain('Loaded');
    expect(textOf(await c.call('late__echo', { text: 'back' }))).toBe('back');
    // The same through call_tool, for an upstream nothing loaded yet.
    const echoed = await c.call('call_tool', { name: 'later__echo', arguments: { text: 'also back' } });
    expect(textOf(echoed)).toBe('also back');
    expect(gateway.upstreams.status().find((s) => s.name === 'later')?.state).toBe('ready');
  });

  it('an upstream killed mid-session is reported while the others answer, and restarts on next use', async () => {
    await c.call('load_toolset', { tools: ['memory__read_graph', 'fx__echo'] });
    expect(textOf(await c.call('fx__echo', { text: 'before' }))).toBe('before');
    const pid = gateway.upstreams.status().find((s) => s.name === 'memory')?.pid;
    expect(pid).toBeTypeOf('number');
    process.kill(pid as number, 'SIGKILL');
    await waitFor(() => !isAlive(pid as number), 5000, 'memory server to die');
    await waitFor(
      () => gateway.upstreams.status().find((s) => s.name === 'memory')?.state !== 'ready',
      5000,
      'crash noticed',
    );

    expect(await c.text('search_tools', {})).toMatch(
      /- memory \(9 tools, 1 loaded, upstream (crashed|restarting)/,
    );
    expect(textOf(await c.call('fx__echo', { text: 'still here' }))).toBe('still here');

    // Next use restarts it; the bound tool keeps working under the same name.
    const graph = await c.call('memory__read_graph', {});
    expect(graph.isError).toBeFalsy();
    expect(textOf(graph)).toContain('entities');
    expect(gateway.upstreams.status().find((s) => s.name === 'memory')?.state).toBe('ready');
  });

  it('a crash during a call is a gateway error, not a tool error', async () => {
    const crashed = await c.call('call_tool', { name: 'fx__crash', arguments: {} });
    expect(crashed.isError).toBe(true);
    expect(code(crashed)).toBe('UPSTREAM_DOWN');
    expect(textOf(await c.call('memory__read_graph', {}))).toContain('entities');
  });

  it('a hanging call times out with UPSTREAM_TIMEOUT and the upstream serves the next call', async () => {
    const hung = await c.call('fx__hang', {});
    expect(code(hung)).toBe('UPSTREAM_TIMEOUT');
    expect(textOf(await c.call('fx__echo', { text: 'after timeout' }))).toBe('after timeout');
  });

  it('re-indexes an upstream after its list_changed, so new tools are searchable and loadable', async () => {
    expect(gateway.catalog.has('fx__brand_new_reporting_tool')).toBe(false);
    expect(
      textOf(
        await c.call('call_tool', { name: 'fx__add_tool', arguments: { name: 'brand_new_reporting_tool' } }),
      ),
    ).toContain('added');
    await waitFor(() => gateway.catalog.has('fx__brand_new_reporting_tool'), 5000, 're-index');
    expect(await c.text('search_tools', { query: 'brand new reporting tool' })).toContain(
      'fx__brand_new_reporting_tool',
    );
    expect(await c.text('load_toolset', { tools: ['fx__brand_new_reporting_tool'] })).toContain('Loaded 1');
    expect(textOf(await c.call('fx__brand_new_reporting_tool', {}))).toBe('ran brand_new_reporting_tool');
  });

  it("passes a tool's own isError result through unchanged", async () => {
    const failed = await c.call('fx__fail', { message: 'nope' });
    expect(failed).toEqual({ content: [{ type: 'text', text: 'failed: nope' }], isError: true });
  });
});
