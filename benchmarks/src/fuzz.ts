/**
 * `pnpm bench:fuzz`: worst-case times of the fuzz inputs (issue 9), written to
 * benchmarks/results/fuzz.json. The fuzz tests only assert answers and typed errors;
 * this measures how long the worst of those inputs take.
 *
 * 1. Library: every adversarial query family (packages/core-search/test/fuzz-inputs.ts)
 *    at 1 KB to 1 MB, plus seeded random text, against the 480-tool registry with every
 *    strategy on (bundled embedding model). Target: no query over 150 ms.
 * 2. HTTP gateway on 127.0.0.1 (480 tools from the fixture server): one session's
 *    search latency alone, then while another session sends 4 MB search_tools queries.
 *    Target: the other session is delayed by no more than 150 ms.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ToolDefinition, ToolSearch } from '@toolsearch/core-search';
import { Gateway, serveHttp } from '@toolsearch/mcp-adapter';
import { fuzzQueries } from '../../packages/core-search/test/fuzz-inputs.js';
import { runMeta } from './environment.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const FIXTURE_SERVER = join(REPO, 'packages/mcp-adapter/test/fixtures/fixture-server.mjs');
const TARGET_MS = 150;

const log = (line: string) => process.stderr.write(`${line}\n`);
const round = (ms: number) => Math.round(ms * 100) / 100;
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function libraryWorstCase() {
  const { tools } = JSON.parse(readFileSync(join(REPO, 'fixtures/registry/tools.json'), 'utf8')) as {
    tools: ToolDefinition[];
  };
  const engine = new ToolSearch({ tools, embedding: { cacheDir: false, env: {} }, onProgress: () => {} });
  await engine.ready();
  for (const warm of ['take a screenshot', 'create_issue', 'read a file from disk'])
    await engine.search(warm);
  const queries = fuzzQueries(9, [1000, 10_000, 100_000, 1_000_000], 100, 1_000_000);
  const byFamily = new Map<string, { worstMs: number; chars: number }>();
  const times: { family: string; chars: number; ms: number }[] = [];
  for (const { family, query } of queries) {
    if (query.trim() === '') continue; // EMPTY_QUERY, answered before any work
    const start = performance.now();
    await engine.search(query);
    const ms = performance.now() - start;
    times.push({ family, chars: query.length, ms });
    const worst = byFamily.get(family);
    if (!worst || ms > worst.worstMs) byFamily.set(family, { worstMs: ms, chars: query.length });
  }
  const sorted = times.map((t) => t.ms).sort((a, b) => a - b);
  const worst = [...times].sort((a, b) => b.ms - a.ms).slice(0, 5);
  log(
    `library: ${times.length} queries, worst ${round(worst[0]!.ms)} ms (${worst[0]!.family}, ${worst[0]!.chars} chars)`,
  );
  return {
    tools: engine.size,
    strategies: 'all, bundled embedding model',
    queries: times.length,
    maxChars: Math.max(...times.map((t) => t.chars)),
    p50Ms: round(quantile(sorted, 0.5)),
    p99Ms: round(quantile(sorted, 0.99)),
    worstMs: round(worst[0]!.ms),
    withinTarget: worst[0]!.ms <= TARGET_MS,
    worst: worst.map((t) => ({ family: t.family, chars: t.chars, ms: round(t.ms) })),
    worstByFamily: Object.fromEntries(
      [...byFamily].map(([family, w]) => [family, { chars: w.chars, ms: round(w.worstMs) }]),
    ),
  };
}

/** A minimal 2025-era MCP client over raw HTTP: enough to open a session and call tools. */
class RawSession {
  private id = '';
  private seq = 0;
  constructor(private readonly url: string) {}

  async open(): Promise<void> {
    const init = await this.post({
      jsonrpc: '2.0',
      id: ++this.seq,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    });
    this.id = init.sessionId;
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  async search(query: string): Promise<number> {
    const start = performance.now();
    const { body } = await this.post({
      jsonrpc: '2.0',
      id: ++this.seq,
      method: 'tools/call',
      params: { name: 'search_tools', arguments: { query } },
    });
    if (!body.includes('"result"')) throw new Error(`search failed: ${body.slice(0, 200)}`);
    return performance.now() - start;
  }

  private post(message: object): Promise<{ sessionId: string; body: string }> {
    return new Promise((resolvePost, reject) => {
      const req = request(this.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(this.id ? { 'Mcp-Session-Id': this.id, 'Mcp-Protocol-Version': '2025-06-18' } : {}),
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolvePost({ sessionId: String(res.headers['mcp-session-id'] ?? ''), body }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(message));
    });
  }
}

async function gatewayDelay() {
  const gateway = await Gateway.start({
    config: {
      upstreams: [{ name: 'fx', command: process.execPath, args: [FIXTURE_SERVER, '--tools', '472'] }],
      alwaysLoaded: [],
      maxBoundTools: 40,
      callTimeoutMs: 60_000,
    },
    engine: { embedding: { cacheDir: false, env: {} } },
    log: () => {},
  });
  // Measured with the embedding model in, as a long-running gateway serves.
  while ((await gateway.catalog.search('warm up', { limit: 1 })).degraded === 'embedding-loading') {
    await new Promise((wait) => setTimeout(wait, 50));
  }
  const http = await serveHttp({
    port: 0,
    createServer: (context) => gateway.createServer(context),
    log: () => {},
  });
  try {
    const [big, other] = [new RawSession(http.url), new RawSession(http.url)];
    await Promise.all([big.open(), other.open()]);
    const queries = ['echo the text', 'generic tool number 7', 'add a tool', 'fail with a message'];
    const alone: number[] = [];
    for (let i = 0; i < 40; i++) alone.push(await other.search(queries[i % queries.length]!));
    const hugeQuery = 'take a screenshot '.repeat(Math.floor((4 * 1024 * 1024 - 1024) / 18));
    const bigTimes: number[] = [];
    const during: number[] = [];
    let running = true;
    const flood = (async () => {
      for (let i = 0; i < 10; i++) bigTimes.push(await big.search(hugeQuery));
      running = false;
    })();
    for (let i = 0; running; i++) during.push(await other.search(queries[i % queries.length]!));
    await flood;
    const a = [...alone].sort((x, y) => x - y);
    const d = [...during].sort((x, y) => x - y);
    const delay = d.at(-1)! - quantile(a, 0.5);
    log(
      `gateway: other session p50 ${round(quantile(a, 0.5))} ms alone, worst ${round(d.at(-1)!)} ms during 4 MB queries`,
    );
    return {
      tools: gateway.catalog.size,
      bigQueryBytes: hugeQuery.length,
      bigQueries: bigTimes.length,
      bigQueryWorstMs: round(Math.max(...bigTimes)),
      otherAlone: { searches: a.length, p50Ms: round(quantile(a, 0.5)), worstMs: round(a.at(-1)!) },
      otherDuring: { searches: d.length, p50Ms: round(quantile(d, 0.5)), worstMs: round(d.at(-1)!) },
      worstDelayMs: round(delay),
      withinTarget: delay <= TARGET_MS,
    };
  } finally {
    await http.close();
    await gateway.close();
  }
}

const library = await libraryWorstCase();
const gateway = await gatewayDelay();
const out = join(REPO, 'benchmarks/results/fuzz.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify({ meta: runMeta(REPO), command: 'pnpm bench:fuzz', targetMs: TARGET_MS, library, gateway }, null, 2)}\n`,
);
log(`wrote ${out}`);
