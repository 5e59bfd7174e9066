/**
 * Streamable HTTP session lifetime: idle sessions are closed and their ids get
 * 404 (the client must initialize again), active ones stay, DELETE ends one,
 * the optional session cap answers 503, and closing the server leaves no
 * session and no idle timer behind.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTER_DEFAULTS } from '../src/defaults.js';
import { type HttpHandle, type HttpOptions, serveHttp } from '../src/index.js';
import { expectAdapterError, waitFor } from './fixtures/servers.js';
import { INITIALIZE, rawRequest } from './http-helpers.js';

const handles: HttpHandle[] = [];
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const h of handles.splice(0)) await h.close();
});

interface Served {
  http: HttpHandle;
  /** Sessions whose MCP server was closed. */
  closed(): number;
  logs: string[];
  /** Releases of `hold` calls that reached the server and are waiting to be answered. */
  held: Array<() => void>;
}

/** A server whose sessions are held in createServer until release(): a burst then overlaps. */
async function gatedServe(options: Partial<HttpOptions>) {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered = 0;
  const http = await serveHttp({
    port: 0,
    log: () => {},
    ...options,
    createServer: async () => {
      entered++;
      await gate; // held until the whole burst has been answered or is waiting here
      return new McpServer({ name: 'burst', version: '1.0.0' });
    },
  });
  handles.push(http);
  return { http, entered: () => entered, release };
}

async function serve(options: Partial<HttpOptions> = {}): Promise<Served> {
  let closed = 0;
  const logs: string[] = [];
  const held: Array<() => void> = [];
  const http = await serveHttp({
    port: 0,
    log: (line) => logs.push(line),
    createServer: () => {
      const server = new McpServer({ name: 'sessions', version: '1.0.0' });
      // Answers once the test releases it: a request in progress for as long as the test wants.
      server.registerTool('hold', { description: 'Answer when released' }, async () => {
        await new Promise<void>((resolve) => held.push(resolve));
        return { content: [{ type: 'text', text: 'released' }] };
      });
      const close = server.close.bind(server);
      server.close = async () => {
        closed++;
        await close();
      };
      return server;
    },
    ...options,
  });
  handles.push(http);
  return { http, closed: () => closed, logs, held };
}

async function connect(url: string): Promise<{ client: Client; sessionId: string }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'sessions-test', version: '1.0.0' });
  client.onerror = () => {}; // the GET stream of an expired session fails; expected here
  await client.connect(transport);
  clients.push(client);
  if (!transport.sessionId) throw new Error('no session id');
  return { client, sessionId: transport.sessionId };
}

/** A raw request with a JSON body; resolves with the status, headers and body text. */
function raw(url: string, method: string, headers: Record<string, string>, body?: unknown) {
  return rawRequest(url, method, headers, body === undefined ? undefined : JSON.stringify(body));
}

