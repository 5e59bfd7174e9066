/**
 * One upstream MCP server: its connection (upstream-client.ts), its tools, and
 * its state as status() reports it. Connecting spawns or dials it, lists its
 * tools and re-lists them on list_changed; a crash or failed start marks it
 * down and releases the connection, for the restart logic to pick up.
 *
 * Each connection gets a new generation: events of an earlier connection (a
 * late close, stderr, list_changed) are ignored.
 */
import { TERMINATE_SESSION_WAIT_MS, UPSTREAM_STDERR } from '../defaults.js';
import type { UpstreamConfig } from './config.js';
import { startFailure, UpstreamConnection, type UpstreamEra } from './upstream-client.js';
import { listAllTools, type UpstreamTool } from './upstream-tools.js';

export type UpstreamState = 'connecting' | 'ready' | 'failed' | 'crashed' | 'restarting' | 'disabled';

/** What an upstream needs from the collection that owns it. */
export interface UpstreamHost {
  /** Time allowed to spawn, initialize and list tools. */
  readonly startTimeoutMs: number;
  /** True once the collection is closed: late events then change nothing. */
  isClosed(): boolean;
  /** Writes one line as it is (already redacted). */
  writeLog(line: string): void;
  redact(text: string): string;
  /** Tells the onToolsChanged listeners that this upstream's tools changed. */
  emit(upstream: string): void;
}

export class Upstream {
  // The state below changes only through this class's methods (connect, markDown,
  // beginRestart, callSucceeded, disconnect); other modules read it through the getters.
  private _state: UpstreamState;
  private _tools: UpstreamTool[] = [];
  private _error?: string;
  private _restarts = 0;
  /** Crashes and failed starts since the last successful call; drives backoff and giving up. */
  private _failures = 0;
  private _downAt = 0;
  private _connection?: UpstreamConnection;
  /** The era the last successful connect found; a restart reuses it instead of probing again. */
  private verdict?: UpstreamConnection['verdict'];
  /** Bumped on every connect, so events of a previous connection are ignored. */
  private _generation = 0;
  private connecting?: Promise<void>;
  private relisting?: Promise<void>;
  private relistAgain = false;
  private stderrTail: string[] = [];

  constructor(
    readonly config: UpstreamConfig,
    private readonly host: UpstreamHost,
  ) {
    this._state = config.disabled ? 'disabled' : 'connecting';
  }

  get state(): UpstreamState {
    return this._state;
  }
  get tools(): readonly UpstreamTool[] {
    return this._tools;
  }
  get error(): string | undefined {
    return this._error;
  }
  get restarts(): number {
    return this._restarts;
  }
  get failures(): number {
    return this._failures;
  }
  /** When it last went down (ms since the epoch); the restart backoff counts from here. */
  get downAt(): number {
    return this._downAt;
  }
  get connection(): UpstreamConnection | undefined {
    return this._connection;
  }
  /** The protocol era of the current connection (undefined until connected). */
  get era(): UpstreamEra | undefined {
    return this._connection?.era;
  }
  get generation(): number {
    return this._generation;
  }

  /** True while the connection of `generation` is the current one and ready. */
  isReady(generation: number): boolean {
    return this._generation === generation && this._state === 'ready';
  }

  /** A call went through: the upstream is healthy again, so backoff starts over. */
  callSucceeded(): void {
    this._failures = 0;
  }

  /** Starts a restart attempt: counts it, says so, and drops the old connection. */
  async beginRestart(): Promise<void> {
    this._restarts++;
    this._state = 'restarting';
    this.log(`${this.config.name}: restarting (attempt ${this._restarts})`);
    await this.disconnect();
  }

