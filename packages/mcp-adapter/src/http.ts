/**
 * Streamable HTTP hosting of both protocol eras on one endpoint. A 2026-07-28
 * request (it carries the per-request `_meta` envelope) goes to the SDK's
 * stateless handler, which builds a server for that request alone; nothing
 * about it stays in this process. A 2025-era client gets, as before, one MCP
 * server (and so one isolated session state) per `Mcp-Session-Id`. Binds 127.0.0.1 by default; checks Host and Origin
 * against the bound address so a web page cannot reach a local gateway by DNS
 * rebinding; a bearer token is optional on loopback and required elsewhere.
 *
 * A session no request has touched for `sessionIdleTimeoutMs` is closed and
 * forgotten; its id then gets 404, which tells the client to initialize again
 * (Streamable HTTP spec, session management).
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type Transport,
} from '@modelcontextprotocol/server';
import {
  ADAPTER_DEFAULTS,
  checkSetting,
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  MAX_HTTP_BODY_BYTES,
  stderrLog,
} from './defaults.js';
import { AdapterError } from './errors.js';
import { isV2Serving } from './library/sdk-internals.js';

/** What an MCP server needs to be hosted: SDK `Server` and `McpServer` both fit. */
export interface ConnectableServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/** Which kind of client a server is built for: the SDK's serving entries say. */
export interface ServeContext {
  era?: 'legacy' | 'modern';
  /**
   * The server is the one instance of a whole connection (stdio), not of one
   * HTTP request: a 2026-07-28 one then sends its own list_changed, which the
   * SDK routes to the connection's subscriptions/listen streams.
   */
  pinned?: boolean;
}

export interface HttpOptions {
  /**
   * Builds the server of a new 2025-era session, or of one 2026-07-28
   * request (which needs an SDK v2 server: `@modelcontextprotocol/server`).
   */
  createServer: (context: ServeContext) => ConnectableServer | Promise<ConnectableServer>;
  /** Default 127.0.0.1. Anything not loopback requires `token`. */
  host?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Bearer token clients must send (Authorization: Bearer <token>). */
  token?: string;
  /** Endpoint path. Default /mcp. */
  path?: string;
  /** Extra Host header names to accept (e.g. a reverse proxy's public name). */
  allowedHosts?: string[];
  /**
   * Close a session after this long without a request (a POST in progress,
   * such as a slow tool call, keeps it open; an open GET stream does not).
   * Default 30 minutes. Positive, at most 2147483647 (Node's timer limit).
   */
  sessionIdleTimeoutMs?: number;
  /** Cap on open sessions; an initialize over it gets HTTP 503. Default ADAPTER_DEFAULTS.maxSessions (256). */
  maxSessions?: number;
  /**
   * Subscribes to changes of the tool list 2026-07-28 clients get (e.g. Gateway's
   * onToolListChanged); each one goes out as notifications/tools/list_changed on
   * every open subscriptions/listen stream that asked for tool-list changes.
   * Returns unsubscribe. 2025-era sessions are told by their own servers.
   */
  onToolListChanged?: (listener: () => void) => () => void;
  log?: (line: string) => void;
}

export interface HttpHandle {
  /** The endpoint URL, e.g. http://127.0.0.1:3000/mcp. */
  readonly url: string;
  readonly port: number;
  /** Open sessions. */
  sessionCount(): number;
  /** Armed idle timers (diagnostics; 0 once closed). */
  idleTimerCount(): number;
  /** The armed idle timers themselves (diagnostics: lets a caller check they are unref-ed). */
  idleTimers(): NodeJS.Timeout[];
  close(): Promise<void>;
}

