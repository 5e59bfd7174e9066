/**
 * Clients of both protocol eras for the gateway tests: a 2026-07-28 client
 * (SDK v2, pinned to the revision, no session), and 2025-era clients (SDK v1,
 * and SDK v2's legacy lane), over stdio or Streamable HTTP.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { HANDLE_META_KEY, META_TOOLS, STATELESS_META_TOOLS } from '../src/index.js';

export const MODERN = '2026-07-28';

export type ClientKind = 'v2-modern' | 'v2-legacy' | 'v1';

/** A gateway to reach: an HTTP endpoint, or a command that serves stdio. */
export type Target = { url: string } | { command: string; args: string[]; env?: Record<string, string> };

export interface Result {
  text: string;
  isError: boolean;
  /** The adapter error code, when the gateway refused. */
  code?: string;
  handle?: string;
  structured?: unknown;
}

export interface EraClient {
  kind: ClientKind;
  names(): Promise<string[]>;
  call(name: string, args?: Record<string, unknown>): Promise<Result>;
  /** notifications/tools/list_changed received (2025-era clients). */
  listChanged(): number;
  close(): Promise<void>;
}

function toResult(raw: unknown): Result {
  const r = raw as {
    content?: { type: string; text?: string }[];
    isError?: boolean;
    _meta?: Record<string, unknown>;
    structuredContent?: unknown;
  };
  const text = (r.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
  const error = r._meta?.['io.toolsearch/error'] as { code?: string } | undefined;
  const handle = r._meta?.[HANDLE_META_KEY];
  return {
    text,
    isError: r.isError === true,
    ...(error?.code ? { code: error.code } : {}),
    ...(typeof handle === 'string' ? { handle } : {}),
    ...(r.structuredContent !== undefined ? { structured: r.structuredContent } : {}),
  };
}

/** What both SDK generations' clients offer, as far as the tests use it. */
interface AnyClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

export async function connectClient(kind: ClientKind, target: Target): Promise<EraClient> {
  let changed = 0;
  const count = async () => {
    changed++;
  };
  let client: AnyClient;
  if (kind === 'v1') {
    const v1 = new ClientV1({ name: 'era-test-v1', version: '1.0.0' });
    v1.setNotificationHandler(ToolListChangedNotificationSchema, count);
    await v1.connect(
      'url' in target
        ? new HttpV1(new URL(target.url))
        : new StdioV1({ command: target.command, args: target.args, env: target.env, stderr: 'ignore' }),
    );
    client = v1;
  } else {
    const v2 = new ClientV2(
      { name: `era-test-${kind}`, version: '1.0.0' },
      kind === 'v2-modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
    );
    v2.setNotificationHandler('notifications/tools/list_changed', count);
    await v2.connect(
      'url' in target
        ? new HttpV2(new URL(target.url))
        : new StdioV2({ command: target.command, args: target.args, env: target.env, stderr: 'ignore' }),
    );
    client = v2;
  }
  return {
    kind,
    names: async () => (await client.listTools()).tools.map((t) => t.name),
    call: async (name, args = {}) => toResult(await client.callTool({ name, arguments: args })),
    listChanged: () => changed,
    close: () => client.close(),
  };
}

/** The fixed tool list of a 2026-07-28 client of a gateway whose always-loaded tool is fx__whoami. */
export const STATELESS_LIST = [...STATELESS_META_TOOLS.map((t) => t.name), 'fx__whoami'];
export const LEGACY_LIST = [...META_TOOLS.map((t) => t.name), 'fx__whoami'];

/**
 * search -> load -> call on server-memory for a 2026-07-28 client, checking
 * after every step that its tool list has not changed. `entity` names what it
 * creates, so conversations sharing one memory file stay apart.
 */
export async function statelessConversation(c: EraClient, entity: string): Promise<void> {
  expect(await c.names()).toEqual(STATELESS_LIST);
  const found = await c.call('search_tools', { query: 'create entities in the knowledge graph' });
  expect(found.text).toContain('memory__create_entities [memory]');
  expect(found.handle).toBeTypeOf('string');
  expect(await c.names()).toEqual(STATELESS_LIST);
  const loaded = await c.call('load_toolset', { tools: ['memory__create_entities'], handle: found.handle });
  expect(loaded.isError).toBe(false);
  expect(loaded.text).toContain('memory__create_entities: ');
  expect(loaded.text).toContain('"entities"'); // the input schema, inline
  expect(await c.names()).toEqual(STATELESS_LIST);
  const called = await c.call('call_tool', {
    name: 'memory__create_entities',
    arguments: { entities: [{ name: entity, entityType: 'person', observations: ['test'] }] },
    handle: loaded.handle,
  });
  expect(called.isError).toBe(false);
  expect(called.text).toContain(entity);
  expect(await c.names()).toEqual(STATELESS_LIST);
  expect(c.listChanged()).toBe(0);
}

/** search -> load (bound into the tool list, list_changed) -> native call for a 2025-era client. */
export async function legacyConversation(c: EraClient, entity: string): Promise<void> {
  expect(await c.names()).toEqual(LEGACY_LIST);
  const found = await c.call('search_tools', { query: 'create entities in the knowledge graph' });
  expect(found.text).toContain('memory__create_entities [memory]');
  expect(found.handle).toBeUndefined();
  await c.call('load_toolset', { tools: ['memory__create_entities'] });
  await expect.poll(() => c.listChanged()).toBeGreaterThan(0);
  expect(await c.names()).toEqual([...LEGACY_LIST, 'memory__create_entities']);
  const called = await c.call('memory__create_entities', {
    entities: [{ name: entity, entityType: 'person', observations: ['test'] }],
  });
  expect(called.isError).toBe(false);
  expect(called.text).toContain(entity);
}
