/**
 * The few private fields of the SDK's McpServer that library mode relies on,
 * in one place. McpServer has no public way to enumerate its tools or to wrap
 * its tools/list and tools/call handlers; test/library.test.ts fails loudly
 * if an SDK update moves these.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestExtra } from '../meta-tools.js';

export type RawHandler = (
  request: { method: string; params?: unknown },
  extra: RequestExtra,
) => Promise<unknown>;

interface McpServerInternals {
  _registeredTools: Record<string, RegisteredTool>;
  setToolRequestHandlers(): void;
  server: { _requestHandlers: Map<string, RawHandler>; _instructions?: string };
}

function internals(server: McpServer): McpServerInternals {
  const inner = server as unknown as McpServerInternals;
  if (typeof inner._registeredTools !== 'object' || !(inner.server._requestHandlers instanceof Map))
    throw new Error(
      'toolsearch-mcp: this @modelcontextprotocol/sdk version is not supported by withToolSearch',
    );
  return inner;
}

export function registeredTools(server: McpServer): Record<string, RegisteredTool> {
  return internals(server)._registeredTools;
}

/** The tools/list and tools/call handlers McpServer installed (installing them first if no tool exists yet). */
export function toolHandlers(server: McpServer): { list: RawHandler; call: RawHandler } {
  const inner = internals(server);
  inner.setToolRequestHandlers(); // idempotent; also declares the tools capability
  const list = inner.server._requestHandlers.get('tools/list');
  const call = inner.server._requestHandlers.get('tools/call');
  if (!list || !call) throw new Error('toolsearch-mcp: McpServer has no tool handlers to wrap');
  return { list, call };
}

/** Adds lines to the server's `instructions` (sent at initialize; the SDK only takes them in the constructor). */
export function appendInstructions(server: McpServer, text: string): void {
  const inner = internals(server).server;
  inner._instructions = inner._instructions ? `${inner._instructions}\n\n${text}` : text;
}
