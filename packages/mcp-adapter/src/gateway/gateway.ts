/**
 * Gateway mode: one search index over the tools of every upstream MCP server
 * (named `server__tool`, toolset = server), and one low-level SDK `Server` per
 * client session. A session lists the meta-tools plus the tools it loaded,
 * with their upstream schemas unchanged, and routes calls to the upstream.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { type ListToolsResult, Server } from '@modelcontextprotocol/server';
import { Catalog, type EngineOptions } from '../catalog.js';
import { signalOf } from '../library/sdk-internals.js';
import {
  findTool,
  INSTRUCTIONS,
  isMetaTool,
  META_TOOLS,
  type MetaBackend,
  type MetaContext,
  runMetaTool,
  type ToolsetStatus,
  unknownTools,
} from '../meta-tools.js';
import { errorResult } from '../render.js';
import { SessionState } from '../session.js';
import type { GatewayConfig } from './config.js';
import { redactSecrets } from './redact.js';
import { UpstreamManager, type UpstreamManagerOptions } from './upstreams.js';

export interface GatewayOptions {
  config: GatewayConfig;
  /** core-search options (strategies, synonyms, embedding model). */
  engine?: EngineOptions;
  /**
   * How long a client may take to re-fetch tools/list after list_changed.
   * Overrides the config's `listChangedWindowMs`; default 2000 ms.
   */
  listChangedWindowMs?: number;
  /** Upstream start/restart tuning; the call timeout comes from the config. */
  upstreams?: Omit<UpstreamManagerOptions, 'callTimeoutMs' | 'log'>;
  log?: (line: string) => void;
}

const SERVER_INFO = { name: 'toolsearch-mcp', version: '0.1.0' };

export class Gateway {
  readonly catalog: Catalog;
  readonly upstreams: UpstreamManager;
  private readonly config: GatewayConfig;
  private readonly options: GatewayOptions;
  private readonly log: (line: string) => void;
  private readonly sessions = new Set<{ state: SessionState; notify: () => void }>();
  private readonly unsubscribe: () => void;

  private constructor(options: GatewayOptions) {
    this.options = options;
    this.config = options.config;
    const write = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    this.log = (line) => write(redactSecrets(line, this.config.upstreams));
    this.catalog = new Catalog({ ...(options.engine ? { engine: options.engine } : {}), log: this.log });
    this.upstreams = new UpstreamManager(this.config.upstreams, {
      ...options.upstreams,
      callTimeoutMs: this.config.callTimeoutMs,
      log: this.log,
    });
    this.unsubscribe = this.upstreams.onToolsChanged((upstream) => this.reindex(upstream));
  }

  /**
   * Connects to every upstream (each failing alone) and indexes their tools.
   * Does not wait for the embedding model: search serves lexical results until it is in.
   */
  static async start(options: GatewayOptions): Promise<Gateway> {
    const gateway = new Gateway(options);
    await gateway.upstreams.start();
    for (const upstream of gateway.config.upstreams) gateway.reindex(upstream.name);
    return gateway;
  }

  /** A fresh MCP server for one client session (stdio: the only one; HTTP: one per Mcp-Session-Id). */
  createServer(): Server {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: true } },
      instructions: INSTRUCTIONS,
    });
    // The option (the CLI flag) wins over mcp.json's toolsearch.listChangedWindowMs; else the default.
    const windowMs = this.options.listChangedWindowMs ?? this.config.listChangedWindowMs;
    const state = new SessionState({
      alwaysLoaded: this.expandAlwaysLoaded(),
      maxBoundTools: this.config.maxBoundTools,
      ...(windowMs !== undefined ? { listChangedWindowMs: windowMs } : {}),
    });
    const notify = (): void => {
      state.listChangedSent();
      server.sendToolListChanged().catch(() => {}); // the client may be gone; nothing to tell it then
    };
    const entry = { state, notify };
    this.sessions.add(entry);
    server.onclose = () => this.sessions.delete(entry);

    const backend: MetaBackend = {
      catalog: this.catalog,
      callTool: (name, args, extra) =>
        this.upstreams.call(name, args, { timeoutMs: this.config.callTimeoutMs, signal: signalOf(extra) }),
      status: () => this.status(),
      revive: (names) => this.upstreams.revive(names),
    };
    const ctx: MetaContext = { backend, session: state, bindingsChanged: notify };

    server.setRequestHandler('tools/list', () => {
      state.toolsListed();
      const bound = state
        .bound()
        .map((name) => this.catalog.get(name)?.definition)
        .filter((t): t is Tool => t !== undefined);
      // Upstream definitions are SDK v1 `Tool`s: the same JSON on the wire, typed more loosely.
      return { tools: [...META_TOOLS, ...bound] } as ListToolsResult;
    });
    server.setRequestHandler('tools/call', async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args } = request.params;
      if (isMetaTool(name)) return runMetaTool(ctx, name, args, extra);
      try {
        // Any indexed tool answers by name, loaded or not; loading only decides what tools/list shows.
        if (!(await findTool(ctx, name))) return await unknownTools(ctx, [name]);
        state.touch(name);
        return await backend.callTool(name, args ?? {}, extra);
      } catch (err) {
        return errorResult(err);
      }
    });
    return server;
  }

  status(): ToolsetStatus[] {
    return this.upstreams.status().map((s) => ({
      name: s.name,
      state: s.state,
      toolCount: s.toolCount,
      ...(s.error ? { error: s.error } : {}),
    }));
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.upstreams.close();
  }

  /** Re-reads one upstream's tools into the index and tells the sessions whose tool list changed. */
  private reindex(upstream: string): void {
    const tools = this.upstreams
      .tools()
      .filter((t) => t.upstream === upstream)
      .map((t) => ({ ...t.definition, name: t.qualifiedName }));
    const before = new Map(this.catalog.toolsOf(upstream).map((n) => [n, this.catalog.get(n)?.definition]));
    if (tools.length === 0 && before.size === 0) return;
    try {
      this.catalog.setToolset(upstream, tools);
    } catch (err) {
      this.log(
        `toolsearch-mcp: could not index ${upstream}: ${err instanceof Error ? err.message : String(err)}`,
      );
      return;
    }
    for (const session of this.sessions) {
      const dropped = session.state.retain((name) => this.catalog.has(name));
      const affected = session.state
        .bound()
        .some(
          (n) =>
            before.has(n) &&
            JSON.stringify(before.get(n)) !== JSON.stringify(this.catalog.get(n)?.definition),
        );
      if (dropped.length > 0 || affected) session.notify();
    }
  }

  /** Always-loaded entries may name tools or whole toolsets. */
  private expandAlwaysLoaded(): string[] {
    return this.config.alwaysLoaded.flatMap((entry) => {
      if (this.catalog.has(entry)) return [entry];
      const members = this.catalog.toolsOf(entry);
      if (members.length === 0)
        this.log(`toolsearch-mcp: always-loaded "${entry}" is not a known tool or toolset`);
      return members;
    });
  }
}
