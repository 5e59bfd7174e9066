// Fuzzing the HTTP gateway on 127.0.0.1 (issue 9): seeded adversarial requests (random
// bytes, broken JSON, deep nesting, bodies over the cap, unknown sessions and methods, a
// 4 MB search query, odd arguments) must each get an HTTP answer or a typed error, the
// process must keep serving, and another session's searches must complete meanwhile.
// Test timeouts are hang guards only; `pnpm bench --only fuzz` measures the delays.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_META_KEY, Gateway, type HttpHandle, serveHttp } from '../src/index.js';
import { fixtureServer } from './fixtures/servers.js';
import { INITIALIZE, rawRequest } from './http-helpers.js';

let gateway: Gateway;
let http: HttpHandle;
const clients: Client[] = [];

beforeAll(async () => {
  gateway = await Gateway.start({
    config: {
      upstreams: [fixtureServer('fx', ['--tools', '60'])],
      alwaysLoaded: [],
      maxBoundTools: 40,
      callTimeoutMs: 5000,
    },
    engine: { embedding: false },
    log: () => {},
  });
  http = await serveHttp({
    port: 0,
    createServer: (context) => gateway.createServer(context),
    log: () => {},
  });
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await http?.close();
  await gateway?.close();
});

async function session(): Promise<Client> {
  const client = new Client({ name: 'fuzz', version: '1.0.0' });
  client.onerror = () => {};
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  clients.push(client);
  return client;
}

/** Sends raw bytes; resolves with the status, or 'closed' when the server dropped the connection. */
function send(method: string, body: Buffer | string | undefined, headers: Record<string, string> = {}) {
  return rawRequest(http.url, method, headers, body).then(
    (res) => res.status,
    () => 'closed' as const,
  );
}

/** `length` deterministic pseudo-random bytes (seeded by `seed`). */
function bytes(seed: string, length: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; i * 32 < length; i++) blocks.push(createHash('sha256').update(`${seed}/${i}`).digest());
  return Buffer.concat(blocks).subarray(0, length);
}

const errorCode = (result: CallToolResult) =>
  (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code;

describe('fuzz: adversarial requests against the HTTP gateway', () => {
  it('answers every malformed request with an HTTP status and keeps serving', {
    timeout: 180_000,
  }, async () => {
    const bodies: (Buffer | string)[] = [
      '',
      '{',
      'null',
      '[]',
      '[1,2,3]',
      '"a string"',
      '{"jsonrpc":"2.0"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      `${'['.repeat(200_000)}${']'.repeat(200_000)}`,
      JSON.stringify({ ...INITIALIZE, params: { protocolVersion: 'x'.repeat(100_000) } }),
      JSON.stringify([INITIALIZE, INITIALIZE]),
      Buffer.alloc(5 * 1024 * 1024, 0x61), // over the 4 MB body cap
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`,
    ];
    for (let i = 0; i < 20; i++) bodies.push(bytes(`fuzz-${i}`, 1 + ((i * 797) % 4000)));
    const outcomes: { what: string; status: number | 'closed' }[] = [];
    for (const [i, body] of bodies.entries())
      outcomes.push({ what: `body ${i}`, status: await send('POST', body) });
    for (const [method, headers] of [
      ['GET', {}],
      ['PUT', {}],
      ['PATCH', {}],
      ['DELETE', { 'Mcp-Session-Id': 'no-such-session' }],
      ['POST', { 'Mcp-Session-Id': 'no-such-session' }],
      ['POST', { 'Content-Type': 'text/plain' }],
      ['POST', { Accept: 'text/html' }],
    ] as const) {
      const body =
        method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) : undefined;
      outcomes.push({
        what: `${method} ${JSON.stringify(headers)}`,
        status: await send(method, body, headers),
      });
    }
    for (const { what, status } of outcomes) {
      // The server may answer a body over the cap, or an unknown session, before it has
      // read the whole upload, and then the client sees the connection close.
      if (status === 'closed' && (what === 'body 11' || what.includes('no-such-session'))) continue;
      expect(status, what).toBeTypeOf('number');
      expect(status, what).toBeGreaterThanOrEqual(200);
      expect(status, what).toBeLessThan(500);
    }
    // Still serving: a new session searches as before.
    const client = await session();
    const found = (await client.callTool({
      name: 'search_tools',
      arguments: { query: 'echo text' },
    })) as CallToolResult;
    expect(JSON.stringify(found.content)).toContain('fx__echo');
  });

  it('odd meta-tool arguments are typed errors, not crashes', { timeout: 120_000 }, async () => {
    const client = await session();
    const deep = JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`);
    const cases: [string, Record<string, unknown>][] = [
      ['search_tools', { query: 5 }],
      ['search_tools', { query: '\u0000'.repeat(10_000) }],
      ['search_tools', { toolset: 'no-such-toolset' }],
      ['load_toolset', { tools: ['x'.repeat(100_000)] }],
      ['load_toolset', { toolsets: [{}] }],
      ['call_tool', { name: 'fx__echo', arguments: deep }],
      ['call_tool', { name: 'fx__echo', arguments: { text: 5 } }],
      ['call_tool', { name: '__proto__', arguments: {} }],
      ['call_tool', { name: 'constructor' }],
      ['no_such_tool', {}],
    ];
    for (const [name, args] of cases) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (result.isError)
        expect(typeof errorCode(result), `${name} ${JSON.stringify(args).slice(0, 80)}`).toBe('string');
    }
    const echoed = (await client.callTool({
      name: 'call_tool',
      arguments: { name: 'fx__echo', arguments: { text: 'ok' } },
    })) as CallToolResult;
    expect(echoed.content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it("a 4 MB query from one session does not stop another session's searches", {
    timeout: 180_000,
  }, async () => {
    const [big, other] = await Promise.all([session(), session()]);
    const query = 'take a screenshot '.repeat(Math.floor((3.9 * 1024 * 1024) / 18));
    let done = false;
    const flood = (async () => {
      for (let i = 0; i < 3; i++) {
        const result = (await big.callTool({ name: 'search_tools', arguments: { query } })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        // The answer echoes the searched text, bounded, not the 4 MB that was sent, and says it was cut.
        expect(JSON.stringify(result.content).length).toBeLessThan(20_000);
        expect(JSON.stringify(result.content)).toContain(
          `of query (${query.length} characters) were searched`,
        );
      }
      done = true;
    })();
    let answered = 0;
    while (!done || answered < 3) {
      const result = (await other.callTool({
        name: 'search_tools',
        arguments: { query: 'echo' },
      })) as CallToolResult;
      expect(JSON.stringify(result.content)).toContain('fx__echo');
      answered++;
    }
    await flood;
    expect(answered).toBeGreaterThanOrEqual(3);
  });
});
