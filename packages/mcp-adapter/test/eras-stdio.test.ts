/**
 * The gateway CLI over stdio, serving both eras from one command: the SDK's
 * serveStdio picks the era from the client's first message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { connectClient, legacyConversation, statelessConversation, type Target } from './eras-helpers.js';
import { fixtureServer, memoryServer } from './fixtures/servers.js';

/** Each test starts the CLI through tsx plus its upstreams: seconds normally, far more on a loaded machine. */
const SLOW = 180_000;
const TSX = createRequire(import.meta.url).resolve('tsx/cli');
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
let dir: string;
let target: Target;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsearch-eras-stdio-'));
  const configPath = join(dir, 'mcp.json');
  const servers = [memoryServer(join(dir, 'memory.jsonl')), fixtureServer('fx')];
  const mcpServers = Object.fromEntries(servers.map(({ name, ...rest }) => [name, rest]));
  writeFileSync(configPath, JSON.stringify({ mcpServers, toolsearch: { alwaysLoaded: ['fx__whoami'] } }));
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  target = {
    command: process.execPath,
    args: [TSX, '--conditions=toolsearch-source', CLI, '--config', configPath],
    env: { ...env, TOOLSEARCH_HANDLE_KEY: 's'.repeat(32) },
  };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('toolsearch-mcp over stdio, both eras', () => {
  it(
    'a 2026-07-28 client (SDK v2) completes search -> load -> call; its list never changes',
    async () => {
      const c = await connectClient('v2-modern', target);
      try {
        await statelessConversation(c, 'Ada-stdio');
      } finally {
        await c.close();
      }
    },
    SLOW,
  );

  it.each(['v1', 'v2-legacy'] as const)(
    'a 2025-era client (%s) completes search -> load -> call natively',
    async (kind) => {
      const c = await connectClient(kind, target);
      try {
        await legacyConversation(c, `Grace-stdio-${kind}`);
      } finally {
        await c.close();
      }
    },
    SLOW,
  );
});
