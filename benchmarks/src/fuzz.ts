/**
 * `pnpm bench:fuzz`: worst-case times of the fuzz inputs (issue 9), written to
 * benchmarks/results/fuzz.json. The fuzz tests only assert answers and typed errors;
 * this measures how long the worst of those inputs take.
 *
 * 1. Library: every adversarial query family (packages/core-search/test/fuzz-inputs.ts)
 *    at 1 KB to 1 MB, plus seeded random text, against the 480-tool registry with every
 *    strategy on (bundled embedding model). Target: no query over 150 ms.
 * 2. HTTP gateway on 127.0.0.1 (480 tools from the fixture server): one session's
 *    search latency alone, then while another session (a client in its own process, as
 *    a remote one would be) sends 4 MB search_tools queries, each different.
 *    Target: the other session is delayed by no more than 150 ms.
 */
import { fork } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { type ToolDefinition, ToolSearch } from '@toolsearch/core-search';
import { Gateway, serveHttp } from '@toolsearch/mcp-adapter';
import { fuzzQueries } from '../../packages/core-search/test/fuzz-inputs.js';
import { runMeta } from './environment.js';
import { HERE, REPO } from './paths.js';
import { RawSession } from './raw-session.js';

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

/** 10 search_tools calls of 4 MB each, different each time, from a client in its own process. */
function flood(url: string): { running: () => boolean; done: Promise<{ times: number[]; chars: number }> } {
  let running = true;
  const done = new Promise<{ times: number[]; chars: number }>((resolveFlood, reject) => {
    const child = fork(join(HERE, 'fuzz-flood.ts'), [url, '10', String(4 * 1024 * 1024 - 1024)], {
      execArgv: ['--import', 'tsx'],
    });
    child.once('message', (result) => resolveFlood(result as { times: number[]; chars: number }));
    child.once('error', reject);
    child.once('exit', (code) => {
      running = false;
      if (code !== 0) reject(new Error(`the flooding client exited with ${code}`));
    });
  });
  return { running: () => running, done };
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
    // A fuzz run must not leave an index in the user's cache directory.
    indexCache: false,
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
    const other = new RawSession(http.url);
    await other.open();
    const queries = ['echo the text', 'generic tool number 7', 'add a tool', 'fail with a message'];
    const searchWhile = async (busy: () => boolean, atLeast = 0) => {
      const times: number[] = [];
      for (let i = 0; busy() || i < atLeast; i++)
        times.push(await other.search(queries[i % queries.length]!));
      return times.sort((x, y) => x - y);
    };
    const alone = await searchWhile(() => false, 200);
    const during = flood(http.url);
    const d = await searchWhile(during.running);
    const big = await during.done;
    // The same queries with nobody else searching: the gateway's CPU per 4 MB request is what
    // one such request can hold another session up by on a core of its own, whatever the
    // machine's load does to the wall-clock figures above.
    const cpuBefore = process.cpuUsage();
    const lone = await flood(http.url).done;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMsPerBigQuery = (cpu.user + cpu.system) / 1000 / lone.times.length;
    const stats = (sorted: number[]) => ({
      searches: sorted.length,
      p50Ms: round(quantile(sorted, 0.5)),
      p99Ms: round(quantile(sorted, 0.99)),
      worstMs: round(sorted.at(-1)!),
    });
    const delay = d.at(-1)! - quantile(alone, 0.5);
    log(
      `gateway: other session p50/p99/worst ${round(quantile(alone, 0.5))}/${round(quantile(alone, 0.99))}/${round(alone.at(-1)!)} ms alone, ${round(quantile(d, 0.5))}/${round(quantile(d, 0.99))}/${round(d.at(-1)!)} ms during 4 MB queries; ${round(cpuMsPerBigQuery)} ms CPU per 4 MB query`,
    );
    return {
      tools: gateway.catalog.size,
      bigQueryChars: big.chars,
      bigQueries: big.times.length,
      bigQueryWorstMs: round(Math.max(...big.times)),
      otherAlone: stats(alone),
      otherDuring: stats(d),
      /** The worst search during the 4 MB queries over the median alone: every delay, and the machine's noise. */
      worstDelayMs: round(delay),
      /** The same measure with no 4 MB query at all (worst alone over median alone): the noise floor. */
      noiseMs: round(alone.at(-1)! - quantile(alone, 0.5)),
      p99DelayMs: round(quantile(d, 0.99) - quantile(alone, 0.99)),
      gatewayCpuMsPer4MbQuery: round(cpuMsPerBigQuery),
      withinTarget: delay <= TARGET_MS,
      cpuWithinTarget: cpuMsPerBigQuery <= TARGET_MS,
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
  `${JSON.stringify({ meta: { ...runMeta(REPO), loadavg: Math.round(loadavg()[0]! * 10) / 10 }, command: 'pnpm bench:fuzz', targetMs: TARGET_MS, library, gateway }, null, 2)}\n`,
);
log(`wrote ${out}`);
