import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { META_TOOLS } from '../src/index.js';
import { fixtureServer, memoryServer, waitFor } from './fixtures/servers.js';
import { type TestClient, wrapClient } from './gateway-helpers.js';
import { INITIALIZE } from './http-helpers.js';

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

function runCli(args: string[], env?: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [TSX, '--conditions=toolsearch-source', CLI, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    ...(env ? { env } : {}),
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

  it('usage mistakes exit 2 with the usage; --version prints package.json', () => {
    const frob = runCli(['--frob']);
    expect(frob.status).toBe(2);
    expect(frob.stderr).toContain("Unknown option '--frob'");
    expect(frob.stderr).toContain('Usage: toolsearch-mcp --config mcp.json');
    expect(frob.stdout).toBe('');
    const port = runCli(['--config', configPath, '--port', '3001']);
    expect(port.status).toBe(2);
    expect(port.stderr).toContain('--port only applies with --http');
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const shown = runCli(['--version']);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toBe(`${version}\n`);
  });

  it('keeps its index in the cache directory between starts; --no-index-cache does not read it', () => {
    // The test run switches the cache off by environment; these starts use one of their own.
    const env = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache-home'), TOOLSEARCH_NO_INDEX_CACHE: '' };
    const args = ['--config', configPath, '--report-tokens'];
    const first = runCli(args, env);
    expect(first.status).toBe(0);
    expect(first.stderr).not.toContain('loaded the index');
    const indexes = readdirSync(join(dir, 'cache-home', 'toolsearch', 'indexes'));
    expect(indexes.filter((name) => name.endsWith('.tsindex'))).toHaveLength(1);
    const second = runCli(args, env);
    expect(second.status).toBe(0);
    expect(second.stderr).toMatch(/loaded the index of \d+ tools/);
    expect(second.stdout).toBe(first.stdout);
    const off = runCli([...args, '--no-index-cache'], env);
    expect(off.status).toBe(0);
    expect(off.stderr).not.toContain('loaded the index');
    expect(off.stdout).toBe(first.stdout);
  });

  it('--report-tokens fails when no upstream gave any tools', () => {
    const downConfig = join(dir, 'mcp-down.json');
    writeFileSync(
      downConfig,
      JSON.stringify({
        mcpServers: Object.fromEntries(
          [fixtureServer('broken', ['--fail-start'])].map(({ name, ...rest }) => [name, rest]),
        ),
      }),
    );
    const out = runCli(['--config', downConfig, '--report-tokens']);
    expect(out.status).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain('--report-tokens: no upstream gave any tools (broken: failed)');
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
      // One raw initialize, then nothing: no second request can race the 1 s timer on a
      // loaded machine, and the log line proves which timeout the session got.
      const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
      const init = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(INITIALIZE),
      });
      expect(init.status).toBe(200);
      const sessionId = init.headers.get('mcp-session-id') as string;
      expect(sessionId).toBeTruthy();
      await init.text();
      // mcp.json says an hour; the flag says 1 s.
      await waitFor(() => err.includes('idle for 1000 ms: closed'), 30_000, 'the idle session to close');
      const stale = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(stale.status).toBe(404);
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
