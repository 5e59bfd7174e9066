/**
 * `pnpm bench --only gateway-start`: how long the gateway takes from Gateway.start() to its
 * first search_tools answer over a large registry, indexing the upstream's tools or loading
 * them from its index cache (packages/mcp-adapter/src/gateway/index-cache.ts).
 *
 * The upstream is one stdio MCP server (gateway-start/registry-server.mjs, a child process)
 * listing, in pages of 1,000, the ~10k tools of the Smithery crawl and the ~100k-tool corpus of
 * `pnpm bench --only compare` (every real tool in ../shared/datasets, then mirror copies:
 * scale/mirror.ts). Each start runs in a fresh Node process (child.ts), as a real gateway
 * starts: measured in one process, a warm start right after an indexing one paid for
 * collecting that start's garbage. The gateway is lexical only (embedding: false: the
 * embedding model loads in the background and never delays the first answer), without
 * learning or enrichment. Three ways, interleaved round by round so the machine's load falls
 * on each alike:
 *
 * - `no cache`: indexCache: false, what every start cost before the cache;
 * - `cold`: an empty cache directory: indexes, then writes the entry;
 * - `warm`: the directory `cold` wrote: serves the index the last start stored at once,
 *   before the upstream has listed, and checks it against the listing afterwards.
 *
 * Each run: wall time to the answer; when the upstream had listed its tools (after the answer,
 * for `warm`); when the index was known to match the listing (Gateway.upstreamsListed(): the
 * start itself, but for `warm`); the gateway process's CPU time to the answer (the upstream's
 * is not counted). Node's start-up and the modules' loading are not counted either: here
 * they are tsx compiling the sources, not what an installed gateway loads. The answers of the three ways
 * must be the same text, or the run fails. Writes benchmarks/results/gateway-start.json;
 * `pnpm bench:readme` renders the adapter README's table from it.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolDefinition } from '@toolsearch/core-search';
import { Gateway, type MetaContext, runMetaTool, SessionState } from '@toolsearch/mcp-adapter';
import { runInChild } from './child.js';
import { runMeta } from './environment.js';
import { isMain, REPO, RESULTS } from './paths.js';
import type { RunMeta } from './results.js';
import { loadCorpus } from './scale/corpus.js';
import { mirrorCorpus, sharedTools } from './scale/mirror.js';

const DATASETS = join(REPO, '..', 'shared', 'datasets');
const SMITHERY = join(DATASETS, 'smithery_toolgym_tools.json');
const SERVER = fileURLToPath(new URL('./gateway-start/registry-server.mjs', import.meta.url));
const LARGE_SIZE = 100_000;
const QUERY = 'send a message to a slack channel';
const MODES = ['no cache', 'cold', 'warm'] as const;
type Mode = (typeof MODES)[number];

export interface StartRun {
  /** Gateway.start() to the first search_tools answer. */
  totalMs: number;
  /** Gateway.start() until the upstream had listed every tool (the log line that says so). */
  listedMs: number;
  /** Gateway.start() until the index was known to match the listing (Gateway.upstreamsListed()). */
  settledMs: number;
  /** The gateway process's CPU time (user + system) over the same span. */
  cpuMs: number;
  /** The gateway said it loaded the index from the cache. */
  loaded: boolean;
}

export interface StartPoint {
  label: string;
  source: string;
  tools: number;
  /** Tools the gateway indexed (some listed ones the engine may refuse). */
  indexed: number;
  /** Size of the cache entries `cold` wrote: the index and the configuration's `last` entry. */
  cacheMB: number;
  /** Per mode, every run in order, and the median of each figure. */
  modes: Record<Mode, { runs: StartRun[]; median: StartRun }>;
}

export interface GatewayStartResult {
  meta: RunMeta & { loadavg: { start: number[]; end: number[] } };
  command: string;
  query: string;
  rounds: number;
  points: StartPoint[];
  skipped: string[];
}

/** A dataset tool as an MCP server lists it (the object input schema the protocol requires). */
function asListed(tool: ToolDefinition): Record<string, unknown> {
  const schema = tool.inputSchema as Record<string, unknown> | undefined;
  return {
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: schema && schema.type === 'object' ? schema : { type: 'object', properties: {} },
  };
}

interface StartOnce {
  run: StartRun;
  answer: string;
  indexed: number;
}

