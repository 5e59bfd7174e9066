/**
 * Connections to the gateway's upstream MCP servers: one SDK `Client` per
 * configured server, over stdio (a child process) or Streamable HTTP.
 *
 * Each upstream fails alone. One that does not start, hangs or crashes is
 * recorded in status() while the others keep answering; a crashed one is
 * restarted on its next use, with exponential backoff between failed attempts.
 * Everything reported (errors, logs) is redacted of the configs' secrets, and
 * upstream stderr is piped to `log`, never to our stdout (which, for a stdio
 * gateway, carries protocol messages only).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AdapterError } from '../errors.js';
import type { UpstreamConfig } from './config.js';
import { redactSecrets } from './redact.js';

export interface UpstreamTool {
  upstream: string;
  /** The tool's name on its upstream. */
  name: string;
  /** `${upstream}__${name}`: the name the gateway indexes and exposes. */
  qualifiedName: string;
  /** The tool exactly as the upstream's tools/list returned it. */
  definition: Tool;
}

export type UpstreamState = 'connecting' | 'ready' | 'failed' | 'crashed' | 'restarting' | 'disabled';

export interface UpstreamStatus {
  name: string;
  state: UpstreamState;
  toolCount: number;
  /** Why the upstream is not ready, redacted of secrets. */
  error?: string;
  /** Restart attempts so far (after a crash or a failed start). */
  restarts: number;
  transport: 'stdio' | 'http';
  /** The child process id of a running stdio upstream. */
  pid?: number;
}

export interface UpstreamManagerOptions {
  /** Default timeout of call(); default 60 s. */
  callTimeoutMs?: number;
  /** Time allowed to spawn, initialize and list tools; default 30 s. */
  startTimeoutMs?: number;
  /** Receives one redacted line per event or upstream stderr line; default: our stderr. */
  log?: (line: string) => void;
  /** Consecutive failures (crash or failed start) after which restarts stop; default 5. */
  maxRestarts?: number;
  /** Wait before the second restart attempt, doubled for each further one; default 1 s. */
  backoffMs?: number;
}

const CLIENT_INFO = { name: 'toolsearch-mcp', version: '0.1.0' };
const MAX_BACKOFF_MS = 60_000;
const MAX_LIST_PAGES = 1000;
const STDERR_TAIL_LINES = 5;
/** Upstream stderr lines are cut here: some servers dump whole payloads into their logs. */
const MAX_LOG_LINE = 2000;
/** After a call times out, a ping must come back within this to count the upstream as alive. */
const PROBE_TIMEOUT_MS = 2000;

/** Loose schemas: results and tools are passed on exactly as received, unknown fields included. */
const AnyResultSchema = z.looseObject({});
const ToolsPageSchema = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string() })),
  nextCursor: z.string().optional(),
});

interface Upstream {
  config: UpstreamConfig;
  state: UpstreamState;
  tools: UpstreamTool[];
  error?: string;
  restarts: number;
  /** Crashes and failed starts since the last successful call; drives backoff and giving up. */
  failures: number;
  downAt: number;
  client?: Client;
  transport?: StdioClientTransport | StreamableHTTPClientTransport;
  /** Bumped on every connect, so events of a previous connection are ignored. */
  generation: number;
  connecting?: Promise<void>;
  relisting?: Promise<void>;
  relistAgain: boolean;
  stderrTail: string[];
}

export class UpstreamManager {
  private readonly upstreams: Upstream[];
  private readonly listeners = new Set<(upstream: string) => void>();
  private readonly callTimeoutMs: number;
  private readonly startTimeoutMs: number;
  private readonly maxRestarts: number;
  private readonly backoffMs: number;
  private readonly writeLog: (line: string) => void;
  private closed = false;

  constructor(
    private readonly configs: UpstreamConfig[],
    opts: UpstreamManagerOptions = {},
  ) {
    const names = new Set<string>();
    for (const config of configs) {
      if (names.has(config.name)) {
        throw new AdapterError('INVALID_CONFIG', `upstream "${config.name}" is configured twice`, {
          server: config.name,
        });
      }
      names.add(config.name);
    }
    this.callTimeoutMs = opts.callTimeoutMs ?? 60_000;
    this.startTimeoutMs = opts.startTimeoutMs ?? 30_000;
    this.maxRestarts = opts.maxRestarts ?? 5;
    this.backoffMs = opts.backoffMs ?? 1000;
    this.writeLog = opts.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.upstreams = configs.map((config) => ({
      config,
      state: config.disabled ? 'disabled' : 'connecting',
      tools: [],
      restarts: 0,
      failures: 0,
      downAt: 0,
      generation: 0,
      relistAgain: false,
      stderrTail: [],
    }));
  }