const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const sessionHeaders = (id: string) => ({ 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': '2025-06-18' });

describe('HTTP session idle timeout', () => {
  it('closes a session idle past the timeout; its id then gets 404 and a new initialize works', async () => {
    const { http, closed, logs } = await serve({ sessionIdleTimeoutMs: 250 });
    // A single raw initialize: an SDK client's follow-up requests could race the short timer.
    const init = await raw(http.url, 'POST', {}, INITIALIZE);
    expect(init.status).toBe(200);
    const sessionId = init.headers['mcp-session-id'] as string;
    expect(sessionId).toBeTruthy();

    await waitFor(() => http.sessionCount() === 0, 5000, 'the idle session to close');
    expect(closed()).toBe(1);
    expect(http.idleTimerCount()).toBe(0);
    expect(logs.some((l) => l.includes(`session ${sessionId.slice(0, 8)}… idle for 250 ms: closed`))).toBe(
      true,
    );

    const stale = await raw(http.url, 'POST', sessionHeaders(sessionId), listTools);
    expect(stale.status).toBe(404);
    expect(JSON.parse(stale.body)).toMatchObject({ jsonrpc: '2.0', error: { message: /initialize again/ } });
    // The SDK client sees the 404 too (StreamableHTTPError.code is the HTTP status). A transport
    // given the session id resumes it without initializing.
    const resumed = new Client({ name: 'sessions-test', version: '1.0.0' });
    resumed.onerror = () => {};
    await resumed.connect(new StreamableHTTPClientTransport(new URL(http.url), { sessionId }));
    clients.push(resumed);
    await expect(resumed.listTools()).rejects.toMatchObject({ code: 404, message: /Session not found/ });

    // A raw initialize again: a client's follow-up request could lose the race with the
    // 250 ms timer on a loaded machine (it did) and see its new session closed.
    const again = await raw(http.url, 'POST', {}, INITIALIZE);
    expect(again.status).toBe(200);
    expect(again.headers['mcp-session-id']).toBeTruthy();
    expect(again.headers['mcp-session-id']).not.toBe(sessionId);
  });

  // Observed on the session's own idle timer, not on the clock: a loaded machine that
  // stalls between requests must not decide these.
  it('restarts the idle clock on every request: each answer arms a fresh timer', async () => {
    const { http, closed } = await serve({ sessionIdleTimeoutMs: 60_000 });
    const { client } = await connect(http.url);
    let previous: NodeJS.Timeout | undefined;
    for (let i = 0; i < 3; i++) {
      expect((await client.listTools()).tools).toHaveLength(1);
      await waitFor(
        () => http.idleTimerCount() === 1 && http.idleTimers()[0] !== previous,
        5000,
        'a fresh idle timer',
      );
      previous = http.idleTimers()[0];
    }
    expect(http.sessionCount()).toBe(1);
    expect(closed()).toBe(0);
  });

  it('arms no idle timer while a request of the session is still being answered', async () => {
    const { http, closed, held } = await serve({ sessionIdleTimeoutMs: 60_000 });
    const { client } = await connect(http.url);
    const call = client.callTool({ name: 'hold', arguments: {} });
    await waitFor(() => held.length === 1, 5000, 'the call to reach the tool');
    expect(http.idleTimerCount()).toBe(0);
    held[0]?.();
    expect((await call).content).toEqual([{ type: 'text', text: 'released' }]);
    await waitFor(() => http.idleTimerCount() === 1, 5000, 'the idle timer once answered');
    expect(http.sessionCount()).toBe(1);
    expect(closed()).toBe(0);
  });

  it('closing the server closes every session and clears every idle timer; timers are unref-ed', async () => {
    const { http, closed } = await serve({ sessionIdleTimeoutMs: 60_000 });
    const a = await connect(http.url);
    const b = await connect(http.url);
    await a.client.listTools();
    await b.client.listTools();
    await expect.poll(() => http.idleTimerCount()).toBe(2);
    // Armed idle timers do not keep the process alive: checked on the timers themselves.
    const timers = http.idleTimers();
    expect(timers).toHaveLength(2);
    expect(timers.map((t) => t.hasRef())).toEqual([false, false]);

    await http.close();
    expect(http.sessionCount()).toBe(0);
    expect(http.idleTimerCount()).toBe(0);
    expect(closed()).toBe(2);
  });

  it('honours DELETE: the session is closed and its id gets 404', async () => {
    const { http, closed } = await serve();
    const init = await raw(http.url, 'POST', {}, INITIALIZE);
    expect(init.status).toBe(200);
    const list = await connect(http.url);
    expect(http.sessionCount()).toBe(2);
    const deleted = await raw(http.url, 'DELETE', sessionHeaders(list.sessionId));
    expect(deleted.status).toBe(200);
    await waitFor(() => http.sessionCount() === 1, 5000, 'DELETE to close the session');
    expect(closed()).toBe(1);
    expect((await raw(http.url, 'POST', sessionHeaders(list.sessionId), listTools)).status).toBe(404);
  });

  it('closes the server of an initialize the transport turns down, leaving no session behind', async () => {
    const { http, closed } = await serve();
    // The Streamable HTTP transport requires Accept: application/json, text/event-stream.
    const refused = await raw(http.url, 'POST', { Accept: 'application/json' }, INITIALIZE);
    expect(refused.status).toBe(406);
    await waitFor(() => closed() === 1);
    expect(http.sessionCount()).toBe(0);
    expect(http.idleTimerCount()).toBe(0);
    // A proper initialize afterwards is unaffected.
    expect((await raw(http.url, 'POST', {}, INITIALIZE)).status).toBe(200);
    expect(http.sessionCount()).toBe(1);
    expect(closed()).toBe(1);
  });

  it('counts initializes still being handled against maxSessions (a burst cannot overshoot)', async () => {
    const { http, entered, release } = await gatedServe({ maxSessions: 2 });
    const statuses: number[] = [];
    const burst = Array.from({ length: 5 }, () =>
      raw(http.url, 'POST', {}, INITIALIZE).then((r) => statuses.push(r.status)),
    );
    await waitFor(() => statuses.length === 3, 5000, 'three refusals');
    expect(statuses).toEqual([503, 503, 503]);
    expect(entered()).toBe(2);
    release();
    await Promise.all(burst);
    expect(statuses.slice(3)).toEqual([200, 200]);
    expect(http.sessionCount()).toBe(2);
  });

  it('caps open sessions by default (ADAPTER_DEFAULTS.maxSessions)', async () => {
    const { http, entered, release } = await gatedServe({});
    const max = ADAPTER_DEFAULTS.maxSessions;
    const statuses: number[] = [];
    const burst = Array.from({ length: max + 2 }, () =>
      raw(http.url, 'POST', {}, INITIALIZE).then((r) => statuses.push(r.status)),
    );
    await waitFor(() => statuses.length === 2, 10_000, 'two refusals');
    expect(statuses).toEqual([503, 503]);
    expect(entered()).toBe(max);
    release();
    await Promise.all(burst);
    expect(http.sessionCount()).toBe(max);
  });

  it('answers an initialize over maxSessions with a 503 JSON-RPC error', async () => {
    const { http } = await serve({ maxSessions: 1 });
    const first = await connect(http.url);
    const refused = await raw(http.url, 'POST', {}, INITIALIZE);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringContaining('too many open sessions (maxSessions 1)') },
    });
    // Requests of the open session still work; once it ends there is room again.
    expect((await first.client.listTools()).tools).toHaveLength(1);
    await (first.client.transport as StreamableHTTPClientTransport).terminateSession();
    await waitFor(() => http.sessionCount() === 0, 5000, 'the session to end');
    expect((await raw(http.url, 'POST', {}, INITIALIZE)).status).toBe(200);
  });

  it.each([
    [{ sessionIdleTimeoutMs: 0 }, 'sessionIdleTimeoutMs'],
    [{ sessionIdleTimeoutMs: -5 }, 'sessionIdleTimeoutMs'],
    [{ sessionIdleTimeoutMs: Number.NaN }, 'sessionIdleTimeoutMs'],
    [{ sessionIdleTimeoutMs: '300' as unknown as number }, 'sessionIdleTimeoutMs'],
    [{ sessionIdleTimeoutMs: 2 ** 31 }, 'sessionIdleTimeoutMs'],
    [{ maxSessions: 0 }, 'maxSessions'],
    [{ maxSessions: 2.5 }, 'maxSessions'],
  ])('rejects %j as INVALID_CONFIG naming %s', async (options, field) => {
    const err = await expectAdapterError(
      serveHttp({ port: 0, createServer: () => new McpServer({ name: 'x', version: '1' }), ...options }),
      'INVALID_CONFIG',
    );
    expect(err.message).toContain(`${field} must be`);
    expect(err.details).toMatchObject({ field });
  });
});