/** One start, in this (child) process: see runInChild. */
async function startOnce(toolsFile: string, mode: Mode, cacheDir: string): Promise<StartOnce> {
  let listedAt = Number.NaN;
  const lines: string[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  const gateway = await Gateway.start({
    config: {
      upstreams: [{ name: 'registry', command: process.execPath, args: [SERVER, toolsFile] }],
      alwaysLoaded: [],
      maxBoundTools: 40,
      callTimeoutMs: 60_000,
    },
    engine: { embedding: false },
    learn: false,
    enrich: false,
    indexCache: mode === 'no cache' ? false : { dir: cacheDir },
    env: {},
    log: (line) => {
      if (line.startsWith('registry: ready')) listedAt = performance.now();
      lines.push(line);
    },
  });
  try {
    const ctx: MetaContext = {
      backend: { catalog: gateway.catalog, callTool: () => Promise.reject(new Error('not here')) },
      session: new SessionState({ alwaysLoaded: [], maxBoundTools: 40 }),
      bindingsChanged: () => {},
    };
    const result = await runMetaTool(ctx, 'search_tools', { query: QUERY }, {});
    const totalMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    await gateway.upstreamsListed();
    const settledMs = performance.now() - start;
    const answer = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    if (result.isError || gateway.catalog.size === 0)
      throw new Error(`gateway-start: no answer (${answer}); log: ${lines.join(' | ')}`);
    return {
      run: {
        totalMs: round(totalMs),
        listedMs: round(listedAt - start),
        settledMs: round(settledMs),
        cpuMs: round((used.user + used.system) / 1000),
        loaded: lines.some((l) => l.includes('loaded the index of')),
      },
      answer,
      indexed: gateway.catalog.size,
    };
  } finally {
    await gateway.close();
  }
}

async function measure(
  label: string,
  source: string,
  tools: readonly ToolDefinition[],
  rounds: number,
  log: (line: string) => void,
): Promise<StartPoint> {
  const dir = mkdtempSync(join(tmpdir(), 'toolsearch-gateway-start-'));
  try {
    const toolsFile = join(dir, 'tools.json');
    writeFileSync(toolsFile, JSON.stringify(tools.map(asListed)));
    const runs = Object.fromEntries(MODES.map((m) => [m, [] as StartRun[]])) as Record<Mode, StartRun[]>;
    let reference: string | undefined;
    let indexed = 0;
    let cacheMB = 0;
    for (let round = 0; round < rounds; round++) {
      const cacheDir = join(dir, `cache-${round}`);
      for (const mode of MODES) {
        const once = await runInChild<StartOnce>(
          import.meta.url,
          [toolsFile, mode, cacheDir],
          `gateway-start: ${label} ${mode}`,
        );
        reference ??= once.answer;
        if (once.answer !== reference)
          throw new Error(
            `gateway-start: ${label} ${mode} answered differently:\n${once.answer}\n---\n${reference}`,
          );
        if (once.run.loaded !== (mode === 'warm'))
          throw new Error(`gateway-start: ${label} ${mode}: loaded from the cache = ${once.run.loaded}`);
        indexed = once.indexed;
        runs[mode].push(once.run);
        log(
          `gateway-start: ${label} ${mode} round ${round + 1}: ${once.run.totalMs} ms to the first answer (listed at ${once.run.listedMs} ms, index matched at ${once.run.settledMs} ms, CPU ${once.run.cpuMs} ms), load ${loadavg()[0]!.toFixed(1)}`,
        );
        if (mode === 'cold') cacheMB = round2(bytesUnder(cacheDir) / 1024 / 1024);
      }
    }
    const modes = Object.fromEntries(
      MODES.map((m) => [m, { runs: runs[m], median: medianRun(runs[m]) }]),
    ) as StartPoint['modes'];
    return { label, source, tools: tools.length, indexed, cacheMB, modes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Bytes of the files under `dir`, its folders' (the `last` entries) included. */
function bytesUnder(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const path = join(dir, entry.name);
    return sum + (entry.isDirectory() ? bytesUnder(path) : statSync(path).size);
  }, 0);
}

function medianRun(runs: StartRun[]): StartRun {
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return round(sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2);
  };
  return {
    totalMs: median(runs.map((r) => r.totalMs)),
    listedMs: median(runs.map((r) => r.listedMs)),
    settledMs: median(runs.map((r) => r.settledMs)),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    loaded: runs.every((r) => r.loaded),
  };
}

const round = (n: number) => Math.round(n);
const round2 = (n: number) => Math.round(n * 100) / 100;

export async function runGatewayStart(
  options: { rounds?: number; small?: boolean; large?: boolean; log?: (line: string) => void } = {},
): Promise<GatewayStartResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const rounds = options.rounds ?? 3;
  const meta = { ...runMeta(REPO), loadavg: { start: loadavg().map(round2), end: [] as number[] } };
  const started = performance.now();
  const result: GatewayStartResult = {
    meta,
    command: 'pnpm bench --only gateway-start',
    query: QUERY,
    rounds,
    points: [],
    skipped: [],
  };
  const shared = sharedTools(DATASETS);
  if (shared.length === 0) {
    result.skipped.push('../shared/datasets is not present in this checkout: nothing measured');
  } else {
    const smithery = loadCorpus('smithery', SMITHERY, '../shared/datasets/smithery_toolgym_tools.json');
    if (options.small ?? true)
      result.points.push(await measure('~10k', smithery.file, smithery.tools, rounds, log));
    if (options.large ?? true)
      result.points.push(
        await measure(
          '~100k',
          '../shared/datasets, every real tool then mirror copies (as compare.ts)',
          mirrorCorpus(shared, LARGE_SIZE),
          rounds,
          log,
        ),
      );
  }
  meta.wallTimeMs = Math.round(performance.now() - started);
  meta.loadavg.end = loadavg().map(round2);
  return result;
}

export function writeGatewayStart(result: GatewayStartResult): void {
  writeFileSync(join(RESULTS, 'gateway-start.json'), `${JSON.stringify(result, null, 2)}\n`);
}

if (isMain(import.meta.url) && process.argv[2] === '--child') {
  const [toolsFile, mode, cacheDir] = process.argv.slice(3);
  if (!toolsFile || !cacheDir || !(MODES as readonly string[]).includes(mode ?? '')) {
    console.error('gateway-start --child <tools.json> <mode> <cache dir>');
    process.exitCode = 2;
  } else {
    process.stdout.write(JSON.stringify(await startOnce(toolsFile, mode as Mode, cacheDir)));
  }
} else if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const rounds = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : undefined;
  const result = await runGatewayStart({
    ...(rounds ? { rounds } : {}),
    small: !args.includes('--no-small'),
    large: !args.includes('--no-large'),
  });
  if (!args.includes('--no-write')) writeGatewayStart(result);
  console.log(
    JSON.stringify(
      result.points.map((p) => ({ label: p.label, ...p.modes })),
      null,
      1,
    ),
  );
}
