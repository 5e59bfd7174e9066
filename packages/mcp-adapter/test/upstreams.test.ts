/**
 * UpstreamManager against real MCP servers from npm (memory, filesystem,
 * everything) plus the paginating fixture: listing, routing, results passed
 * through unchanged, list_changed, and an upstream killed mid-session.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamManager } from '../src/gateway/upstreams.js';
import {
  everythingServer,
  expectAdapterError,
  FIXTURE_TOOLS,
  filesystemServer,
  fixtureServer,
  isAlive,
  memoryServer,
  statusOf,
  waitFor,
} from './fixtures/servers.js';

const dir = mkdtempSync(join(tmpdir(), 'toolsearch-upstreams-'));
const filesDir = join(dir, 'files');
const logs: string[] = [];
let manager: UpstreamManager;
const pids: number[] = [];

beforeAll(async () => {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(filesDir);
  manager = new UpstreamManager(
    [
      memoryServer(join(dir, 'memory.jsonl')),
      filesystemServer(filesDir),
      everythingServer(),
      fixtureServer('paged', ['--tools', '25', '--page-size', '7']),
    ],
    { log: (line) => logs.push(line), startTimeoutMs: 60_000, callTimeoutMs: 10_000 },
  );
  await manager.start();
  for (const s of manager.status()) if (s.pid) pids.push(s.pid);
});

afterAll(async () => {
  await manager?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('UpstreamManager: listing', () => {
  it('starts every upstream and reports it ready with its tool count', () => {
    const status = manager.status();
    expect(status.map((s) => [s.name, s.state, s.transport])).toEqual([
      ['memory', 'ready', 'stdio'],
      ['filesystem', 'ready', 'stdio'],
      ['everything', 'ready', 'stdio'],
      ['paged', 'ready', 'stdio'],
    ]);
    for (const s of status) {
      expect(s.toolCount).toBeGreaterThan(0);
      expect(s.restarts).toBe(0);
      expect(s.error).toBeUndefined();
    }
  });

  it('reads a paginated tools/list across all pages, in upstream order, without duplicates', () => {
    const paged = manager.tools().filter((t) => t.upstream === 'paged');
    // 8 built-in fixture tools + 25 generic ones, served 7 per page: 5 pages.
    expect(paged.map((t) => t.name)).toEqual([
      ...FIXTURE_TOOLS,
      ...Array.from({ length: 25 }, (_, i) => `tool_${i + 1}`),
    ]);
  });

  it('qualifies names as server__tool and keeps config order', () => {
    const tools = manager.tools();
    for (const t of tools) expect(t.qualifiedName).toBe(`${t.upstream}__${t.name}`);
    const order = [...new Set(tools.map((t) => t.upstream))];
    expect(order).toEqual(['memory', 'filesystem', 'everything', 'paged']);
    expect(tools.map((t) => t.qualifiedName)).toContain('memory__create_entities');
    expect(tools.map((t) => t.qualifiedName)).toContain('filesystem__read_text_file');
  });

  it('keeps tool definitions exactly as the upstream lists them', async () => {
    const direct = new Client({ name: 'direct', version: '1' });
    const config = everythingServer();
    await direct.connect(
      new StdioClientTransport({ command: config.command!, args: config.args!, stderr: 'ignore' }),
    );
    try {
      const listed = await direct.listTools();
      const ours = manager.tools().filter((t) => t.upstream === 'everything');
      expect(ours.map((t) => t.definition)).toEqual(listed.tools);
      // And the same call gives the same result through the manager as directly.
      const args = { a: 17, b: 25 };
      const viaManager = await manager.call('everything__get-sum', args);
      const viaDirect = await direct.callTool({ name: 'get-sum', arguments: args });
      expect(viaManager).toEqual(viaDirect);
      expect(JSON.stringify(viaManager)).toContain('42');
    } finally {
      await direct.close();
    }
  });
});

describe('UpstreamManager: calls', () => {
  it('routes calls to the right upstream (memory graph round trip)', async () => {
    await manager.call('memory__create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
    });
    const graph = await manager.call('memory__read_graph', {});
    expect(JSON.stringify(graph)).toContain('wrote the first program');
  });

  it('routes filesystem calls to the allowed temp dir', async () => {
    const path = join(filesDir, 'note.txt');
    const write = await manager.call('filesystem__write_file', { path, content: 'hello gateway' });
    expect(write.isError).toBeFalsy();
    expect(readFileSync(path, 'utf8')).toBe('hello gateway');
    const read = await manager.call('filesystem__read_text_file', { path });
    expect(JSON.stringify(read.content)).toContain('hello gateway');
  });

  it('passes results through unchanged, unknown fields and _meta included', async () => {
    const result = await manager.call('paged__echo', { text: 'as is' });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'as is' }],
      _meta: { fixture: 'echo' },
      extraField: 42,
    });
  });

  it('passes a tool error (isError) through untouched instead of throwing', async () => {
    const result = await manager.call('paged__fail', { message: 'disk full' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'failed: disk full' }], isError: true });
  });

  it('reports an upstream protocol error as UPSTREAM_ERROR and keeps the upstream ready', async () => {
    const err = await expectAdapterError(manager.call('paged__rpc_error', {}), 'UPSTREAM_ERROR');
    expect(err.message).toContain('rpc_error always refuses');
    expect(statusOf(manager, 'paged').state).toBe('ready');
  });

  it('times out a hanging call with UPSTREAM_TIMEOUT; the upstream keeps answering', async () => {
    const err = await expectAdapterError(
      manager.call('paged__hang', {}, { timeoutMs: 300 }),
      'UPSTREAM_TIMEOUT',
    );
    expect(err.message).toContain('300 ms');
    expect(await manager.call('paged__echo', { text: 'still here' })).toMatchObject({
      content: [{ text: 'still here' }],
    });
  });

  it('aborts a call through its signal', async () => {
    const controller = new AbortController();
    const pending = manager.call('paged__hang', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const err = await expectAdapterError(pending, 'UPSTREAM_ERROR');
    expect(err.details.cancelled).toBe(true);
  });

  it('rejects unknown tools and servers with UNKNOWN_TOOL', async () => {
    const noServer = await expectAdapterError(manager.call('nosuch__tool', {}), 'UNKNOWN_TOOL');
    expect(noServer.message).toContain('memory, filesystem, everything, paged');
    await expectAdapterError(manager.call('paged__nosuch', {}), 'UNKNOWN_TOOL');
    await expectAdapterError(manager.call('echo', {}), 'UNKNOWN_TOOL');
  });
});

describe('UpstreamManager: list_changed', () => {
  it('re-lists across all pages and notifies onToolsChanged', async () => {
    const changed = new Promise<string>((resolve) => {
      const off = manager.onToolsChanged((upstream) => {
        off();
        resolve(upstream);
      });
    });
    await manager.call('paged__add_tool', { name: 'late_tool' });
    expect(await changed).toBe('paged');
    const paged = manager.tools().filter((t) => t.upstream === 'paged');
    expect(paged).toHaveLength(FIXTURE_TOOLS.length + 26);
    expect(paged.at(-1)?.qualifiedName).toBe('paged__late_tool');
    expect(await manager.call('paged__late_tool', {})).toMatchObject({
      content: [{ text: 'ran late_tool' }],
    });
  });
});

describe('UpstreamManager: an upstream killed mid-session', () => {
  it('reports it down, keeps the others answering, and restarts it on next use', async () => {
    const pid = statusOf(manager, 'memory').pid!;
    const changes: string[] = [];
    const off = manager.onToolsChanged((upstream) => changes.push(upstream));
    process.kill(pid, 'SIGKILL');
    await waitFor(
      () => statusOf(manager, 'memory').state === 'crashed',
      5000,
      'memory to be reported crashed',
    );
    expect(statusOf(manager, 'memory').error).toMatch(/exited unexpectedly/);
    // Its tools stay known, so a call can bring it back.
    expect(manager.tools().some((t) => t.qualifiedName === 'memory__read_graph')).toBe(true);

    // The others are unaffected.
    expect(await manager.call('paged__echo', { text: 'ok' })).toMatchObject({ content: [{ text: 'ok' }] });
    const sum = await manager.call('everything__get-sum', { a: 1, b: 2 });
    expect(JSON.stringify(sum)).toContain('3');

    // The next call restarts it (first restart without waiting) and succeeds.
    const graph = await manager.call('memory__read_graph', {});
    expect(JSON.stringify(graph)).toContain('Ada'); // persisted in its memory file
    const status = statusOf(manager, 'memory');
    expect(status.state).toBe('ready');
    expect(status.restarts).toBe(1);
    expect(status.pid).not.toBe(pid);
    pids.push(status.pid!);
    expect(changes).toContain('memory');
    off();
    expect(logs.some((line) => line.includes('memory: crashed'))).toBe(true);
  });
});

describe('UpstreamManager: close', () => {
  it('stops every child process', async () => {
    const running = manager.status().flatMap((s) => (s.pid ? [s.pid] : []));
    expect(running).toHaveLength(4);
    await manager.close();
    for (const pid of [...running, ...pids]) expect(isAlive(pid)).toBe(false);
    await expectAdapterError(manager.call('paged__echo', { text: 'x' }), 'UPSTREAM_DOWN');
  });
});
