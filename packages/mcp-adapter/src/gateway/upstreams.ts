/**
 * Connections to the gateway's upstream MCP servers: one SDK client connection
 * per configured server, over stdio (a child process) or Streamable HTTP,
 * speaking 2026-07-28 to servers that do and a 2025 revision to the others.
 *
 * Each upstream fails alone. One that does not start, hangs or crashes is
 * recorded in status() while the others keep answering; a crashed one is
 * restarted on its next use, with exponential backoff between failed attempts.
 * Everything reported (errors, logs) is redacted of the configs' secrets, and
 * upstream stderr is piped to `log`, never to our stdout (which, for a stdio
 * gateway, carries protocol messages only).
 *
 * This module is the collection the gateway uses; one upstream's connection is
 * in upstream.ts, its restarts and health in upstream-health.ts, call
 * forwarding in upstream-calls.ts.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  ADAPTER_DEFAULTS,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_START_TIMEOUT_MS,
  stderrLog,
  UPSTREAM_RESTARTS,
} from '../defaults.js';
import { AdapterError } from '../errors.js';
import type { UpstreamConfig } from './config.js';
import { credentialValues, redactJson, redactSecrets } from './redact.js';
import { Upstream, type UpstreamHost, type UpstreamState } from './upstream.js';
import { callTool } from './upstream-calls.js';
import { ensureReady, type RestartPolicy } from './upstream-health.js';
import type { UpstreamTool } from './upstream-tools.js';

export type { UpstreamState } from './upstream.js';
export type { UpstreamTool } from './upstream-tools.js';

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
  /** The protocol revision a ready upstream speaks with us (2026-07-28, or the 2025 one it negotiated). */
  protocol?: string | undefined;
}

export interface UpstreamManagerOptions {
  /** Default timeout of call(); default 60 s. */
  callTimeoutMs?: number;
  /** Time allowed to spawn, initialize and list tools; default 30 s. */
  startTimeoutMs?: number;
  /** Receives one redacted line per event or upstream stderr line; default: our stderr. */
  log?: (line: string) => void;
  /** Consecutive failures (crash or failed start) after which restarts stop; default UPSTREAM_RESTARTS (defaults.ts). */
  maxRestarts?: number;
  /** Wait before the second restart attempt, doubled for each further one; default UPSTREAM_RESTARTS. */
  backoffMs?: number;
  /**
   * Replace the configs' credentials (redact.ts credentialValues) by "***" in tool
   * definitions and call results too; default ADAPTER_DEFAULTS.redactSecrets (true).
   */
  redactResults?: boolean;
}

export class UpstreamManager {
  private readonly upstreams: Upstream[];
  private readonly listeners = new Set<(upstream: string) => void>();
  private readonly callTimeoutMs: number;
  private readonly restartPolicy: RestartPolicy;
  private readonly writeLog: (line: string) => void;
  /** What definitions and results are redacted of; empty when redactResults is off. */
  private readonly credentials: string[];
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
    this.callTimeoutMs = opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.restartPolicy = {
      maxRestarts: opts.maxRestarts ?? UPSTREAM_RESTARTS.maxRestarts,
      backoffMs: opts.backoffMs ?? UPSTREAM_RESTARTS.backoffMs,
    };
    this.writeLog = opts.log ?? stderrLog;
    this.credentials =
      (opts.redactResults ?? ADAPTER_DEFAULTS.redactSecrets) ? credentialValues(configs) : [];
    const host: UpstreamHost = {
      startTimeoutMs: opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      isClosed: () => this.closed,
      writeLog: (line) => this.writeLog(line),
      redact: (text) => this.redact(text),
      emit: (upstream) => this.emit(upstream),
    };
    this.upstreams = configs.map((config) => new Upstream(config, host));
  }

  /** Connects every enabled upstream in parallel. Never rejects: failures land in status(). */
  async start(): Promise<void> {
    await Promise.all(this.upstreams.filter((u) => u.state === 'connecting').map((u) => u.connect()));
  }

  /**
   * Tools of every upstream in config order, each in its upstream's order. A
   * crashed upstream keeps its last known tools, so they stay findable and a
   * call to one restarts it; status() says which upstreams are reachable.
   */
  tools(): UpstreamTool[] {
    return this.upstreams.flatMap((u) =>
      u.state === 'disabled'
        ? []
        : u.tools.map((t) => ({ ...t, definition: redactJson(t.definition, this.credentials) })),
    );
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
      const pid = u.connection?.pid;
      if (pid !== undefined && u.state === 'ready') status.pid = pid;
      if (u.era && u.state === 'ready') status.protocol = u.connection?.protocolVersion;
      return status;
    });
  }

  /** Calls `server__tool` on its upstream and returns its result (including `isError`), credentials redacted (redactResults). */
  async call(
    qualifiedName: string,
    args: Record<string, unknown>,
    opts: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<CallToolResult> {
    if (this.closed) throw new AdapterError('UPSTREAM_DOWN', 'the gateway is shut down');
    const upstream = this.route(qualifiedName);
    await ensureReady(upstream, qualifiedName, this.restartPolicy);
    const result = await callTool(
      upstream,
      qualifiedName,
      args,
      opts.timeoutMs ?? this.callTimeoutMs,
      opts.signal,
    );
    return redactJson(result, this.credentials);
  }

  /**
   * Gives an upstream that is down and has no tools (it failed its first start, so none
   * were ever listed) the restart a call to one of its tools would give it, with the same
   * backoff and limit. `names` are toolset (server) names or `server__tool` names. True
   * when one came up (its tools are indexed by then: look the names up again); throws
   * UPSTREAM_DOWN naming the upstream when it is still down. False when no name belongs to
   * such an upstream: an unknown name is then just unknown.
   */
  async revive(names: readonly string[]): Promise<boolean> {
    if (this.closed) return false;
    const down = new Set<Upstream>();
    for (const name of names) {
      const u = this.ownerOf(name);
      if (u && u.state !== 'ready' && u.tools.length === 0) down.add(u);
    }
    for (const u of down) await ensureReady(u, u.config.name, this.restartPolicy);
    return down.size > 0;
  }

  /** Listens for tool list changes: an upstream's list_changed (re-listed), a (re)start. Returns unsubscribe. */
  onToolsChanged(listener: (upstream: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Closes every connection and stops every child process. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.upstreams.map((u) => u.disconnect()));
  }

  /** The upstream a server name or a `server__tool` name belongs to (the longest matching prefix). */
  private ownerOf(name: string): Upstream | undefined {
    return this.upstreams
      .filter((u) => name === u.config.name || name.startsWith(`${u.config.name}__`))
      .sort((a, b) => b.config.name.length - a.config.name.length)[0];
  }

  /** Finds the upstream of a qualified name: by known tool first, else by the longest `server__` prefix. */
  private route(qualifiedName: string): Upstream {
    const byTool = this.upstreams.find((u) => u.tools.some((t) => t.qualifiedName === qualifiedName));
    if (byTool) return byTool;
    const byPrefix = qualifiedName.includes('__') ? this.ownerOf(qualifiedName) : undefined;
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
