import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { STRATEGY_NAMES } from '@toolsearch/core-search';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AdapterError, ERROR_META_KEY, META_TOOLS, withToolSearch } from '../src/index.js';
import { renderSearch } from '../src/render.js';
import { SessionState } from '../src/session.js';
import { countToolListTokens } from '../src/tokens.js';

/** A developer's server: 12 tools in three groups, each answering with what it got. */
function buildServer(): McpServer {
  const server = new McpServer({ name: 'dev', version: '1.0.0' });
  const echo = (name: string) => async (args: Record<string, unknown>) => ({
    content: [{ type: 'text' as const, text: `${name} ${JSON.stringify(args)}` }],
  });
  const tools: [string, string, z.ZodRawShape][] = [
    [
      'github__create_issue',
      'Create a new issue in a GitHub repository',
      { repo: z.string(), title: z.string() },
    ],
    ['github__list_issues', 'List open issues of a GitHub repository', { repo: z.string() }],
    ['github__merge_pull_request', 'Merge a pull request', { repo: z.string(), number: z.number().int() }],
    ['github__search_code', 'Search source code across repositories', { query: z.string() }],
    [
      'weather__forecast',
      'Get the weather forecast for a city for the next days',
      { city: z.string(), days: z.number().int().min(1).max(10) },
    ],
    ['weather__current', 'Current temperature and conditions in a city', { city: z.string() }],
    ['weather__alerts', 'Severe weather alerts for a region', { region: z.string() }],
    [
      'calendar__create_event',
      'Create a calendar event with a title and start time',
      { title: z.string(), start: z.string() },
    ],
    ['calendar__list_events', 'List upcoming calendar events', {}],
    ['calendar__delete_event', 'Delete a calendar event', { id: z.string() }],
    [
      'mail__send_email',
      'Send an email message to a recipient',
      { to: z.string(), subject: z.string(), body: z.string() },
    ],
    ['mail__search_inbox', 'Search the email inbox', { query: z.string() }],
  ];
  for (const [name, description, shape] of tools)
    server.registerTool(name, { description, inputSchema: shape }, echo(name) as never);
  return server;
}

async function connect(server: McpServer, onListChanged?: () => void) {
  const client = new Client({ name: 'test', version: '1.0.0' });
  if (onListChanged)
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => onListChanged());
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  return client;
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;
const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);

let open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of open) await c.close();
  open = [];
});

