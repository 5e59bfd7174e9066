// Untrusted sizes in meta-tool arguments (issues 9 and 12): what one call may carry is
// settled before validation and lookups, and nothing is cut without the answer saying so.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULTS } from '@toolsearch/core-search/internals';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ADAPTER_DEFAULTS, ERROR_META_KEY, withToolSearch } from '../src/index.js';

let open: Client[] = [];
afterEach(async () => {
  for (const client of open) await client.close();
  open = [];
});

/** A library-mode server of three tools in two toolsets, with a client connected in memory. */
async function connect(engine: { limits?: { maxQueryChars: number } } = {}) {
  const server = new McpServer({ name: 'dev', version: '1.0.0' });
  const tools: [string, string][] = [
    ['weather__forecast', 'Get the weather forecast for a city'],
    ['weather__alerts', 'Severe weather alerts for a region'],
    ['mail__send_email', 'Send an email message to a recipient'],
  ];
  for (const [name, description] of tools)
    server.registerTool(name, { description, inputSchema: { city: z.string().optional() } }, async () => ({
      content: [{ type: 'text' as const, text: name }],
    }));
  await withToolSearch(server, { engine: { embedding: false, ...engine }, env: {} });
  const client = new Client({ name: 'test', version: '1.0.0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  open.push(client);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = (result.content[0] as { text: string }).text;
    const code = (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code;
    return { text, code, isError: result.isError === true };
  };
  return call;
}

describe('meta-tool argument sizes', () => {
  it('searches the first maxQueryChars of a long query and says so, quoting only its start', async () => {
    const call = await connect();
    const max = DEFAULTS.analysis.maxQueryChars;
    const query = `weather forecast ${'for a city '.repeat(400_000)}`;
    const answer = await call('search_tools', { query });
    expect(answer.isError).toBe(false);
    expect(answer.text.split('\n')[1]).toContain('weather__forecast');
    expect(answer.text).toContain(
      `Note: only the first ${max} characters of query (${query.length} characters) were searched.`,
    );
    expect(answer.text.length).toBeLessThan(2000);
    // The same answer as for the cut text itself, but for the note.
    const cut = await call('search_tools', { query: query.slice(0, max) });
    expect(answer.text).toBe(
      `${cut.text}\nNote: only the first ${max} characters of query (${query.length} characters) were searched.`,
    );
  });

  it('follows the engine budget, counts alternatives, and is silent when nothing was cut', async () => {
    const call = await connect({ limits: { maxQueryChars: 30 } });
    const answer = await call('search_tools', {
      query: 'weather alerts',
      alternatives: ['send an email', `severe weather ${'x'.repeat(40)}`],
    });
    expect(answer.text).toContain(
      'Note: only the first 30 characters of alternatives[1] (55 characters) were searched.',
    );
    // Leading spaces are skipped, not searched: a short query behind them is not "cut".
    const padded = await call('search_tools', { query: `${' '.repeat(100)}weather alerts` });
    expect(padded.text).not.toContain('Note:');
    expect(padded.text.split('\n')[1]).toContain('weather__alerts');
  });

  it('refuses names longer than any tool or toolset name, before any lookup, without echoing them', async () => {
    const call = await connect();
    const long = 'w'.repeat(ADAPTER_DEFAULTS.maxNameChars + 1);
    for (const [tool, args, field] of [
      ['search_tools', { query: 'weather', toolset: long }, 'toolset'],
      ['load_toolset', { tools: ['weather__forecast', long] }, 'tools[1]'],
      ['unload_toolset', { toolsets: [long] }, 'toolsets[0]'],
      ['call_tool', { name: long }, 'name'],
    ] as const) {
      const answer = await call(tool, args);
      expect(answer.code).toBe('INVALID_ARGUMENTS');
      expect(answer.text).toContain(`${field} is ${long.length} characters`);
      expect(answer.text).not.toContain(long.slice(0, 100));
    }
    // At the cap, a name is looked up as usual.
    const atCap = await call('load_toolset', { tools: ['w'.repeat(ADAPTER_DEFAULTS.maxNameChars)] });
    expect(atCap.code).toBe('UNKNOWN_TOOL');
  });

  it('refuses more names than one call takes, and names only the first unknown ones', async () => {
    const call = await connect();
    const many = Array.from({ length: ADAPTER_DEFAULTS.maxNamesPerCall + 1 }, (_, i) => `nope_${i}`);
    const tooMany = await call('load_toolset', { tools: many.slice(1), toolsets: many.slice(0, 1) });
    expect(tooMany.code).toBe('INVALID_ARGUMENTS');
    expect(tooMany.text).toContain(
      `${many.length} names in one call; at most ${ADAPTER_DEFAULTS.maxNamesPerCall}`,
    );
    const unknown = await call('load_toolset', { tools: many.slice(0, 8) });
    expect(unknown.code).toBe('UNKNOWN_TOOL');
    expect(unknown.text).toContain('no tool "nope_4"');
    expect(unknown.text).not.toContain('nope_5');
    expect(unknown.text).toContain('3 more unknown tools');
  });
});
