/**
 * Gateway mode: one search index over the tools of every upstream MCP server
 * (named `server__tool`, toolset = server), and one low-level SDK `Server` per
 * client session. A 2025-era session lists the meta-tools plus the tools it
 * loaded, with their upstream schemas unchanged, and routes calls to the
 * upstream. A 2026-07-28 request (per-request `_meta` envelope, no session)
 * sees a fixed list, the stateless meta-tools plus the always-loaded tools,
 * and carries its conversation's state in signed handles, so any gateway
 * process sharing the handle key can serve it.
 */
import { type CallToolResult, type ListToolsResult, Server, type Tool } from '@modelcontextprotocol/server';
import { enrichTools, type ToolDefinition } from '@toolsearch/core-search';
import { Catalog, type EngineOptions } from '../catalog.js';
import { IMPLEMENTATION, stderrLog } from '../defaults.js';
import { HandleCodec } from '../handles.js';
import type { ServeContext } from '../http.js';
import { Learning } from '../learn/learning.js';
import { type LearnOption, learningDisabledByEnv, openStore } from '../learn/open.js';
import { modernRevisionOf, signalOf } from '../library/sdk-internals.js';
import {
  findTool,
  INSTRUCTIONS,
  isMetaTool,
  META_TOOLS,
  type MetaBackend,
  type MetaContext,
  type MetaMode,
  noteDirectCall,
  runMetaTool,
  STATELESS_META_TOOLS,
  type ToolsetStatus,
  type UseEvent,
  unknownTools,
} from '../meta-tools.js';
import { errorResult } from '../render.js';
import { SessionState } from '../session.js';
import type { EnrichConfig, GatewayConfig } from './config.js';
import { IndexCache, type IndexCacheOption } from './index-cache.js';
import type { LastEntry } from './last-entry.js';
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
  /**
   * Told when a search is followed by load_toolset or a call of a tool it
   * offered, in either protocol era (the hook a learning store plugs into).
   */
  onUse?: (event: UseEvent) => void;
  /**
   * Learning from use: false switches it off; else the store (default: the config's
   * `toolsearch.learn`, else the file in the cache directory). TOOLSEARCH_NO_LEARN=1
   * in `env` switches it off whatever this says.
   */
  learn?: LearnOption;
  /** Environment for TOOLSEARCH_NO_LEARN, the enrich API key and the cache directory. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Model-written phrasings for the upstream tools, in the background (default: the
   * config's `toolsearch.enrich`; false: off). Never delays start-up or search.
   */
  enrich?: EnrichConfig | false;
  /** Cache directory of enrichment answers; default the user's cache directory. */
  enrichCacheDir?: string;
  /**
   * The built index of the upstreams' tools, kept on disk and loaded at the next start when
   * no upstream's tool list and no setting changed (index-cache.ts). false switches it off,
   * as TOOLSEARCH_NO_INDEX_CACHE=1 in `env` does; `dir` defaults to the user's cache directory.
   */
  indexCache?: IndexCacheOption;
  /**
   * With the index cache on, start() returns as soon as it has loaded the index the last start
   * over this configuration stored, serving it (possibly stale) while the upstreams list their
   * tools (upstreamsListed()). false: start() waits for the listing, as with the cache off,
   * and loads the stored index only when the lists match it (one-shot uses: a report). Default true.
   */
  serveBeforeListing?: boolean;
  log?: (line: string) => void;
}

/**
 * tools/list of a 2026-07-28 client changes only when an upstream's
 * always-loaded tools do: a client may reuse it for a minute. Private: with a
 * bearer token, what a caller may see could depend on who asks.
 */
export const TOOL_LIST_CACHE_HINT = { ttlMs: 60_000, cacheScope: 'private' } as const;

