/**
 * Library mode: put search_tools / load_toolset in front of a developer's own
 * McpServer (SDK v1's `@modelcontextprotocol/sdk` or SDK v2's
 * `@modelcontextprotocol/server`). Every tool not always-loaded is hidden with
 * RegisteredTool.disable() and enabled again when the agent loads it; a
 * hidden tool called by name still runs, exactly as before.
 */
import type { CallToolResult, ListToolsResult, Tool } from '@modelcontextprotocol/server';
import { Catalog, type EngineOptions } from '../catalog.js';
import { stderrLog } from '../defaults.js';
import { AdapterError } from '../errors.js';
import { HANDLE_KEY_ENV, HandleCodec } from '../handles.js';
import { Learning } from '../learn/learning.js';
import { type LearnOption, learningDisabledByEnv, openStore } from '../learn/open.js';
import {
  INSTRUCTIONS,
  isMetaTool,
  META_TOOLS,
  type MetaContext,
  noteDirectCall,
  type RequestExtra,
  runMetaTool,
  STATELESS_META_TOOLS,
  type UseEvent,
} from '../meta-tools.js';
import { SessionState } from '../session.js';
import {
  type AnyMcpServer,
  appendInstructions,
  type ManagedTool,
  modernRevisionOf,
  type RawHandler,
  registeredTools,
  replaceToolHandlers,
  toolHandlers,
} from './sdk-internals.js';

export interface WithToolSearchOptions {
  /** Tools that stay in tools/list for the whole session. TOOLSEARCH_ALWAYS_LOADED (comma-separated) adds to it. */
  alwaysLoaded?: string[];
  /** Cap on loaded tools (LRU eviction beyond it). Default 40. */
  maxBoundTools?: number;
  /** How long a client may take to re-fetch tools/list after list_changed. Default 2000 ms. */
  listChangedWindowMs?: number;
  /** Toolset of a tool. Default: the `server` of a `server__tool` name, else "default". */
  toolsetOf?: (name: string, tool: Tool) => string | undefined;
  /** core-search options (strategies, synonyms, embedding model). */
  engine?: EngineOptions;
  /**
   * Learning from use (search_tools followed by a load or call of a result): false
   * switches it off; else the store (a UsageStore, a redis:// URL or a file path;
   * default the file in the cache directory). TOOLSEARCH_NO_LEARN=1 switches it off.
   */
  learn?: LearnOption;
  /** Environment to read TOOLSEARCH_ALWAYS_LOADED, TOOLSEARCH_HANDLE_KEY and TOOLSEARCH_NO_LEARN from. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * HMAC key (at least 32 bytes) of the handles 2026-07-28 clients carry
   * between calls. Default TOOLSEARCH_HANDLE_KEY, else a random per-process
   * key: servers behind one load balancer need a shared one.
   */
  handleKey?: string;
  /** Told when a search is followed by load_toolset or a call of a tool it offered. */
  onUse?: (event: UseEvent) => void;
  log?: (line: string) => void;
}

export interface ToolSearchHandle {
  readonly catalog: Catalog;
  readonly session: SessionState;
  /** Learned uses (absent when learning is off). */
  readonly learning: Learning | undefined;
  /** Indexes (and hides) tools registered on the server since withToolSearch or the last refresh. */
  refresh(): Promise<void>;
  /** Waits for pending learned uses to be stored and closes the store (a Redis connection). */
  close(): Promise<void>;
}

