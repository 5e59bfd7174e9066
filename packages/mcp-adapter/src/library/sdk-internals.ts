/**
 * Everything the adapter knows about the shape of SDK objects, in one place:
 * the few private fields of McpServer that library mode relies on (SDK v1's
 * `@modelcontextprotocol/sdk` and SDK v2's `@modelcontextprotocol/server`),
 * and how to read a request's context, which the two SDKs hand over in
 * different shapes. McpServer has no public way to enumerate its tools or to
 * wrap its tools/list and tools/call handlers; test/library.test.ts fails
 * loudly if an SDK update moves these.
 */
import type {
  McpServer as McpServerV1,
  RegisteredTool as RegisteredToolV1,
} from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  McpServer as McpServerV2,
  PROTOCOL_VERSION_META_KEY,
  type RegisteredTool as RegisteredToolV2,
  Server as ServerV2,
} from '@modelcontextprotocol/server';
import type { RequestExtra } from '../meta-tools.js';

/** An McpServer of either SDK generation. */
export type AnyMcpServer = McpServerV1 | McpServerV2;

/** The part of a registered tool both SDKs share and library mode touches. */
export type ManagedTool = Pick<RegisteredToolV1, 'enabled'> | Pick<RegisteredToolV2, 'enabled'>;

export type RawHandler = (
  request: { method: string; params?: unknown },
  extra: RequestExtra,
) => Promise<unknown>;

interface McpServerInternals {
  _registeredTools: Record<string, ManagedTool>;
  setToolRequestHandlers(): void;
  server: { _requestHandlers: Map<string, RawHandler>; _instructions?: string };
}

function internals(server: AnyMcpServer): McpServerInternals {
  const inner = server as unknown as McpServerInternals;
  if (typeof inner._registeredTools !== 'object' || !(inner.server._requestHandlers instanceof Map))
    throw new Error('toolsearch-mcp: this MCP SDK version is not supported by withToolSearch');
  return inner;
}

export function isV2Server(server: AnyMcpServer): server is McpServerV2 {
  return server instanceof McpServerV2;
}

/** Whether an object is an SDK v2 server, the only kind that can serve 2026-07-28 requests. */
export function isV2Serving(server: unknown): server is McpServerV2 | ServerV2 {
  return server instanceof McpServerV2 || server instanceof ServerV2;
}

export function registeredTools(server: AnyMcpServer): Record<string, ManagedTool> {
  return internals(server)._registeredTools;
}

/** The tools/list and tools/call handlers McpServer installed (installing them first if no tool exists yet). */
export function toolHandlers(server: AnyMcpServer): { list: RawHandler; call: RawHandler } {
  const inner = internals(server);
  inner.setToolRequestHandlers(); // idempotent; also declares the tools capability
  const list = inner.server._requestHandlers.get('tools/list');
  const call = inner.server._requestHandlers.get('tools/call');
  if (!list || !call) throw new Error('toolsearch-mcp: McpServer has no tool handlers to wrap');
  return { list, call };
}

/** Replaces McpServer's tools/list and tools/call handlers (v1 registers by schema, v2 by method name). */
export function replaceToolHandlers(
  server: AnyMcpServer,
  handlers: { list: RawHandler; call: RawHandler },
): void {
  if (isV2Server(server)) {
    const low = server.server;
    low.setRequestHandler('tools/list', (request, ctx) => handlers.list(request, ctx) as never);
    low.setRequestHandler('tools/call', (request, ctx) => handlers.call(request, ctx) as never);
    return;
  }
  // v1 registers by request schema, which would tie this package to v1 at run time; its
  // handler map (keyed by method) takes the replacements as they are, so v1 stays an
  // optional peer dependency that only the user's own server brings.
  const map = internals(server).server._requestHandlers;
  map.set('tools/list', (request, extra) => handlers.list(request, extra));
  map.set('tools/call', (request, extra) => handlers.call(request, extra));
}

/** Adds lines to the server's `instructions` (sent at initialize; the SDK only takes them in the constructor). */
export function appendInstructions(server: AnyMcpServer, text: string): void {
  const inner = internals(server).server;
  inner._instructions = inner._instructions ? `${inner._instructions}\n\n${text}` : text;
}

/** SDK v2's per-request context, as far as the adapter reads it. */
interface V2Context {
  mcpReq?: { signal?: AbortSignal; envelope?: Record<string, unknown> };
}

/** The abort signal of the request being served (v1: `extra.signal`; v2: `ctx.mcpReq.signal`). */
export function signalOf(extra: RequestExtra): AbortSignal | undefined {
  const v2 = (extra as V2Context).mcpReq?.signal;
  return v2 ?? (extra as { signal?: AbortSignal }).signal;
}

/**
 * The protocol revision a request was sent for when it carries the
 * 2026-07-28 per-request `_meta` envelope, else undefined (a 2025-era
 * request: initialize-negotiated, sessionful).
 */
export function modernRevisionOf(extra: RequestExtra): string | undefined {
  const version = (extra as V2Context).mcpReq?.envelope?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}