  /** Connects every enabled upstream in parallel. Never rejects: failures land in status(). */
  async start(): Promise<void> {
    await Promise.all(this.upstreams.filter((u) => u.state === 'connecting').map((u) => this.connect(u)));
  }

  /**
   * Tools of every upstream in config order, each in its upstream's order. A
   * crashed upstream keeps its last known tools, so they stay findable and a
   * call to one restarts it; status() says which upstreams are reachable.
   */
  tools(): UpstreamTool[] {
    return this.upstreams.flatMap((u) => (u.state === 'disabled' ? [] : u.tools));
  }

  status(): UpstreamStatus[] {
    return this.upstreams.map((u) => {
      const status: UpstreamStatus = {
        name: u.config.name,
        state: u.state,
        toolCount: u.tools.length,
        restarts: u.restarts,
        transport: u.config.url ? 'http' : 'stdio',
      };
      if (u.error !== undefined && u.state !== 'ready') status.error = u.error;
      const pid = u.transport instanceof StdioClientTransport ? u.transport.pid : null;
      if (pid !== null && u.state === 'ready') status.pid = pid;
      return status;
    });
  }

  /** Calls `server__tool` on its upstream and returns the result unchanged (including `isError`). */
  async call(
    qualifiedName: string,
    args: Record<string, unknown>,
    opts: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<CallToolResult> {
    if (this.closed) throw new AdapterError('UPSTREAM_DOWN', 'the gateway is shut down');
    const upstream = this.route(qualifiedName);
    await this.ensureReady(upstream, qualifiedName);
    const tool = upstream.tools.find((t) => t.qualifiedName === qualifiedName);
    if (!tool) throw this.unknownTool(qualifiedName, upstream);
    const client = upstream.client!;
    const generation = upstream.generation;
    const timeoutMs = opts.timeoutMs ?? this.callTimeoutMs;
    try {
      const result = await client.request(
        { method: 'tools/call', params: { name: tool.name, arguments: args } },
        AnyResultSchema,
        { timeout: timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) },
      );
      upstream.failures = 0;
      return result as CallToolResult;
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout && !opts.signal?.aborted) {
        await this.probe(upstream, client, generation);
      }
      throw this.callError(err, upstream, generation, qualifiedName, timeoutMs, opts.signal);
    }
  }

  /** Listens for tool list changes: an upstream's list_changed (re-listed), a (re)start. Returns unsubscribe. */
  onToolsChanged(listener: (upstream: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Closes every connection and stops every child process. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.upstreams.map((u) => this.disconnect(u)));
  }

  // --- connecting -----------------------------------------------------------

  private connect(u: Upstream): Promise<void> {
    u.connecting ??= this.doConnect(u).finally(() => {
      u.connecting = undefined;
    });
    return u.connecting;
  }

  private async doConnect(u: Upstream): Promise<void> {
    const generation = ++u.generation;
    const name = u.config.name;
    u.stderrTail = [];
    u.relistAgain = false;
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const transport = this.createTransport(u, generation);
    u.client = client;
    u.transport = transport;
    client.onerror = (err) => {
      if (u.generation === generation) this.log(`${name}: ${err.message}`);
    };
    client.onclose = () => {
      if (u.generation === generation && u.state === 'ready' && !this.closed) {
        this.markDown(u, 'crashed', `exited unexpectedly${this.stderrHint(u)}`);
      }
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (u.generation !== generation) return;
      // Mid-start, the listing in progress may already be stale: list once more when ready.
      if (u.state === 'ready') void this.relist(u, generation);
      else u.relistAgain = true;
    });

    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`did not finish starting within ${this.startTimeoutMs} ms`)),
        this.startTimeoutMs,
      );
    });
    try {
      const tools = await Promise.race([
        client.connect(transport).then(() => this.listAllTools(u, client)),
        timeout,
      ]);
      if (u.generation !== generation || this.closed) return;
      u.tools = tools;
      u.state = 'ready';
      u.error = undefined;
      this.log(`${name}: ready, ${tools.length} tools`);
      this.emit(name);
      if (u.relistAgain) void this.relist(u, generation);
    } catch (err) {
      if (u.generation !== generation || this.closed) return;
      // Let the last stderr lines of a process that died on startup arrive first.
      await sleep(20);
      this.markDown(u, 'failed', `failed to start: ${startFailure(err)}${this.stderrHint(u)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private createTransport(
    u: Upstream,
    generation: number,
  ): StdioClientTransport | StreamableHTTPClientTransport {
    const { config } = u;
    if (config.url) {
      return new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: { ...config.headers } },
      });
    }
    const transport = new StdioClientTransport({
      command: config.command!,
      args: config.args ?? [],
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: 'pipe',
    });
    let partial = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split(/\r?\n/);
      partial = lines.pop() ?? '';
      for (const line of lines) this.stderrLine(u, generation, line);
    });
    transport.stderr?.on('end', () => {
      if (partial) this.stderrLine(u, generation, partial);
      partial = '';
    });
    return transport;
  }

  private stderrLine(u: Upstream, generation: number, line: string): void {
    if (line.trim() === '' || u.generation !== generation) return;
    const clean = this.redact(line.length > MAX_LOG_LINE ? `${line.slice(0, MAX_LOG_LINE)}...` : line);
    u.stderrTail.push(clean);
    if (u.stderrTail.length > STDERR_TAIL_LINES) u.stderrTail.shift();
    this.writeLog(`[${u.config.name}] ${clean}`);
  }

  /** Reads tools/list across all pages. */
  private async listAllTools(u: Upstream, client: Client): Promise<UpstreamTool[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    const tools: UpstreamTool[] = [];
    const seenNames = new Set<string>();
    const seenCursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ToolsPageSchema,
        { timeout: this.startTimeoutMs },
      );
      for (const tool of result.tools) {
        if (seenNames.has(tool.name)) continue;
        seenNames.add(tool.name);
        const qualifiedName = `${u.config.name}__${tool.name}`;
        tools.push({ upstream: u.config.name, name: tool.name, qualifiedName, definition: tool as Tool });
      }
      cursor = result.nextCursor;
      if (cursor === undefined || seenCursors.has(cursor)) return tools;
      seenCursors.add(cursor);
    }
    this.log(`${u.config.name}: tools/list still paginating after ${MAX_LIST_PAGES} pages, stopped`);
    return tools;
  }

  /** Re-lists after list_changed; notifications that arrive mid-listing cause one more pass. */
  private relist(u: Upstream, generation: number): Promise<void> {
    if (u.relisting) {
      u.relistAgain = true;
      return u.relisting;
    }
    u.relisting = (async () => {
      do {
        u.relistAgain = false;
        try {
          const tools = await this.listAllTools(u, u.client!);
          if (u.generation !== generation || u.state !== 'ready') return;
          u.tools = tools;
          this.log(`${u.config.name}: tool list changed, ${tools.length} tools`);
          this.emit(u.config.name);
        } catch (err) {
          this.log(`${u.config.name}: re-listing tools failed: ${(err as Error).message}`);
          return;
        }
      } while (u.relistAgain);
    })().finally(() => {
      u.relisting = undefined;
    });
    return u.relisting;
  }

  // --- calls, crashes, restarts ---------------------------------------------

  /** Finds the upstream of a qualified name: by known tool first, else by the longest `server__` prefix. */
  private route(qualifiedName: string): Upstream {
    const byTool = this.upstreams.find((u) => u.tools.some((t) => t.qualifiedName === qualifiedName));
    if (byTool) return byTool;
    const byPrefix = this.upstreams
      .filter((u) => qualifiedName.startsWith(`${u.config.name}__`))
      .sort((a, b) => b.config.name.length - a.config.name.length)[0];
    if (!byPrefix) {
      const known = this.upstreams.map((u) => u.config.name).join(', ') || '(none)';
      throw new AdapterError(
        'UNKNOWN_TOOL',
        `unknown tool "${qualifiedName}": names are "<server>__<tool>", servers: ${known}`,
        { tool: qualifiedName },
      );
    }
    return byPrefix;
  }

  private unknownTool(qualifiedName: string, u: Upstream): AdapterError {
    return new AdapterError('UNKNOWN_TOOL', `upstream "${u.config.name}" has no tool "${qualifiedName}"`, {
      tool: qualifiedName,
      upstream: u.config.name,
    });
  }

  /** Makes sure the upstream can take a call, restarting it if it is down and its backoff has passed. */
  private async ensureReady(u: Upstream, qualifiedName: string): Promise<void> {
    const name = u.config.name;
    if (u.state === 'ready') return;
    if (u.state === 'disabled') {
      throw this.down(u, qualifiedName, `upstream "${name}" is disabled in the config`);
    }
    if (u.state === 'crashed' || u.state === 'failed') {
      if (u.failures > this.maxRestarts) {
        throw this.down(
          u,
          qualifiedName,
          `upstream "${name}" is down (${u.error}); gave up after ${u.restarts} restarts`,
        );
      }
      const waitMs = u.downAt + this.backoffDelay(u.failures) - Date.now();
      if (waitMs > 0) {
        throw this.down(
          u,
          qualifiedName,
          `upstream "${name}" is down (${u.error}); next restart in ${Math.ceil(waitMs / 1000)} s`,
        );
      }
      u.restarts++;
      u.state = 'restarting';
      this.log(`${name}: restarting (attempt ${u.restarts})`);
      await this.disconnect(u);
    }
    await this.connect(u);
    // connect() changed the state; TS still narrows it to the pre-await value.
    if ((u.state as UpstreamState) !== 'ready') {
      throw this.down(u, qualifiedName, `upstream "${name}" is down (${u.error})`);
    }
  }

  /** No wait for the first restart after a crash; then backoffMs, doubling, capped. */
  private backoffDelay(failures: number): number {
    if (failures <= 1) return 0;
    return Math.min(this.backoffMs * 2 ** (failures - 2), MAX_BACKOFF_MS);
  }

  private down(u: Upstream, tool: string, message: string): AdapterError {
    return new AdapterError('UPSTREAM_DOWN', this.redact(message), {
      upstream: u.config.name,
      tool,
      state: u.state,
    });
  }

  private callError(
    err: unknown,
    u: Upstream,
    generation: number,
    tool: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): AdapterError {
    const name = u.config.name;
    const details = { upstream: name, tool };
    if (signal?.aborted) {
      return new AdapterError('UPSTREAM_ERROR', `call to "${tool}" was cancelled`, {
        ...details,
        cancelled: true,
      });
    }
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      const hung =
        u.state !== 'ready' ? `; upstream "${name}" is not responding and will be restarted on next use` : '';
      return new AdapterError('UPSTREAM_TIMEOUT', `"${tool}" did not answer within ${timeoutMs} ms${hung}`, {
        ...details,
        timeoutMs,
      });
    }
    if (err instanceof McpError && err.code !== ErrorCode.ConnectionClosed) {
      return new AdapterError(
        'UPSTREAM_ERROR',
        this.redact(`upstream "${name}" refused "${tool}": ${err.message}`),
        {
          ...details,
          rpcCode: err.code,
        },
      );
    }
    // The connection itself failed: the process died or the HTTP server is unreachable.
    if (u.generation === generation && u.state === 'ready') {
      this.markDown(u, 'crashed', `connection lost: ${(err as Error).message}${this.stderrHint(u)}`);
    }
    return this.down(
      u,
      tool,
      `upstream "${name}" went down during "${tool}" (${u.error ?? (err as Error).message})`,
    );
  }

  /**
   * A timed-out call may be one slow tool or a hung server. A ping tells them
   * apart: a server that does not answer it is marked down (and stopped), so the
   * overview shows it and its next use restarts it.
   */
  private async probe(u: Upstream, client: Client, generation: number): Promise<void> {
    try {
      await client.ping({ timeout: PROBE_TIMEOUT_MS });
    } catch {
      if (u.generation === generation && u.state === 'ready') {
        this.markDown(
          u,
          'crashed',
          `not responding: a call timed out and a ping got no answer within ${PROBE_TIMEOUT_MS} ms`,
        );
      }
    }
  }

  private markDown(u: Upstream, state: 'crashed' | 'failed', reason: string): void {
    u.state = state;
    u.error = this.redact(reason);
    u.failures++;
    u.downAt = Date.now();
    this.log(`${u.config.name}: ${state}: ${u.error}`);
    // A dead stdio child is already gone; this releases the client and any half-open HTTP session.
    void this.disconnect(u);
  }

  private async disconnect(u: Upstream): Promise<void> {
    const { client, transport } = u;
    u.client = undefined;
    u.transport = undefined;
    if (!client) return;
    u.generation++;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId && u.state === 'ready') {
      // Free the session on the server; a server that is gone or slow must not hold up shutdown.
      await Promise.race([transport.terminateSession().catch(() => {}), sleep(1000)]);
    }
    await client.close().catch(() => {});
  }

  // --- helpers --------------------------------------------------------------

  private stderrHint(u: Upstream): string {
    const last = u.stderrTail.at(-1);
    return last ? ` (stderr: ${last.slice(0, 300)})` : '';
  }

  private emit(upstream: string): void {
    for (const listener of this.listeners) {
      try {
        listener(upstream);
      } catch (err) {
        this.log(`onToolsChanged listener failed: ${(err as Error).message}`);
      }
    }
  }

  private redact(text: string): string {
    return redactSecrets(text, this.configs);
  }

  private log(line: string): void {
    this.writeLog(this.redact(line));
  }
}

/** Says why a start failed in the words of the failure, not of the SDK's plumbing. */
function startFailure(err: unknown): string {
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed)
    return 'the process exited during startup';
  if (err instanceof StreamableHTTPError && err.code !== undefined) return `HTTP ${err.code}: ${err.message}`;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'EACCES') return `cannot run the command (${code})`;
  // fetch() hides the network reason (ECONNREFUSED, ENOTFOUND) in `cause`.
  const cause = ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code;
  return cause ? `${(err as Error).message} (${cause})` : (err as Error).message;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
