import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_META_KEY, Gateway, META_TOOLS } from '../src/index.js';
import { renderSearch } from '../src/render.js';
import { SessionState } from '../src/session.js';
import { countTokens } from '../src/tokens.js';
import { everythingServer, filesystemServer, memoryServer } from './fixtures/servers.js';
import { connectSession, type TestClient } from './gateway-helpers.js';

const META = META_TOOLS.map((t) => t.name);
let dir: string;
let root: string;
let gateway: Gateway;
const clients: TestClient[] = [];

async function session(): Promise<TestClient> {
  const c = await connectSession(gateway);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolsearch-gw-'));
  root = join(dir, 'root');
  mkdirSync(root);
  writeFileSync(join(root, 'hello.txt'), 'hello from the filesystem upstream\n');
  gateway = await Gateway.start({
    config: {
      upstreams: [memoryServer(join(dir, 'memory.jsonl')), filesystemServer(root), everythingServer()],
      alwaysLoaded: [],
      maxBoundTools: 40,
      callTimeoutMs: 20_000,
    },
    engine: { embedding: false },
    log: () => {},
  });
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('gateway over real npm MCP servers', () => {
  it('indexes every upstream as server__tool with the toolset set to the server', () => {
    expect(gateway.status().map((s) => [s.name, s.state])).toEqual([
      ['memory', 'ready'],
      ['filesystem', 'ready'],
      ['everything', 'ready'],
    ]);
    expect(gateway.catalog.get('filesystem__read_text_file')?.toolset).toBe('filesystem');
    expect(gateway.catalog.toolsOf('memory')).toContain('memory__create_entities');
    expect(gateway.catalog.size).toBe(gateway.upstreams.tools().length);
  });

  it("indexes the upstreams' tools as listed, without a second copy of each schema", async () => {
    // The gateway owns what its upstreams listed (copyTools: false): the index holds those
    // schemas themselves, so a large registry is not held twice in memory.
    const listed = gateway.upstreams.tools().find((t) => t.qualifiedName === 'filesystem__read_text_file');
    const found = await gateway.catalog.search('read the text contents of a file', { limit: 5 });
    const hit = found.results.find((r) => r.name === 'filesystem__read_text_file');
    expect(listed).toBeDefined();
    expect(hit?.tool.inputSchema).toBe(listed!.definition.inputSchema);
  });

  it('starts a session with the meta-tools only, and instructions', async () => {
    const c = await session();
    expect(await c.names()).toEqual(META);
    expect(c.client.getInstructions()).toContain('search_tools');
    expect(c.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
  });

  it('overview: toolsets with description, tool count, loaded state and upstream status', async () => {
    const c = await session();
    await c.call('load_toolset', { tools: ['memory__read_graph'] });
    const overview = await c.text('search_tools', {});
    expect(overview.split('\n')[0]).toMatch(/^3 toolsets, \d+ tools/);
    expect(overview).toMatch(/- filesystem \(14 tools\): /);
    expect(overview).toMatch(/- memory \(9 tools, 1 loaded\): /);
  });

  it('(1) search -> load -> list_changed -> tools/list has the upstream schemas -> native call', async () => {
    const c = await session();
    const found = await c.text('search_tools', { query: 'read the text contents of a file' });
    expect(found).toContain('filesystem__read_text_file [filesystem]');
    const loaded = await c.text('load_toolset', {
      tools: ['filesystem__read_text_file', 'filesystem__list_directory'],
    });
    expect(loaded).toContain('Loaded 2');
    await expect.poll(() => c.listChanged()).toBe(1);

    const listed = await c.client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual([
      ...META,
      'filesystem__read_text_file',
      'filesystem__list_directory',
    ]);
    const upstream = gateway.upstreams.tools().find((t) => t.qualifiedName === 'filesystem__read_text_file');
    const bound = listed.tools.find((t) => t.name === 'filesystem__read_text_file');
    expect(bound?.inputSchema).toEqual(upstream?.definition.inputSchema);
    expect(bound?.description).toBe(upstream?.definition.description);

    const result = await c.call('filesystem__read_text_file', { path: join(root, 'hello.txt') });
    expect(result.isError).toBeFalsy();
    expect(c.text.length).toBeGreaterThan(0);
    expect((result.content[0] as { text: string }).text).toBe('hello from the filesystem upstream\n');
  });

  it('(2) call_tool proxies to the upstream, validating arguments against its schema', async () => {
    const c = await session();
    const bad = await c.call('call_tool', { name: 'filesystem__write_file', arguments: { path: 42 } });
    expect(bad.isError).toBe(true);
    expect(bad._meta?.[ERROR_META_KEY]).toEqual({ code: 'INVALID_ARGUMENTS' });
    expect((bad.content[0] as { text: string }).text).toContain('arguments.path: must be string');
    expect((bad.content[0] as { text: string }).text).toContain('arguments.content: is required');

    const target = join(root, 'written.txt');
    const ok = await c.call('call_tool', {
      name: 'filesystem__write_file',
      arguments: { path: target, content: 'via proxy' },
    });
    expect(ok.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('via proxy');

    const sum = await c.call('call_tool', { name: 'everything__get-sum', arguments: { a: 2, b: 40 } });
    expect((sum.content[0] as { text: string }).text).toContain('42');
    expect(await c.names()).toEqual(META); // proxy calls do not bind
  });

  it("keeps a tool's own error (isError) distinct from gateway errors", async () => {
    const c = await session();
    const toolError = await c.call('call_tool', {
      name: 'filesystem__read_text_file',
      arguments: { path: join(root, 'missing.txt') },
    });
    expect(toolError.isError).toBe(true);
    expect(toolError._meta?.[ERROR_META_KEY]).toBeUndefined();

    const gatewayError = await c.call('nosuch__tool', {});
    expect(gatewayError.isError).toBe(true);
    expect(gatewayError._meta?.[ERROR_META_KEY]).toEqual({ code: 'UNKNOWN_TOOL' });
  });

  it('(5) bad input to every meta-tool is an error naming the problem', async () => {
    const c = await session();
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['search_tools', { limit: 50 }, 'INVALID_ARGUMENTS', /limit: must be <= 20/],
      ['search_tools', { query: 7 }, 'INVALID_ARGUMENTS', /query: must be string/],
      ['search_tools', { qurey: 'files' }, 'INVALID_ARGUMENTS', /qurey: is not allowed/],
      ['search_tools', { query: 'x', toolset: 'filesystm' }, 'UNKNOWN_TOOLSET', /did you mean filesystem/],
      ['load_toolset', {}, 'INVALID_ARGUMENTS', /give "tools" or "toolsets"/],
      ['load_toolset', { toolsets: 'memory' }, 'INVALID_ARGUMENTS', /toolsets: must be array/],
      [
        'load_toolset',
        { tools: ['filesystem__read_txt_file'] },
        'UNKNOWN_TOOL',
        /did you mean .*filesystem__read/,
      ],
      ['load_toolset', { toolsets: ['memroy'] }, 'UNKNOWN_TOOLSET', /no toolset "memroy"/],
      ['unload_toolset', { tools: [1] }, 'INVALID_ARGUMENTS', /tools\[0\]: must be string/],
      ['unload_toolset', { toolsets: ['nope'] }, 'UNKNOWN_TOOLSET', /no toolset "nope"/],
      ['call_tool', {}, 'INVALID_ARGUMENTS', /name: is required/],
      [
        'call_tool',
        { name: 'memory__read_graph', arguments: 'x' },
        'INVALID_ARGUMENTS',
        /arguments: must be object/,
      ],
      ['call_tool', { name: 'search_tools' }, 'INVALID_ARGUMENTS', /call search_tools directly/],
    ];
    for (const [tool, args, code, message] of cases) {
      const result = await c.call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(result._meta?.[ERROR_META_KEY]).toEqual({ code });
      expect((result.content[0] as { text: string }).text).toMatch(message);
    }
    // A failed load is atomic: nothing was bound, no list_changed was sent.
    await c.call('load_toolset', { tools: ['memory__read_graph', 'nope__nope'] });
    expect(await c.names()).toEqual(META);
    expect(c.listChanged()).toBe(0);
  });

  it('a 5-hit search_tools response stays under 400 tokens', async () => {
    for (const query of [
      'read the contents of a file',
      'delete entities and relations in the graph',
      'list files in a directory',
    ]) {
      const response = await gateway.catalog.search(query, { limit: 5 });
      expect(response.results).toHaveLength(5);
      expect(countTokens(renderSearch(response, new SessionState()))).toBeLessThan(400);
    }
  });

  it('unload_toolset with no arguments unloads everything and notifies', async () => {
    const c = await session();
    await c.call('load_toolset', { toolsets: ['memory'] });
    await expect.poll(() => c.listChanged()).toBe(1);
    expect((await c.names()).length).toBe(META.length + 9);
    expect(await c.text('unload_toolset', {})).toContain('Unloaded 9');
    await expect.poll(() => c.listChanged()).toBe(2);
    expect(await c.names()).toEqual(META);
  });
});
