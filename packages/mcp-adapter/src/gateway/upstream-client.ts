/**
 * Everything the gateway knows about the MCP client SDK (v2,
 * `@modelcontextprotocol/client`), in one place: how one connection to an
 * upstream is opened (stdio child or Streamable HTTP), which protocol era it
 * speaks, how requests go out, how tool-list changes come in, and what the
 * SDK's errors mean. The rest of the gateway sees only `UpstreamConnection`
 * and `UpstreamFailure`.
 *
 * Era: every connection starts with the SDK's `versionNegotiation: 'auto'`,
 * which probes with `server/discover` and falls back to the 2025 `initialize`
 * handshake when the server does not speak 2026-07-28 (on stdio the probe runs
 * on a short-lived sibling process, so a server that dies on an unknown
 * request is simply legacy). A reconnect (restart after a crash) reuses the
 * verdict of the last successful connect instead of probing again: same
 * command, same server, and one spawn instead of two while it is failing.
 *
 * Requests use loose result schemas on purpose: the gateway passes tool
 * definitions and results on exactly as the upstream sent them, so the SDK's
 * own `listTools`/`callTool` (which validate, filter and cache) are not used.
 */
import {
  Client,
  type PriorDiscovery,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import { IMPLEMENTATION, LISTEN_RETRY, PROBE_TIMEOUT_MS, TERMINATE_SESSION_WAIT_MS } from '../defaults.js';
import type { UpstreamConfig } from './config.js';

/** Which revision family a connection speaks: 2026-07-28 (`modern`) or a 2025 one (`legacy`). */
export type UpstreamEra = 'modern' | 'legacy';

/** Loose schemas: tools and results are passed on exactly as received, unknown fields included. */
const ToolsPageSchema = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string() })),
  nextCursor: z.string().optional(),
});
const AnyResultSchema = z.looseObject({});

export type ToolsPage = z.infer<typeof ToolsPageSchema>;

export interface ConnectionEvents {
  /** The connection closed without close() being called (a crash, a dropped HTTP server). */
  onClose(): void;
  onError(message: string): void;
  /** The upstream said its tool list changed (2025: unsolicited; 2026-07-28: on our listen stream). */
  onToolsChanged(): void;
  /** One line of a stdio child's stderr. */
  onStderrLine(line: string): void;
}

/**
 * One connection to one upstream. Create it, `open()` it once, use it, `close()`
 * it; a reconnect is a new connection (with the previous one's `verdict`).
 */
export class UpstreamConnection {
  private readonly client: Client;
  private readonly transport: StdioClientTransport | StreamableHTTPClientTransport;
  private subscription?: { close(): Promise<void> };
  /** Tool-list streams dropped in a row soon after opening (drives the re-listen wait). */
  private quickDrops = 0;
  private closed = false;

  constructor(
    config: UpstreamConfig,
    private readonly events: ConnectionEvents,
  ) {
    this.client = new Client({ ...IMPLEMENTATION }, { capabilities: {} });
    this.transport = createTransport(config, events.onStderrLine);
    this.client.onerror = (err) => {
      if (!this.closed) events.onError(err.message);
    };
    this.client.onclose = () => {
      if (!this.closed) events.onClose();
    };
    this.client.setNotificationHandler('notifications/tools/list_changed', () => {
      if (!this.closed) events.onToolsChanged();
    });
  }

  /**
   * Connects (probing the era unless `prior` says which it is), then, on a
   * 2026-07-28 connection whose server offers tool-list changes, opens the
   * `subscriptions/listen` stream that carries them (that revision sends no
   * unsolicited notifications).
   */
  async open(timeoutMs: number, prior?: PriorDiscovery): Promise<void> {
    this.client.setVersionNegotiation({
      mode: 'auto',
      probe: { timeoutMs: Math.min(PROBE_TIMEOUT_MS, timeoutMs) },
    });
    await this.client.connect(this.transport, { timeout: timeoutMs, ...(prior ? { prior } : {}) });
    if (this.era === 'modern' && this.client.getServerCapabilities()?.tools?.listChanged) {
      // Without the stream the tools still work; only their changes go unnoticed.
      await this.listen(timeoutMs).catch((err: unknown) =>
        this.events.onError(`cannot follow tool-list changes: ${(err as Error).message}`),
      );
    }
  }

  /** What a reconnect may reuse instead of probing again. */
  get verdict(): PriorDiscovery | undefined {
    const discover = this.client.getDiscoverResult();
    if (this.era === 'modern' && discover) return { kind: 'modern', discover };
    return this.era === 'legacy' ? { kind: 'legacy' } : undefined;
  }

