import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { META_TOOLS } from '../src/index.js';
import { fixtureServer, memoryServer } from './fixtures/servers.js';
import { type TestClient, wrapClient } from './gateway-helpers.js';

const TSX = createRequire(import.meta.url).resolve('tsx/cli');
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const META = META_TOOLS.map((t) => t.name);
let dir: string;
let configPath: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsearch-stdio-'));
  configPath = join(dir, 'mcp.json');
  const servers = [memoryServer(join(dir, 'memory.jsonl')), fixtureServer('fx')];
  const mcpServers = Object.fromEntries(servers.map(({ name, ...rest }) => [name, rest]));
  writeFileSync(configPath, JSON.stringify({ mcpServers, toolsearch: { alwaysLoaded: ['fx__whoami'] } }));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runCli(args: string[]) {
  return spawnSync(process.execPath, [TSX, '--conditions=toolsearch-source', CLI, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('toolsearch-mcp CLI', () => {
  it('serves the gateway over stdio to a real SDK client', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        TSX,
        '--conditions=toolsearch-source',
        CLI,
        '--config',
        configPath,
        '--list-changed-window',
        '5000',
      ],
      stderr: 'pipe',
    });
    const c: TestClient = wrapClient(new Client({ name: 'stdio-test', version: '1.0.0' }));
    await c.client.connect(transport);
    try {
      expect(await c.names()).toEqual([...META, 'fx__whoami']);
      expect(await c.text('search_tools', { query: 'create entities in the knowledge graph' })).toContain(
        'memory__create_entities [memory]',
      );
      expect(
        await c.text('load_toolset', { tools: ['memory__create_entities', 'memory__read_graph'] }),
      ).toContain('Loaded 2');
      await expect.poll(() => c.listChanged()).toBe(1);
      const listed = await c.client.listTools();
      expect(listed.tools.find((t) => t.name === 'memory__create_entities')?.inputSchema.required).toEqual([
        'entities',
      ]);
      const created = await c.call('memory__create_entities', {
        entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
      });
      expect(created.isError).toBeFalsy();
      expect(await c.text('memory__read_graph', {})).toContain('Ada');
    } finally {
      await c.close();
    }
  });

  it('--report-tokens prints eager vs lazy token counts', () => {
    const out = runCli(['--config', configPath, '--report-tokens', '--query', 'echo text back']);
    expect(out.status).toBe(0);
    const eager = Number(/eager tools\/list, 2 upstreams, \d+ tools: (\d+)/.exec(out.stdout)?.[1]);
    const lazy = Number(/lazy initial tools\/list: (\d+)/.exec(out.stdout)?.[1]);
    const meta = Number(/meta-tools alone: (\d+)/.exec(out.stdout)?.[1]);
    expect(meta).toBeLessThan(600);
    expect(lazy).toBeGreaterThan(meta); // + the always-loaded fx__whoami
    expect(eager).toBeGreaterThan(lazy);
    expect(out.stdout).toMatch(/after load_toolset memory \(9 tools\): \d+/);
  });

  it('--help prints usage; a missing config is a clear error', () => {
    const help = runCli(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--config <file>');
    const missing = runCli(['--config', join(dir, 'nope.json')]);
    expect(missing.status).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('nope.json');
  });
});