export class Gateway {
  readonly catalog: Catalog;
  readonly upstreams: UpstreamManager;
  /** Learned uses (absent when learning is off); `learning.use(query, tool)` records one. */
  learning: Learning | undefined;
  private readonly config: GatewayConfig;
  private readonly options: GatewayOptions;
  private readonly log: (line: string) => void;
  private readonly sessions = new Set<{ state: SessionState; notify: () => void }>();
  private readonly unsubscribe: () => void;
  /** Signs the handles of 2026-07-28 conversations. */
  readonly handles: HandleCodec;
  private unindexed: (() => void) | undefined;
  private readonly enrichAbort = new AbortController();
  private enriching: Promise<void> = Promise.resolve();
  /**
   * The always-loaded tools as 2026-07-28 clients see them (after the meta-tools), and
   * their definitions as one string, to tell when an upstream change alters that list.
   * Set once start() has indexed every upstream (before, an entry may only be unindexed yet).
   */
  private statelessBound: string[] = [];
  private statelessKey: string | undefined;
  private readonly toolListListeners = new Set<() => void>();
  /** Set once start() has indexed (or loaded) every upstream's tools: from then on a change re-indexes one. */
  private indexedAtStart = false;
  /** True while search serves the index of an earlier start and the upstreams are still listing. */
  private staleIndex = false;
  private listing: Promise<void> = Promise.resolve();
  private closed = false;
  /** The key of a cached index this start found unusable: not loaded (nor checked) a second time. */
  private refusedKey: string | undefined;
  /** The cache entry the catalog's index was loaded from, while it serves it (repair()). */
  private served: { cache: IndexCache; configKey: string | undefined; key: string } | undefined;
  /** The loaded index turned out damaged before the upstreams listed: settle() indexes again. */
  private damagedIndex = false;

  private constructor(options: GatewayOptions) {
    this.options = options;
    this.config = options.config;
    const write = options.log ?? stderrLog;
    this.log = (line) => write(redactSecrets(line, this.config.upstreams));
    this.handles = new HandleCodec({
      ...(this.config.handleKey ? { key: this.config.handleKey } : {}),
      maxLoaded: this.config.maxBoundTools,
    });
    if (this.handles.ephemeralKey)
      this.log(
        'toolsearch-mcp: no TOOLSEARCH_HANDLE_KEY (or toolsearch.handleKey): handles are signed with a per-process key; replicas behind one load balancer need a shared one',
      );
    // The upstreams' tools are the gateway's own, parsed from their tools/list and kept as listed,
    // never changed: the engine checks them without copying them (copyTools: false, as the CLI
    // does with the file it reads). Its copy was a second object tree of every schema beside the
    // catalog's: a ~100k-tool start without the index cache peaked at 548-564 MB RSS with it,
    // 478-507 MB without (gateway-start's child, three alternating pairs).
    this.catalog = new Catalog({ engine: { copyTools: false, ...options.engine }, log: this.log });
    this.upstreams = new UpstreamManager(this.config.upstreams, {
      ...options.upstreams,
      callTimeoutMs: this.config.callTimeoutMs,
      log: this.log,
      ...(this.config.redactSecrets !== undefined ? { redactResults: this.config.redactSecrets } : {}),
    });
    // Until start() indexes them all at once, an upstream's first listing (or a re-listing mid-start)
    // is left to it: indexing each as it came up, then all again, indexed every tool twice.
    this.unsubscribe = this.upstreams.onToolsChanged((upstream) => {
      if (this.indexedAtStart) this.reindex(upstream, true);
    });
    this.catalog.onDamagedIndex((error) => this.repair(error));
  }

  /**
   * Connects to every upstream (each failing alone) and indexes their tools.
   * Does not wait for the embedding model: search serves lexical results until it is in.
   */
  static async start(options: GatewayOptions): Promise<Gateway> {
    const gateway = new Gateway(options);
    const cache = IndexCache.open({
      option: options.indexCache,
      engine: options.engine,
      env: options.env ?? process.env,
      log: gateway.log,
    });
    const configKey = cache?.configKeyOf(gateway.config.upstreams);
    const last =
      cache && configKey !== undefined && options.serveBeforeListing !== false
        ? gateway.loadLast(cache, configKey)
        : undefined;
    // Started once the last index is loaded: their start-up (processes spawned, servers parsing
    // their own tool lists) ran beside the load and took the CPU from it; it delays the listing,
    // which only settles an index already serving, by the load.
    const connecting = gateway.upstreams.start();
    if (cache && configKey !== undefined && last) {
      // Serving already; the listing decides whether the loaded index stands (settle).
      gateway.refreshStatelessList();
      await gateway.startLearning();
      gateway.listing = connecting.then(() => gateway.settle(cache, configKey, last));
      return gateway;
    }
    gateway.catalog.prepare();
    await connecting;
    gateway.indexUpstreams(cache, configKey);
    gateway.refreshStatelessList();
    await gateway.startLearning();
    gateway.enrichAll();
    return gateway;
  }