export function alwaysLoadedFromEnv(env: NodeJS.ProcessEnv): string[] {
  return (env.TOOLSEARCH_ALWAYS_LOADED ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export async function withToolSearch(
  server: AnyMcpServer,
  options: WithToolSearchOptions = {},
): Promise<ToolSearchHandle> {
  if (server.isConnected())
    throw new AdapterError('INVALID_CONFIG', 'withToolSearch(server): call it before server.connect()');
  const log = options.log ?? stderrLog;
  const tools = registeredTools(server);
  for (const meta of META_TOOLS)
    if (tools[meta.name])
      throw new AdapterError(
        'INVALID_CONFIG',
        `withToolSearch(server): a tool is already named "${meta.name}"`,
      );
  const original = toolHandlers(server);
  const catalog = new Catalog({ ...(options.engine ? { engine: options.engine } : {}), log });
  catalog.prepare(); // bad engine options throw from withToolSearch(), not from the first listing
  const session = new SessionState({
    alwaysLoaded: [...(options.alwaysLoaded ?? []), ...alwaysLoadedFromEnv(options.env ?? process.env)],
    ...(options.maxBoundTools !== undefined ? { maxBoundTools: options.maxBoundTools } : {}),
    ...(options.listChangedWindowMs !== undefined
      ? { listChangedWindowMs: options.listChangedWindowMs }
      : {}),
  });
  const env = options.env ?? process.env;
  const handleKey = options.handleKey ?? env[HANDLE_KEY_ENV];
  const handles = new HandleCodec({
    ...(handleKey ? { key: handleKey } : {}),
    maxLoaded: session.maxBoundTools,
  });
  /** Tools we hide and show; tools the developer disabled themselves are left alone. */
  const managed = new Map<string, ManagedTool>();

  /** Makes `enabled` match the session: bound tools shown, the rest hidden. */
  const applyBindings = (): void => {
    for (const [name, tool] of managed) tool.enabled = session.isBound(name);
  };

  const refresh = async (): Promise<void> => {
    const fresh = Object.entries(tools).filter(([name, tool]) => tool.enabled && !managed.has(name));
    if (fresh.length === 0) return;
    const freshNames = new Set(fresh.map(([name]) => name));
    // McpServer's own tools/list renders the JSON schemas exactly as a client would see them.
    const listed = (await original.list(
      { method: 'tools/list', params: {} },
      {} as RequestExtra,
    )) as ListToolsResult;
    const definitions = listed.tools.filter((t) => freshNames.has(t.name));
    catalog.addTools(definitions.map((d) => ({ definition: d, toolset: options.toolsetOf?.(d.name, d) })));
    for (const [name, tool] of fresh) managed.set(name, tool);
    for (const name of session.alwaysLoaded)
      if (!managed.has(name))
        log(`toolsearch-mcp: always-loaded tool "${name}" is not registered on this server`);
    // Same effect as RegisteredTool.disable(), but one list_changed for the batch instead of one per tool.
    for (const [name, tool] of fresh) if (!session.isBound(name)) tool.enabled = false;
    if (server.isConnected()) server.sendToolListChanged();
  };
  await refresh();

  const learnOption = options.learn ?? {};
  let learning: Learning | undefined;
  if (learnOption !== false && !learningDisabledByEnv(env)) {
    const { store, refreshMs } = openStore(learnOption, { env, log });
    learning = await Learning.start({ store, target: catalog, refreshMs, log });
    catalog.onIndexed((names) => learning?.reindexed(names));
  }
  const conversation = learning?.conversation();

  const ctx: MetaContext = {
    backend: {
      catalog,
      callTool: (name, args, extra) =>
        callHidden(
          original.call,
          managed.get(name),
          { method: 'tools/call', params: { name, arguments: args } },
          extra,
        ),
      ...(learning ? { learning } : {}),
    },
    session,
    ...(conversation ? { conversation } : {}),
    bindingsChanged: () => {
      applyBindings();
      server.sendToolListChanged();
      session.listChangedSent();
    },
    handles,
    ...(options.onUse || learning
      ? {
          // A followed search (either era): the learning store records it, then the caller's hook hears of it.
          onUse: (event: UseEvent) => {
            learning?.use(event.query, event.tool);
            options.onUse?.(event);
          },
        }
      : {}),
    log,
  };
  /** A 2026-07-28 request (SDK v2 only) is served statelessly: it never changes the bindings. */
  const contextFor = (extra: RequestExtra): MetaContext => {
    if (!modernRevisionOf(extra)) return ctx;
    const { conversation: _sessionOnly, ...rest } = ctx;
    return { ...rest, mode: 'stateless' };
  };

  replaceToolHandlers(server, {
    list: async (request, extra) => {
      const listed = (await original.list(request, extra)) as ListToolsResult;
      if (modernRevisionOf(extra)) {
        // A fixed list: the meta-tools and the always-loaded tools, whatever was loaded.
        const always = listed.tools.filter((t) => session.alwaysLoaded.has(t.name));
        return { ...listed, tools: [...STATELESS_META_TOOLS, ...always] };
      }
      session.toolsListed();
      return { ...listed, tools: [...META_TOOLS, ...listed.tools] };
    },
    call: async (request, extra) => {
      const { name, arguments: args } = request.params as {
        name: string;
        arguments?: Record<string, unknown>;
      };
      const served = contextFor(extra);
      if (isMetaTool(name)) return runMetaTool(served, name, args, extra);
      if (served.mode !== 'stateless') session.touch(name);
      noteDirectCall(served, name);
      if (served.mode !== 'stateless' && managed.has(name)) conversation?.calledTool(name);
      return callHidden(original.call, managed.get(name), request, extra);
    },
  });
  appendInstructions(server, INSTRUCTIONS);
  return { catalog, session, learning, refresh, close: async () => learning?.close() };
}

/**
 * Runs McpServer's own tools/call for a tool that may be hidden. McpServer
 * refuses disabled tools, but checks `enabled` synchronously before its first
 * await, so enabling the tool for exactly that synchronous stretch lets the
 * call through without it ever showing in a concurrent tools/list.
 */
async function callHidden(
  call: RawHandler,
  tool: ManagedTool | undefined,
  request: { method: string; params?: unknown },
  extra: RequestExtra,
): Promise<CallToolResult> {
  if (!tool || tool.enabled) return (await call(request, extra)) as CallToolResult;
  tool.enabled = true;
  let pending: Promise<unknown>;
  try {
    pending = call(request, extra);
  } finally {
    tool.enabled = false;
  }
  return (await pending) as CallToolResult;
}