describe('withToolSearch (library mode)', () => {
  it('starts with the meta-tools (+ always-loaded), under 600 tokens for the meta-tools', async () => {
    const server = buildServer();
    await withToolSearch(server, {
      alwaysLoaded: ['mail__send_email'],
      engine: { embedding: false },
      env: {},
    });
    const client = await connect(server);
    open.push(client);
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual([...META_TOOLS.map((t) => t.name), 'mail__send_email']);
    expect(countToolListTokens(META_TOOLS)).toBeLessThan(600);
    for (const t of META_TOOLS) expect(t.annotations).toBeDefined();
    expect(client.getInstructions()).toContain('search_tools {query}');
  });

  it('search -> load -> list_changed -> tools/list has the schema -> native call works', async () => {
    const server = buildServer();
    await withToolSearch(server, { engine: { embedding: false }, env: {} });
    let changed = 0;
    const client = await connect(server, () => changed++);
    open.push(client);

    const found = text(
      await client.callTool({ name: 'search_tools', arguments: { query: 'weather forecast for a city' } }),
    );
    expect(found.split('\n')[1]).toContain('weather__forecast [weather]');
    expect(found).toContain('load_toolset');

    const loaded = text(
      await client.callTool({ name: 'load_toolset', arguments: { toolsets: ['weather'] } }),
    );
    expect(loaded).toContain('Loaded 3');
    await expect.poll(() => changed).toBe(1);
    const listed = await client.listTools();
    const forecast = listed.tools.find((t) => t.name === 'weather__forecast');
    expect(forecast?.inputSchema.required).toEqual(['city', 'days']);
    expect(listed.tools.map((t) => t.name)).not.toContain('github__create_issue');

    const result = await client.callTool({ name: 'weather__forecast', arguments: { city: 'Oslo', days: 3 } });
    expect(text(result)).toBe('weather__forecast {"city":"Oslo","days":3}');
    // The developer's own zod validation still applies to native calls.
    const bad = (await client.callTool({
      name: 'weather__forecast',
      arguments: { city: 'Oslo', days: 99 },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);

    text(await client.callTool({ name: 'unload_toolset', arguments: { toolsets: ['weather'] } }));
    await expect.poll(() => changed).toBe(2);
    expect(await names(client)).toEqual(META_TOOLS.map((t) => t.name));
  });

  it('a hidden tool called by name still works, without showing up in tools/list', async () => {
    const server = buildServer();
    await withToolSearch(server, { engine: { embedding: false }, env: {} });
    const client = await connect(server);
    open.push(client);
    const result = await client.callTool({ name: 'calendar__delete_event', arguments: { id: 'e1' } });
    expect(text(result)).toBe('calendar__delete_event {"id":"e1"}');
    expect(await names(client)).not.toContain('calendar__delete_event');
  });

  it('call_tool proxies with JSON-schema validation naming the failing path', async () => {
    const server = buildServer();
    await withToolSearch(server, { engine: { embedding: false }, env: {} });
    const client = await connect(server);
    open.push(client);
    const ok = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'github__create_issue', arguments: { repo: 'a/b', title: 'Bug' } },
    });
    expect(text(ok)).toBe('github__create_issue {"repo":"a/b","title":"Bug"}');

    const bad = (await client.callTool({
      name: 'call_tool',
      arguments: { name: 'github__create_issue', arguments: { repo: 5 } },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('arguments.repo: must be string');
    expect(text(bad)).toContain('arguments.title: is required');
    expect(bad._meta?.[ERROR_META_KEY]).toEqual({ code: 'INVALID_ARGUMENTS' });

    const unknown = (await client.callTool({
      name: 'call_tool',
      arguments: { name: 'github_create_isue', arguments: {} },
    })) as CallToolResult;
    expect(unknown._meta?.[ERROR_META_KEY]).toEqual({ code: 'UNKNOWN_TOOL' });
    expect(text(unknown)).toContain('did you mean github__create_issue');
  });

  it('a client that ignores list_changed gets schemas and call_tool directions', async () => {
    const server = buildServer();
    await withToolSearch(server, { engine: { embedding: false }, env: {}, listChangedWindowMs: 30 });
    const client = await connect(server); // never re-fetches tools/list
    open.push(client);
    const first = text(
      await client.callTool({ name: 'load_toolset', arguments: { tools: ['mail__send_email'] } }),
    );
    expect(first).not.toContain('"properties"');
    await new Promise((r) => setTimeout(r, 60));
    const second = text(
      await client.callTool({ name: 'load_toolset', arguments: { tools: ['weather__current'] } }),
    );
    expect(second).toContain('call_tool');
    expect(second).toMatch(/weather__current: .*"city"/);
    const search = text(
      await client.callTool({ name: 'search_tools', arguments: { query: 'send an email' } }),
    );
    expect(search).toContain('Next: call mail__send_email with call_tool');
  });

  it('evicts the least recently used tool past the cap and says so', async () => {
    const server = buildServer();
    await withToolSearch(server, { engine: { embedding: false }, env: {}, maxBoundTools: 3 });
    const client = await connect(server);
    open.push(client);
    await client.callTool({ name: 'load_toolset', arguments: { toolsets: ['weather'] } });
    await client.callTool({ name: 'weather__forecast', arguments: { city: 'x', days: 1 } }); // recently used
    const out = text(
      await client.callTool({ name: 'load_toolset', arguments: { tools: ['mail__send_email'] } }),
    );
    expect(out).toContain('Unloaded to stay under 3 tools (least recently used): weather__current');
    // McpServer lists in registration order.
    expect(await names(client)).toEqual([
      ...META_TOOLS.map((t) => t.name),
      'weather__forecast',
      'weather__alerts',
      'mail__send_email',
    ]);
  });

  it('takes always-loaded tools from TOOLSEARCH_ALWAYS_LOADED, and unload keeps them', async () => {
    const server = buildServer();
    await withToolSearch(server, {
      engine: { embedding: false },
      env: { TOOLSEARCH_ALWAYS_LOADED: ' calendar__list_events ,mail__search_inbox' },
    });
    const client = await connect(server);
    open.push(client);
    expect(await names(client)).toEqual([
      ...META_TOOLS.map((t) => t.name),
      'calendar__list_events',
      'mail__search_inbox',
    ]);
    const out = text(
      await client.callTool({ name: 'unload_toolset', arguments: { tools: ['calendar__list_events'] } }),
    );
    expect(out).toContain('Always loaded, kept: calendar__list_events');
  });

  it('refuses to wrap a connected server or one with a meta-tool name', async () => {
    const connected = buildServer();
    open.push(await connect(connected));
    await expect(withToolSearch(connected, { env: {} })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    const clash = new McpServer({ name: 'x', version: '1' });
    clash.registerTool('search_tools', { description: 'mine' }, async () => ({ content: [] }));
    await expect(withToolSearch(clash, { env: {} })).rejects.toBeInstanceOf(AdapterError);
  });

  it('refresh() indexes and hides tools registered later', async () => {
    const server = buildServer();
    const handle = await withToolSearch(server, { engine: { embedding: false }, env: {} });
    server.registerTool(
      'notes__add_note',
      { description: 'Add a note to the notebook', inputSchema: { text: z.string() } },
      async () => ({
        content: [{ type: 'text', text: 'ok' }],
      }),
    );
    await handle.refresh();
    const client = await connect(server);
    open.push(client);
    expect(await names(client)).not.toContain('notes__add_note');
    const found = text(await client.callTool({ name: 'search_tools', arguments: { query: 'add a note' } }));
    expect(found).toContain('notes__add_note');
  });
});

describe('withToolSearch answers and errors', () => {
  it('quotes at most the first 80 characters of a long query and counts "1 hit"', async () => {
    const server = buildServer();
    await withToolSearch(server, { engine: { embedding: false }, env: {} });
    const client = await connect(server);
    open.push(client);
    const query = `forecast ${'x'.repeat(200_000)}`;
    const answer = text(await client.callTool({ name: 'search_tools', arguments: { query } }));
    expect(answer).toContain(`Tools for "${query.slice(0, 80)}…"`);
    expect(answer.length).toBeLessThan(2000);
    const one = renderSearch(
      {
        query: 'inbox',
        results: [
          {
            name: 'mail__search_inbox',
            toolset: 'mail',
            score: 1,
            summary: 'Search',
            matchedBy: [],
            tool: { name: 'x' },
          },
        ],
        toolsets: [{ toolset: 'mail', hits: 1, toolCount: 1, score: 1 }],
        strategies: ['keyword'],
      },
      new SessionState(),
    );
    expect(one).toContain('Toolsets: mail (1 hit/1 tool)');
  });

  it('answers search_tools with NO_TOOLS when there is nothing to search', async () => {
    const server = new McpServer({ name: 'empty', version: '1.0.0' });
    await withToolSearch(server, { engine: { embedding: false }, env: {} });
    const client = await connect(server);
    open.push(client);
    const result = (await client.callTool({
      name: 'search_tools',
      arguments: { query: 'send email' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result._meta?.[ERROR_META_KEY]).toEqual({ code: 'NO_TOOLS' });
    expect(text(result)).toContain('no tools to search');
  });

  it('rejects engine options that switch off every strategy with a typed error listing them', async () => {
    const disable = [...STRATEGY_NAMES];
    await expect(withToolSearch(buildServer(), { engine: { disable }, env: {} })).rejects.toMatchObject({
      code: 'NO_STRATEGIES',
      message: expect.stringContaining(STRATEGY_NAMES.join(', ')),
    });
  });
});