  /**
   * Resolves once every upstream has connected (or failed to) and listed its tools, and the
   * index holds what they listed: at once after a start that waited for them (no index of an
   * earlier start to serve meanwhile). Never rejects.
   */
  upstreamsListed(): Promise<void> {
    return this.listing;
  }

  /** True while search answers come from the index an earlier start stored: an upstream's tools may have changed since. */
  get indexPossiblyStale(): boolean {
    return this.staleIndex;
  }

  /**
   * Listens for changes of the tool list 2026-07-28 clients get: an always-loaded tool
   * added, removed or redefined by its upstream. That list never changes by anything a
   * client does, so this is the only time they are told (notifications/tools/list_changed
   * on their subscriptions/listen streams). Returns unsubscribe.
   */
  onToolListChanged(listener: () => void): () => void {
    this.toolListListeners.add(listener);
    return () => this.toolListListeners.delete(listener);
  }

  /** Re-reads the always-loaded tools; tells the listeners when what 2026-07-28 clients list changed. */
  private refreshStatelessList(): void {
    const names = this.expandAlwaysLoaded();
    const key = JSON.stringify(names.map((name) => this.catalog.get(name)?.definition));
    const before = this.statelessKey;
    this.statelessBound = names;
    this.statelessKey = key;
    if (before === undefined || before === key) return;
    for (const listener of this.toolListListeners) {
      try {
        listener();
      } catch (err) {
        this.log(`toolsearch-mcp: tool-list listener failed: ${(err as Error).message}`);
      }
    }
  }

  /** A followed search (either era): the learning store records it, then the caller's hook hears of it. */
  private used(event: UseEvent): void {
    this.learning?.use(event.query, event.tool);
    this.options.onUse?.(event);
  }

  /** Resolves when the upstreams have listed and the background enrichment started so far has finished (tests, reports). */
  async enrichmentSettled(): Promise<void> {
    // A start from the last index enriches once the upstreams have listed (settle()).
    await this.listing;
    let seen: Promise<void> | undefined;
    while (seen !== this.enriching) {
      seen = this.enriching;
      await seen;
    }
  }

  /**
   * Asks the configured chat endpoint for phrasings of one upstream's tools, in
   * the background; each answer goes into the index as it arrives. Tools are
   * sent as their upstream defines them (not under our `server__` name), so the
   * cache serves the same tool under any server key.
   */
  private enrich(upstream: string): void {
    const settings = this.options.enrich ?? this.config.enrich;
    if (!settings) return;
    const env = this.options.env ?? process.env;
    const apiKey =
      (settings.apiKeyEnv ? env[settings.apiKeyEnv] : undefined) ||
      env.TOOLSEARCH_ENRICH_API_KEY ||
      env.OPENAI_API_KEY ||
      undefined;
    const tools = this.upstreams.tools().filter((t) => t.upstream === upstream);
    if (tools.length === 0) return;
    const byName = new Map(tools.map((t) => [t.definition.name, t.qualifiedName]));
    const definitions: ToolDefinition[] = tools.map((t) => ({
      name: t.definition.name,
      ...(t.definition.description ? { description: t.definition.description } : {}),
      inputSchema: t.definition.inputSchema as ToolDefinition['inputSchema'],
    }));
    const run = async () => {
      const report = await enrichTools(definitions, {
        endpoint: settings.endpoint,
        model: settings.model,
        ...(apiKey ? { apiKey } : {}),
        ...(settings.concurrency ? { concurrency: settings.concurrency } : {}),
        ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
        ...(this.options.enrichCacheDir ? { cacheDir: this.options.enrichCacheDir } : { env }),
        signal: this.enrichAbort.signal,
        onResult: (name, phrasings) => {
          const qualified = byName.get(name);
          if (qualified && this.catalog.has(qualified)) this.catalog.addPhrasings(qualified, phrasings);
        },
      });
      if (this.enrichAbort.signal.aborted) return;
      const failed =
        report.failed.length > 0 ? `; ${report.failed.length} failed, e.g. ${report.failed[0]?.message}` : '';
      this.log(
        `toolsearch-mcp: enriched ${report.phrasings.size}/${definitions.length} tools of ${upstream} (${report.cached} cached)${failed}`,
      );
    };
    this.enriching = this.enriching.then(() =>
      run().catch((err: unknown) =>
        this.log(
          `toolsearch-mcp: enrichment of ${upstream} failed: ${err instanceof Error ? err.message : String(err)}`,
        ),
      ),
    );
  }