interface HostedSession {
  transport: NodeStreamableHTTPServerTransport;
  server: ConnectableServer;
  /** Requests (other than GET streams) still being answered. */
  busy: number;
  timer: NodeJS.Timeout | undefined;
  closed: boolean;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export async function serveHttp(options: HttpOptions): Promise<HttpHandle> {
  const host = options.host ?? DEFAULT_HTTP_HOST;
  const path = options.path ?? '/mcp';
  const log = options.log ?? stderrLog;
  const idleMs = checkSetting(
    'sessionIdleTimeoutMs',
    options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  );
  const maxSessions = checkSetting('maxSessions', options.maxSessions ?? ADAPTER_DEFAULTS.maxSessions);
  const loopback = isLoopback(host);
  if (!loopback && !options.token)
    throw new AdapterError(
      'INVALID_CONFIG',
      `--host ${host} is not loopback: a bearer token (--token) is required`,
    );
  const wildcard = host === '0.0.0.0' || host === '::';
  const allowedHosts = new Set([
    ...(loopback ? LOOPBACK_NAMES : [host.includes(':') ? `[${host}]` : host]),
    ...(options.allowedHosts ?? []),
  ]);
  // 2026-07-28 requests: the SDK's stateless entry, which refuses 2025-era traffic
  // (that is routed to the sessions below before it gets there).
  const modern = createMcpHandler(
    async ({ era }) => {
      const server = await options.createServer({ era });
      if (!isV2Serving(server))
        throw new AdapterError(
          'INVALID_CONFIG',
          'serveHttp: a 2026-07-28 request needs createServer to return an SDK v2 server (@modelcontextprotocol/server)',
        );
      return server;
    },
    {
      legacy: 'reject',
      maxRequestBodySize: MAX_HTTP_BODY_BYTES,
      onerror: (error) => log(`toolsearch-mcp: HTTP (2026-07-28): ${error.message}`),
    },
  );
  const serveModern = toNodeHandler(modern);
  const unsubscribe = options.onToolListChanged?.(() => modern.notify.toolsChanged());
  const sessions = new Map<string, HostedSession>();
  /** Initialize requests between the cap check and their session's registration. */
  let initializing = 0;
  let idleTimers = 0;
  let closing = false;

  const disarm = (session: HostedSession): void => {
    if (session.timer === undefined) return;
    clearTimeout(session.timer);
    session.timer = undefined;
    idleTimers--;
  };
  const arm = (session: HostedSession): void => {
    disarm(session);
    const id = session.transport.sessionId;
    if (session.closed || closing || session.busy > 0 || !id || sessions.get(id) !== session) return;
    idleTimers++;
    session.timer = setTimeout(() => {
      session.timer = undefined;
      idleTimers--;
      // The id lets anyone past the token act as the session: log only its start.
      log(`toolsearch-mcp: session ${id.slice(0, 8)}… idle for ${idleMs} ms: closed`);
      session.transport.close().catch(() => {});
    }, idleMs);
    session.timer.unref(); // an idle session must not keep the process alive
  };
  /** A request reached the session: restart its idle clock once the request is answered. */
  const touch = (session: HostedSession, req: IncomingMessage, res: ServerResponse): void => {
    disarm(session);
    // A GET is the long-lived server-to-client stream: it does not count as activity.
    if (req.method === 'GET') {
      arm(session);
      return;
    }
    session.busy++;
    res.once('close', () => {
      session.busy--;
      arm(session);
    });
  };

  const hostAllowed = (value: string | undefined): boolean => {
    if (!value) return false;
    // A wildcard bind cannot know its public names; the required token protects it instead.
    if (wildcard && !options.allowedHosts?.length) return true;
    try {
      return allowedHosts.has(new URL(`http://${value}`).hostname);
    } catch {
      return false;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hostAllowed(req.headers.host))
      return reply(res, 403, `Host not allowed: ${req.headers.host ?? '(none)'}`);
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin, hostAllowed))
      return reply(res, 403, `Origin not allowed: ${origin}`);
    if (options.token && !bearerMatches(req.headers.authorization, options.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return reply(res, 401, 'Missing or wrong bearer token');
    }
    if (new URL(req.url ?? '/', 'http://x').pathname !== path)
      return reply(res, 404, `Not found; the endpoint is ${path}`);

    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return reply(res, 404, 'Session not found (expired or closed): initialize again');
      touch(session, req, res);
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') return reply(res, 400, 'No Mcp-Session-Id: send an initialize request first');
    const body = await readJson(req);
    if (!(await isLegacyRequest(await toWebRequest(req, body), body))) return serveModern(req, res, body);
    if (!isInitializeRequest(body))
      return reply(res, 400, 'No Mcp-Session-Id: send an initialize request first');
    // Initializes still being handled count too, or a burst of them could overshoot the cap.
    if (sessions.size + initializing >= maxSessions)
      return reply(res, 503, `too many open sessions (maxSessions ${maxSessions}): retry later`);
    // Counted from here until its session is registered (or turned down), so a burst of
    // initializes cannot overshoot the cap while each is still being handled.
    initializing++;
    let pending = true;
    const settle = () => {
      if (pending) initializing--;
      pending = false;
    };
    let server: ConnectableServer;
    try {
      server = await options.createServer({ era: 'legacy' });
    } catch (error) {
      settle();
      throw error;
    }
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, session);
        settle();
      },
    });
    const session: HostedSession = { transport, server, busy: 0, timer: undefined, closed: false };
    transport.onclose = () => {
      // server.close() closes the transport again: run once.
      if (session.closed) return;
      session.closed = true;
      disarm(session);
      if (transport.sessionId && sessions.get(transport.sessionId) === session)
        sessions.delete(transport.sessionId);
      server.close().catch(() => {});
    };
    try {
      await server.connect(transport);
      touch(session, req, res);
      await transport.handleRequest(req, res, body);
    } finally {
      settle();
      // An initialize the transport turned down (wrong Accept header, bad params) registers
      // no session, so no request can ever reach this pair again: close it now.
      const id = transport.sessionId;
      if (!session.closed && (id === undefined || sessions.get(id) !== session))
        await transport.close().catch(() => {});
    }
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const bad = err instanceof BodyError;
      if (!bad)
        log(
          `toolsearch-mcp: HTTP ${req.method} ${req.url}: ${err instanceof Error ? err.message : String(err)}`,
        );
      if (!res.headersSent) reply(res, bad ? 400 : 500, bad ? err.message : 'Internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? DEFAULT_HTTP_PORT, host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${path}`,
    port,
    sessionCount: () => sessions.size,
    idleTimerCount: () => idleTimers,
    idleTimers: () => [...sessions.values()].flatMap((s) => (s.timer === undefined ? [] : [s.timer])),
    close: async () => {
      closing = true;
      unsubscribe?.();
      await modern.close().catch(() => {});
      for (const session of [...sessions.values()]) {
        disarm(session);
        await session.transport.close().catch(() => {});
      }
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function originAllowed(origin: string, hostAllowed: (host: string) => boolean): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && hostAllowed(url.host);
  } catch {
    return false;
  }
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1].trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: `toolsearch-mcp: ${message}` },
      id: null,
    }),
  );
}

