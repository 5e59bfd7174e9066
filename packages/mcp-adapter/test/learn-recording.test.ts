/**
 * Learning from use through the gateway: only a search followed, in the same
 * conversation, by a load or call of a result is recorded, and nothing but the
 * query and the tool name is ever stored.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../src/gateway/config.js';
import { Gateway, META_TOOLS } from '../src/index.js';
import { FileUsageStore } from '../src/learn/file-store.js';
import { countToolListTokens } from '../src/tokens.js';
import { filesystemServer, fixtureServer } from './fixtures/servers.js';
import { connectSession, type TestClient } from './gateway-helpers.js';

let dir: string;
let root: string;
const open: { gateway: Gateway; clients: TestClient[] }[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsearch-learn-gw-'));
  root = join(dir, 'root');
  mkdirSync(root);
  writeFileSync(join(root, 'notes.txt'), 'the launch code is sk-SECRET-0000\n');
});

afterEach(async () => {
  for (const { gateway, clients } of open.splice(0)) {
    for (const c of clients) await c.close();
    await gateway.close();
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function config(): GatewayConfig {
  return {
    upstreams: [filesystemServer(root, 'files'), fixtureServer('fixture')],
    alwaysLoaded: [],
    maxBoundTools: 40,
    callTimeoutMs: 20_000,
  };
}

async function start(file: string, learn: boolean | undefined = true) {
  const store = new FileUsageStore({ file });
  const gateway = await Gateway.start({
    config: config(),
    engine: { embedding: false },
    log: () => {},
    env: {}, // the test run sets TOOLSEARCH_NO_LEARN; this gateway learns
    ...(learn ? { learn: { store } } : { learn: false }),
  });
  const entry = { gateway, clients: [] as TestClient[] };
  open.push(entry);
  const session = async () => {
    const c = await connectSession(gateway);
    entry.clients.push(c);
    return c;
  };
  return { gateway, store, session };
}

describe('learning from use in the gateway', () => {
  it('records (query -> tool) when a search is followed by a call of a result, and nothing else', async () => {
    const file = join(dir, 'a.json');
    const { gateway, store, session } = await start(file);
    const c = await session();
    const search = await c.text('search_tools', { query: 'read a text file', limit: 5 });
    expect(search).toContain('files__read_text_file');
    const read = await c.text('call_tool', {
      name: 'files__read_text_file',
      arguments: { path: join(root, 'notes.txt') },
    });
    expect(read).toContain('sk-SECRET-0000');
    await gateway.learning?.settled();
    const state = await store.load();
    expect(state.uses).toEqual([
      { query: 'read a text file', tool: 'files__read_text_file', count: 1, lastSeen: expect.any(Number) },
    ]);
    // No argument, result or other conversation detail reaches the store.
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('sk-SECRET');
    expect(text).not.toContain('notes.txt');
    expect(text).not.toContain(root);
  });

  it('does not record a call that follows no search, or a tool the search did not return', async () => {
    const { gateway, store, session } = await start(join(dir, 'b.json'));
    const c = await session();
    await c.text('call_tool', { name: 'fixture__echo', arguments: { text: 'hi' } });
    await c.text('search_tools', { query: 'list a directory', limit: 3 });
    await c.text('call_tool', { name: 'fixture__echo', arguments: { text: 'hi' } }); // not a result
    await gateway.learning?.settled();
    expect((await store.load()).uses).toEqual([]);
  });

  it('credits a toolset load to the offered tools of that toolset, once per search, and counts no call twice', async () => {
    const { gateway, store, session } = await start(join(dir, 'c.json'));
    const c = await session();
    const search = await c.text('search_tools', { query: 'echo some text back', limit: 5 });
    const offered = [...search.matchAll(/\d+\. (fixture__\w+)/g)].map((m) => m[1] as string);
    expect(offered).toContain('fixture__echo');
    await c.text('load_toolset', { toolsets: ['fixture'] });
    await c.call('fixture__echo', { text: 'a' }); // direct call, already credited: not counted twice
    await c.call('fixture__echo', { text: 'b' });
    await gateway.learning?.settled();
    const uses = (await store.load()).uses;
    expect(uses.map((u) => u.tool).sort()).toEqual([...offered].sort());
    expect(uses.every((u) => u.query === 'echo some text back' && u.count === 1)).toBe(true);
  });

  it('does not link two conversations: a search in one, a call in another, records nothing', async () => {
    const { gateway, store, session } = await start(join(dir, 'd.json'));
    const a = await session();
    const b = await session();
    await a.text('search_tools', { query: 'echo some text back' });
    await b.text('call_tool', { name: 'fixture__echo', arguments: { text: 'x' } });
    await gateway.learning?.settled();
    expect((await store.load()).uses).toEqual([]);
  });

  it('records tools called together, and the next start teaches them in details', async () => {
    const file = join(dir, 'e.json');
    const first = await start(file);
    const c = await first.session();
    await c.text('search_tools', { query: 'echo some text back' });
    await c.text('call_tool', { name: 'fixture__echo', arguments: { text: 'x' } });
    await c.text('call_tool', { name: 'fixture__whoami', arguments: {} });
    await first.gateway.learning?.settled();
    expect((await first.store.load()).together.map((p) => p.tools)).toEqual([
      ['fixture__echo', 'fixture__whoami'],
    ]);
    await first.gateway.close();
    open.splice(0);

    const second = await start(file);
    const d = await second.session();
    const answer = await d.text('search_tools', { query: 'echo', detail: true, limit: 2 });
    const lines = answer.split('\n');
    const echo = lines.findIndex((l) => / fixture__echo /.test(l));
    expect(echo).toBeGreaterThanOrEqual(0);
    expect(lines[echo + 1]).toContain('"echo some text back"');
    expect(lines[echo + 1]).toContain('related: fixture__whoami');
  });

  it('is off with learn: false, and with TOOLSEARCH_NO_LEARN=1', async () => {
    const off = await start(join(dir, 'f.json'), false);
    expect(off.gateway.learning).toBeUndefined();
    const env = await Gateway.start({
      config: config(),
      engine: { embedding: false },
      log: () => {},
      env: { TOOLSEARCH_NO_LEARN: '1' },
      learn: { store: new FileUsageStore({ file: join(dir, 'g.json') }) },
    });
    open.push({ gateway: env, clients: [] });
    expect(env.learning).toBeUndefined();
  });

  it('search_tools takes alternative phrasings, refuses more than three, and stays small', async () => {
    const { session } = await start(join(dir, 'h.json'), false);
    const c = await session();
    const fused = await c.text('search_tools', {
      query: 'show folder contents',
      alternatives: ['list directory'],
      limit: 3,
    });
    expect(fused.split('\n')[1]).toMatch(/files__list_directory/);
    const tooMany = await c.call('search_tools', { query: 'x', alternatives: ['a', 'b', 'c', 'd'] });
    expect(tooMany.isError).toBe(true);
    // The four meta-tools with alternatives and detail: 395 tokens (346 before); the README quotes it.
    expect(countToolListTokens(META_TOOLS)).toBeLessThanOrEqual(400);
  });
});