  /** Loads the learned uses into the engine and keeps them in step with the store. */
  private async startLearning(): Promise<void> {
    const env = this.options.env ?? process.env;
    const option = this.options.learn ?? this.config.learn ?? {};
    if (option === false || learningDisabledByEnv(env)) return;
    const { store, refreshMs } = openStore(option, { env, log: this.log });
    this.learning = await Learning.start({ store, target: this.catalog, refreshMs, log: this.log });
    this.unindexed = this.catalog.onIndexed((names) => this.learning?.reindexed(names));
  }

  /**
   * A fresh MCP server: for one 2025-era session (stdio: the only one; HTTP:
   * one per Mcp-Session-Id), or for 2026-07-28 requests (HTTP: one per
   * request), which it tells apart per request by their `_meta` envelope.
   */
  createServer(context: ServeContext = {}): Server {
    const server = new Server(
      { ...IMPLEMENTATION },
      {
        // logging/setLevel is accepted from 2025-era clients (we send them no log messages); the
        // 2026-07-28 revision deprecates logging, so its clients are not offered it.
        capabilities: { tools: { listChanged: true }, ...(context.era === 'modern' ? {} : { logging: {} }) },
        instructions: INSTRUCTIONS,
        cacheHints: { 'tools/list': TOOL_LIST_CACHE_HINT },
      },
    );
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
    // A server for 2026-07-28 requests has no session to keep up to date.
    if (context.era !== 'modern') {
      const entry = { state, notify };
      this.sessions.add(entry);
      server.onclose = () => this.sessions.delete(entry);
    } else if (context.pinned) {
      // A stdio connection's one 2026-07-28 server: the SDK routes its list_changed to the
      // connection's subscriptions/listen streams (HTTP: serveHttp's onToolListChanged).
      const off = this.onToolListChanged(() => void server.sendToolListChanged().catch(() => {}));
      server.onclose = () => off();
    }
    // Tools called together in one 2025-era session (co-use), for related tools in details.
    const conversation = context.era !== 'modern' ? this.learning?.conversation() : undefined;

    const backend: MetaBackend = {
      catalog: this.catalog,
      callTool: (name, args, extra) =>
        this.upstreams.call(name, args, { timeoutMs: this.config.callTimeoutMs, signal: signalOf(extra) }),
      status: () => this.status(),
      indexPossiblyStale: () => this.staleIndex,
      revive: (names) => this.upstreams.revive(names),
      ...(this.learning ? { learning: this.learning } : {}),
    };
    const contextFor = (mode: MetaMode): MetaContext => ({
      backend,
      session: state,
      bindingsChanged: notify,
      mode,
      handles: this.handles,
      ...(this.options.onUse || this.learning ? { onUse: (event: UseEvent) => this.used(event) } : {}),
      ...(conversation && mode === 'legacy' ? { conversation } : {}),
      log: this.log,
    });
    const modeOf = (extra: object): MetaMode => (modernRevisionOf(extra) ? 'stateless' : 'legacy');

    server.setRequestHandler('tools/list', (_request, extra) => {
      const stateless = modeOf(extra) === 'stateless';
      if (!stateless) state.toolsListed();
      const bound = (stateless ? this.statelessBound : state.bound())
        .map((name) => this.catalog.get(name)?.definition)
        .filter((t): t is Tool => t !== undefined);
      return { tools: [...(stateless ? STATELESS_META_TOOLS : META_TOOLS), ...bound] } as ListToolsResult;
    });
    server.setRequestHandler('tools/call', async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args } = request.params;
      const ctx = contextFor(modeOf(extra));
      if (isMetaTool(name)) return runMetaTool(ctx, name, args, extra);
      try {
        // Any indexed tool answers by name, loaded or not; loading only decides what tools/list shows.
        if (!(await findTool(ctx, name))) return await unknownTools(ctx, [name]);
        if (ctx.mode === 'legacy') state.touch(name);
        noteDirectCall(ctx, name);
        if (ctx.mode === 'legacy') conversation?.calledTool(name);
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
    this.closed = true;
    this.enrichAbort.abort();
    this.unsubscribe();
    this.unindexed?.();
    await this.learning?.close();
    await this.upstreams.close();
  }

  /**
   * Indexes every upstream's tools at start, or loads the index the cache kept from a start
   * with the same tool lists and settings. Stored before learned uses and phrasings are applied
   * (startLearning and enrich run after this), so they apply to a loaded index as to a built one.
   */
  private indexUpstreams(cache: IndexCache | undefined, configKey: string | undefined): void {
    this.indexedAtStart = true;
    const lists = this.listedLists();
    const key = cache?.keyOf(lists);
    const saved = key === undefined || key === this.refusedKey ? undefined : cache?.read(key);
    if (saved) {
      try {
        this.catalog.restore(saved, lists);
        if (cache && key !== undefined) this.served = { cache, configKey, key };
        this.log(`toolsearch-mcp: loaded the index of ${this.catalog.size} tools from ${cache?.dir}`);
        // An entry from before the per-configuration ones (or theirs lost): the next start serves before listing.
        if (cache && key !== undefined && configKey !== undefined)
          this.writeLast(cache, configKey, key, lists);
        return;
      } catch (err) {
        this.refused(err);
      }
    }
    for (const name of lists.keys()) this.reindex(name);
    if (cache && key !== undefined && this.catalog.size > 0) {
      cache.write(key, this.catalog.toBytes());
      if (configKey !== undefined) this.writeLast(cache, configKey, key, lists);
    }
  }

  /**
   * Serves the index the last start over this configuration stored, before any upstream has
   * listed, marked stale until settle(); returns what the last start stored, or undefined when
   * there is none or it is not usable (the start then waits for the listing, as without it).
   */
  private loadLast(cache: IndexCache, configKey: string): LastEntry | undefined {
    const found = cache.readLast(configKey);
    if (!found) return undefined;
    try {
      this.catalog.restoreSaved(found.index, found.last);
    } catch (err) {
      this.refusedKey = found.last.key;
      this.refused(err);
      return undefined;
    }
    this.staleIndex = true;
    this.served = { cache, configKey, key: found.last.key };
    this.log(
      `toolsearch-mcp: loaded the index of ${this.catalog.size} tools from ${cache.dir}, serving it while the upstreams list their tools`,
    );
    return found.last;
  }

  /**
   * The upstreams have listed: the index loaded at start stands when the key of what they
   * listed is the one it was stored under; else the tools are indexed again and the new index
   * swapped in at once (sessions and 2026-07-28 listeners told as after any upstream change).
   */
  private settle(cache: IndexCache, configKey: string, last: LastEntry): void {
    if (this.closed) return;
    this.indexedAtStart = true;
    try {
      const lists = this.listedLists();
      const key = cache.keyOf(lists);
      if (key === last.key && !this.damagedIndex) {
        this.catalog.keepDefinitions(lists);
        this.log('toolsearch-mcp: the upstreams listed the tools of the loaded index: keeping it');
        return;
      }
      this.indexAgain(cache, configKey, key, lists);
      if (!this.damagedIndex)
        this.log(
          `toolsearch-mcp: the upstreams' tools changed since the loaded index: indexed ${this.catalog.size} tools again`,
        );
    } catch (err) {
      this.log(
        `toolsearch-mcp: could not index the upstreams' tools: ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      this.staleIndex = false;
      this.enrichAll();
    }
  }

  /**
   * Replaces the index by one built from `lists` (stored under `key`), telling the sessions
   * and 2026-07-28 listeners what changed, as after any upstream change.
   */
  private indexAgain(
    cache: IndexCache,
    configKey: string | undefined,
    key: string,
    lists: ReadonlyMap<string, Tool[]>,
  ): void {
    const before = this.boundDefinitions();
    const bytes = this.catalog.rebuild(lists);
    this.served = undefined;
    if (this.catalog.size > 0) {
      cache.write(key, bytes);
      if (configKey !== undefined) this.writeLast(cache, configKey, key, lists);
    }
    this.refreshStatelessList();
    this.tellSessions(before);
  }

  /**
   * The index loaded from the cache refused a tool's text when it was first read (a damaged
   * entry: core-search checks each text then, saved-index.ts): indexes the upstreams' lists
   * again, once they are in, and stores that index over the damaged one. Catalog.search
   * answers from the new index once this resolves.
   */
  private async repair(error: unknown): Promise<void> {
    const served = this.served;
    if (!served) return;
    this.served = undefined;
    this.refusedKey = served.key;
    this.refused(error);
    if (this.staleIndex) {
      // settle() indexes again when the upstreams have listed.
      this.damagedIndex = true;
      await this.listing;
      return;
    }
    try {
      const lists = this.listedLists();
      this.indexAgain(served.cache, served.configKey, served.cache.keyOf(lists), lists);
    } catch (err) {
      this.log(
        `toolsearch-mcp: could not index the upstreams' tools: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  /** Logs that the cached index was refused (at its load, or a text of it when first read). */
  private refused(error: unknown): void {
    this.log(
      `toolsearch-mcp: the cached index was not usable, indexing again (${error instanceof Error ? error.message : String(error)})`,
    );
  }

  /** Stores which index this configuration's start now serves, with the lists it holds. */
  private writeLast(
    cache: IndexCache,
    configKey: string,
    key: string,
    lists: ReadonlyMap<string, Tool[]>,
  ): void {
    cache.writeLast(configKey, key, lists, (name) => this.catalog.has(name));
  }

  private enrichAll(): void {
    for (const upstream of this.config.upstreams) this.enrich(upstream.name);
  }

  /** Every upstream's tools as listed, in config order. */
  private listedLists(): Map<string, Tool[]> {
    return new Map(this.config.upstreams.map((u) => [u.name, this.listedTools(u.name)]));
  }

  /**
   * The definitions the catalog holds for the tools sessions have loaded (of these toolsets,
   * else of all), by tool name: what tellSessions compares. Only those: a restored index reads
   * a definition when first asked for, and a change at ~100k tools read all of them. One that
   * cannot be read (a damaged index) is undefined: changed.
   */
  private boundDefinitions(toolsets?: readonly string[]): Map<string, Tool | undefined> {
    const out = new Map<string, Tool | undefined>();
    for (const session of this.sessions) {
      for (const name of session.state.bound()) {
        const entry = this.catalog.get(name);
        if (!entry || out.has(name) || (toolsets && !toolsets.includes(entry.toolset))) continue;
        try {
          out.set(name, entry.definition);
        } catch {
          out.set(name, undefined);
        }
      }
    }
    return out;
  }

  /** One upstream's tools as the index holds them: under their `server__tool` names. */
  private listedTools(upstream: string): Tool[] {
    return this.upstreams
      .tools()
      .filter((t) => t.upstream === upstream)
      .map((t) => ({ ...t.definition, name: t.qualifiedName }));
  }

  /** Re-reads one upstream's tools into the index and tells the sessions whose tool list changed. */
  private reindex(upstream: string, relisted = false): void {
    const tools = this.listedTools(upstream);
    const before = this.boundDefinitions([upstream]);
    if (tools.length === 0 && !this.catalog.hasToolset(upstream)) return;
    try {
      this.catalog.setToolset(upstream, tools);
      if (this.statelessKey !== undefined) this.refreshStatelessList();
      if (relisted) this.enrich(upstream); // new or changed tools; the cache answers for the rest
    } catch (err) {
      this.log(
        `toolsearch-mcp: could not index ${upstream}: ${err instanceof Error ? err.message : String(err)}`,
      );
      return;
    }
    this.tellSessions(before);
  }

  /** Tells each session whose loaded tools were dropped or redefined (against `before`) that its list changed. */
  private tellSessions(before: ReadonlyMap<string, Tool | undefined>): void {
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