class BodyError extends Error {}

async function readJson(req: IncomingMessage): Promise<unknown> {
  // Decoded chunk by chunk as it arrives, not concatenated and decoded at the end: a 4 MB
  // body then costs no whole-body copy and no decode in the one step that blocks the
  // process (other sessions' requests wait behind it).
  const decoder = new StringDecoder('utf8');
  let text = '';
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_HTTP_BODY_BYTES) throw new BodyError(`request body over ${MAX_HTTP_BODY_BYTES} bytes`);
    text += decoder.write(chunk as Buffer);
  }
  text += decoder.end();
  // Deeper JSON than this is refused before anything walks it: validation and the SDK
  // recurse, and 200,000 nested brackets overflowed the stack (a 500, or a dropped socket).
  if (jsonDepth(text) > ADAPTER_DEFAULTS.maxJsonDepth)
    throw new BodyError(`request body nests deeper than ${ADAPTER_DEFAULTS.maxJsonDepth} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw new BodyError('request body is not JSON');
  }
}

/**
 * The deepest nesting of [ and { in a JSON text, outside strings, in one linear pass; or,
 * when the text holds at most `atLeast` brackets, their count (a bound that is enough to
 * compare: counting with indexOf is native and ten times faster on a 4 MB query).
 */
export function jsonDepth(text: string, atLeast = ADAPTER_DEFAULTS.maxJsonDepth): number {
  let brackets = 0;
  for (const open of ['[', '{']) {
    for (let at = text.indexOf(open); at !== -1 && brackets <= atLeast; at = text.indexOf(open, at + 1))
      brackets++;
  }
  if (brackets <= atLeast) return brackets;
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