  get era(): UpstreamEra | undefined {
    return this.client.getProtocolEra();
  }

  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion();
  }

  get hasTools(): boolean {
    return Boolean(this.client.getServerCapabilities()?.tools);
  }

  /** The child process id of a running stdio upstream. */
  get pid(): number | undefined {
    return this.transport instanceof StdioClientTransport ? (this.transport.pid ?? undefined) : undefined;
  }

  listToolsPage(cursor: string | undefined, timeoutMs: number): Promise<ToolsPage> {
    return this.client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      ToolsPageSchema,
      { timeout: timeoutMs },
    );
  }

  callTool(
    name: string,
    args: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<Record<string, unknown>> {
    return this.client.request({ method: 'tools/call', params: { name, arguments: args } }, AnyResultSchema, {
      timeout: opts.timeoutMs,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }

  /**
   * Resolves when the server answers a request that does no work: `ping` in
   * 2025, `server/discover` in 2026-07-28 (which has no `ping`).
   */
  async ping(timeoutMs: number): Promise<void> {
    if (this.era === 'modern') await this.client.discover({ timeout: timeoutMs });
    else await this.client.ping({ timeout: timeoutMs });
  }

  /**
   * Closes the connection; a 2025-era HTTP session is ended on the server first
   * (within `terminateMs`: a server that is gone or slow must not hold up shutdown).
   */
  async close(terminateMs = TERMINATE_SESSION_WAIT_MS): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.subscription?.close().catch(() => {});
    const { transport } = this;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      await Promise.race([transport.terminateSession().catch(() => {}), sleep(terminateMs)]);
    }
    await this.client.close().catch(() => {});
  }

  /** Opens the tool-list stream; re-opens it when the server drops it while we still want it. */
  private async listen(timeoutMs: number): Promise<void> {
    const subscription = await this.client.listen({ toolsListChanged: true }, { timeout: timeoutMs });
    this.subscription = subscription;
    const opened = Date.now();
    void subscription.closed.then((how) => {
      if (how !== 'remote' || this.closed) return;
      if (Date.now() - opened >= LISTEN_RETRY.stableMs) this.quickDrops = 0;
      void this.relisten(timeoutMs);
    });
  }

  /**
   * Re-opens a dropped stream until it is back or the connection is closed, waiting longer
   * after each quick drop or failed attempt (a server that is restarting, or one that ends
   * every stream at once), then re-lists: a change may have been missed meanwhile.
   */
  private async relisten(timeoutMs: number): Promise<void> {
    let reported = false;
    while (!this.closed) {
      if (this.quickDrops > 0)
        await sleep(Math.min(LISTEN_RETRY.retryMs * 2 ** (this.quickDrops - 1), LISTEN_RETRY.retryMaxMs));
      this.quickDrops++;
      if (this.closed) return;
      try {
        await this.listen(timeoutMs);
        this.events.onToolsChanged();
        return;
      } catch (err) {
        if (!reported && !this.closed)
          this.events.onError(`tool-list stream lost: ${(err as Error).message}`);
        reported = true;
      }
    }
  }
}

function createTransport(
  config: UpstreamConfig,
  onStderrLine: (line: string) => void,
): StdioClientTransport | StreamableHTTPClientTransport {
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
  // The child's stderr is split into lines for the log, never passed through to our stdout.
  let partial = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split(/\r?\n/);
    partial = lines.pop() ?? '';
    for (const line of lines) onStderrLine(line);
  });
  transport.stderr?.on('end', () => {
    if (partial) onStderrLine(partial);
    partial = '';
  });
  return transport;
}

/** What went wrong with a request, in the gateway's terms rather than the SDK's classes. */
export type UpstreamFailure =
  | { kind: 'timeout' }
  | { kind: 'closed' }
  /** The upstream answered with a JSON-RPC error. */
  | { kind: 'refused'; rpcCode: number; message: string }
  | { kind: 'http'; status: number; message: string }
  | { kind: 'other'; message: string };

export function classifyFailure(err: unknown): UpstreamFailure {
  if (err instanceof SdkHttpError) return { kind: 'http', status: err.status, message: err.message };
  if (err instanceof SdkError) {
    if (err.code === SdkErrorCode.RequestTimeout) return { kind: 'timeout' };
    if (err.code === SdkErrorCode.ConnectionClosed || err.code === SdkErrorCode.NotConnected)
      return { kind: 'closed' };
    return { kind: 'other', message: err.message };
  }
  if (err instanceof ProtocolError) return { kind: 'refused', rpcCode: err.code, message: err.message };
  return { kind: 'other', message: err instanceof Error ? err.message : String(err) };
}

/** Says why a start failed in the words of the failure, not of the SDK's plumbing. */
export function startFailure(err: unknown): string {
  const failure = classifyFailure(err);
  if (failure.kind === 'closed') return 'the process exited during startup';
  if (failure.kind === 'http') return `HTTP ${failure.status}: ${failure.message}`;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'EACCES') return `cannot run the command (${code})`;
  // fetch() hides the network reason (ECONNREFUSED, ENOTFOUND) in `cause`, sometimes one level down.
  const cause = (err as Error).cause as
    | (NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException })
    | undefined;
  const reason = cause?.code ?? cause?.cause?.code;
  return reason ? `${(err as Error).message} (${reason})` : (err as Error).message;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