  /** Connects (or joins the connect in progress). Never rejects: a failure marks the upstream down. */
  connect(): Promise<void> {
    this.connecting ??= this.doConnect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  markDown(state: 'crashed' | 'failed', reason: string): void {
    this._state = state;
    this._error = this.redact(reason);
    this._failures++;
    this._downAt = Date.now();
    this.log(`${this.config.name}: ${state}: ${this._error}`);
    // A dead stdio child is already gone; this releases the client and any half-open HTTP session.
    void this.disconnect();
  }

  async disconnect(): Promise<void> {
    const connection = this._connection;
    this._connection = undefined;
    if (!connection) return;
    this._generation++;
    // A ready HTTP upstream's session is ended on the server; a dead one is not waited for.
    await connection.close(this._state === 'ready' ? TERMINATE_SESSION_WAIT_MS : 0);
  }

  /** The last stderr line, as a suffix for an error message. */
  stderrHint(): string {
    const last = this.stderrTail.at(-1);
    return last ? ` (stderr: ${last.slice(0, 300)})` : '';
  }

  redact(text: string): string {
    return this.host.redact(text);
  }

  log(line: string): void {
    this.host.writeLog(this.redact(line));
  }

  private async doConnect(): Promise<void> {
    const generation = ++this._generation;
    const name = this.config.name;
    this.stderrTail = [];
    this.relistAgain = false;
    const connection = new UpstreamConnection(this.config, {
      onStderrLine: (line) => this.stderrLine(generation, line),
      onError: (message) => {
        if (this._generation === generation) this.log(`${name}: ${message}`);
      },
      onClose: () => {
        if (this._generation === generation && this._state === 'ready' && !this.host.isClosed()) {
          this.markDown('crashed', `exited unexpectedly${this.stderrHint()}`);
        }
      },
      onToolsChanged: () => {
        if (this._generation !== generation) return;
        // Mid-start, the listing in progress may already be stale: list once more when ready.
        if (this._state === 'ready') void this.relist(generation);
        else this.relistAgain = true;
      },
    });
    this._connection = connection;

    const { startTimeoutMs } = this.host;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`did not finish starting within ${startTimeoutMs} ms`)),
        startTimeoutMs,
      );
    });
    try {
      const tools = await Promise.race([
        connection.open(startTimeoutMs, this.verdict).then(() => this.listTools(connection)),
        timeout,
      ]);
      if (this._generation !== generation || this.host.isClosed()) return;
      this._tools = tools;
      this._state = 'ready';
      this._error = undefined;
      this.verdict = connection.verdict;
      this.log(`${name}: ready, ${tools.length} tools (protocol ${connection.protocolVersion ?? 'unknown'})`);
      this.host.emit(name);
      if (this.relistAgain) void this.relist(generation);
    } catch (err) {
      if (this._generation !== generation || this.host.isClosed()) return;
      // Let the last stderr lines of a process that died on startup arrive first.
      await sleep(20);
      this.markDown('failed', `failed to start: ${startFailure(err)}${this.stderrHint()}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private stderrLine(generation: number, line: string): void {
    if (line.trim() === '' || this._generation !== generation) return;
    const clean = this.redact(
      line.length > UPSTREAM_STDERR.maxLineChars ? `${line.slice(0, UPSTREAM_STDERR.maxLineChars)}...` : line,
    );
    this.stderrTail.push(clean);
    if (this.stderrTail.length > UPSTREAM_STDERR.tailLines) this.stderrTail.shift();
    this.host.writeLog(`[${this.config.name}] ${clean}`);
  }

  private listTools(connection: UpstreamConnection): Promise<UpstreamTool[]> {
    return listAllTools(this.config.name, connection, this.host.startTimeoutMs, (line) => this.log(line));
  }

  /** Re-lists after list_changed; notifications that arrive mid-listing cause one more pass. */
  private relist(generation: number): Promise<void> {
    if (this.relisting) {
      this.relistAgain = true;
      return this.relisting;
    }
    this.relisting = (async () => {
      do {
        this.relistAgain = false;
        try {
          const connection = this._connection;
          if (!connection || this._generation !== generation) return;
          const tools = await this.listTools(connection);
          if (this._generation !== generation || this._state !== 'ready') return;
          this._tools = tools;
          this.log(`${this.config.name}: tool list changed, ${tools.length} tools`);
          this.host.emit(this.config.name);
        } catch (err) {
          this.log(`${this.config.name}: re-listing tools failed: ${(err as Error).message}`);
          return;
        }
      } while (this.relistAgain);
    })().finally(() => {
      this.relisting = undefined;
    });
    return this.relisting;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
