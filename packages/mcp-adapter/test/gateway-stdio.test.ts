import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { META_TOOLS } from '../src/index.js';
import { fixtureServer, memoryServer, waitFor } from './fixtures/servers.js';
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

  it('--session-idle-timeout (seconds) overrides toolsearch.sessionIdleTimeoutMs over HTTP', async () => {
    const httpConfig = join(dir, 'mcp-http.json');
    writeFileSync(
      httpConfig,
      JSON.stringify({
        mcpServers: Object.fromEntries([fixtureServer('fx')].map(({ name, ...rest }) => [name, rest])),
        toolsearch: { sessionIdleTimeoutMs: 3_600_000 },
      }),
    );
    const child = spawn(
      process.execPath,
      [
        TSX,
        '--conditions=toolsearch-source',
        CLI,
        '--config',
        httpConfig,
        '--http',
        '--port',
        '0',
        '--session-idle-timeout',
        '1',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    try {
      let err = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString('utf8');
      });
      await waitFor(() => /on http:\/\/\S+\/mcp/.test(err), 30_000, 'the HTTP gateway to listen');
      const url = /on (http:\/\/\S+\/mcp)/.exec(err)?.[1] as string;
      const transport = new StreamableHTTPClientTransport(new URL(url));
      const client = new Client({ name: 'cli-http-test', version: '1.0.0' });
      client.onerror = () => {};
      await client.connect(transport);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(META);
        // mcp.json says an hour; the flag says 1 s, so the session is gone well within 10 s.
        await waitFor(() => err.includes('idle for 1000 ms: closed'), 10_000, 'the idle session to close');
        await expect(client.listTools()).rejects.toMatchObject({ code: 404 });
      } finally {
        await client.close().catch(() => {});
      }
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('rejects a bad --session-idle-timeout and a bad toolsearch field before starting upstreams', () => {
    const flag = runCli(['--config', configPath, '--http', '--session-idle-timeout', 'soon']);
    expect(flag.status).toBe(1);
    expect(flag.stderr).toContain('--session-idle-timeout must be a positive integer, got "soon"');
    const badFile = join(dir, 'mcp-bad.json');
    writeFileSync(badFile, JSON.stringify({ mcpServers: {}, toolsearch: { listChangedWindowMs: 'fast' } }));
    const field = runCli(['--config', badFile]);
    expect(field.status).toBe(1);
    expect(field.stderr).toContain(`${badFile}: toolsearch.listChangedWindowMs must be a positive integer`);
  });
});
