/** Test helpers for the gateway and HTTP tests: an in-memory client on a gateway session. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Gateway } from '../src/index.js';

export interface TestClient {
  client: Client;
  /** How many notifications/tools/list_changed arrived. */
  listChanged(): number;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  text(name: string, args?: Record<string, unknown>): Promise<string>;
  names(): Promise<string[]>;
  close(): Promise<void>;
}

export function wrapClient(client: Client): TestClient {
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changed++;
  });
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    listChanged: () => changed,
    call,
    text: async (name, args) => textOf(await call(name, args)),
    names: async () => (await client.listTools()).tools.map((t) => t.name),
    close: () => client.close(),
  };
}

/** A new session on the gateway, seen through a real SDK Client over an in-memory transport. */
export async function connectSession(gateway: Gateway): Promise<TestClient> {
  const server = gateway.createServer();
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  return wrapClient(client);
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}
