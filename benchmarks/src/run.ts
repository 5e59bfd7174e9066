/**
 * `pnpm bench`: the ablation study on the labelled fixtures, then the scale
 * and embedding benchmarks when their modules exist.
 *
 *   pnpm bench                         ablation + scale + embedding
 *   pnpm bench --only ablation         one part (ablation | scale | embedding | compare | tokens | gateway-start; repeatable, comma-separated)
 *   pnpm bench --external              the ablation study on every ../shared/datasets file with queries
 *   pnpm bench --external --max-queries 300 --datasets bfcl,metatool
 *   pnpm bench --no-embedding          switch the semantic strategy off (configs marked †)
 *   pnpm bench --no-latency            quality only (faster)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { readDataset } from '@toolsearch/core-search/eval';
import { runAblation } from './ablation.js';
import { formatCompare, runCompare, writeCompare } from './compare.js';
import { runMeta } from './environment.js';
import { runGatewayStart, type StartPoint, writeGatewayStart } from './gateway-start.js';
import { IMPACT_DOC } from './impact.js';
import { HERE, REPO, RESULTS, SHARED_DATASETS } from './paths.js';
import { renderConsoleSummary } from './report/console.js';
import { renderMarkdown } from './report/markdown.js';
import { renderHeatmap } from './report/svg.js';
import type { DatasetResult, StudyResult } from './results.js';
import { runScaleBenchmark } from './scale.js';
import { runTokens, writeTokens } from './tokens.js';

const FIXTURE_QUERIES = join(REPO, 'fixtures/queries/toolsearch-queries.json');
/** New-user queries written after the pack was frozen, without seeing it: a dataset of its own. */
const HOLDOUT_QUERIES = join(REPO, 'fixtures/queries/new-users-holdout.json');
const PARTS = ['ablation', 'scale', 'embedding', 'compare', 'tokens', 'gateway-start'] as const;
type Part = (typeof PARTS)[number];

const DEFAULT_EXTERNAL_MAX_QUERIES = 500;

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function parseCli() {
  const { values } = parseArgs({
    options: {
      only: { type: 'string', multiple: true },
      external: { type: 'boolean', default: false },
      'max-queries': { type: 'string' },
      datasets: { type: 'string' },
      'no-embedding': { type: 'boolean', default: false },
      'no-latency': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  const only = (values.only ?? []).flatMap((v) => v.split(',')).filter((v) => v !== '');
  for (const part of only) {
    if (!PARTS.includes(part as Part))
      throw new Error(`bench: --only takes ${PARTS.join(' | ')}, got "${part}"`);
  }
  const maxQueries = values['max-queries'] === undefined ? undefined : Number(values['max-queries']);
  if (maxQueries !== undefined && (!Number.isInteger(maxQueries) || maxQueries < 1)) {
    throw new Error(`bench: --max-queries must be a positive integer, got "${values['max-queries']}"`);
  }
  return {
    help: values.help,
    parts: (only.length > 0 ? only : PARTS) as readonly Part[],
    external: values.external,
    maxQueries,
    datasets: values.datasets?.split(',').filter((d) => d !== ''),
    embedding: !values['no-embedding'],
    latency: !values['no-latency'],
  };
}

type Cli = ReturnType<typeof parseCli>;

function writeStudy(study: StudyResult, base: string): void {
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, `${base}.json`), `${JSON.stringify(study, null, 2)}\n`);
  writeFileSync(join(RESULTS, `${base}.svg`), renderHeatmap(study));
  writeFileSync(join(RESULTS, `${base}.md`), renderMarkdown(study, `${base}.svg`));
  console.log(renderConsoleSummary(study));
  console.log(`\nwrote benchmarks/results/${base}.{json,md,svg}`);
}

async function fixtureAblation(cli: Cli): Promise<void> {
  const start = performance.now();
  const meta = runMeta(REPO);
  if (!existsSync(FIXTURE_QUERIES)) {
    log(`ablation: ${relative(REPO, FIXTURE_QUERIES)} does not exist yet; skipped`);
    return;
  }
  const datasets: DatasetResult[] = [];
  for (const file of [FIXTURE_QUERIES, HOLDOUT_QUERIES]) {
    if (!existsSync(file)) {
      log(`ablation: ${relative(REPO, file)} does not exist; skipped`);
      continue;
    }
    datasets.push(
      await runAblation(readDataset(file), {
        file: relative(REPO, file),
        ...(cli.maxQueries === undefined ? {} : { maxQueries: cli.maxQueries }),
        embedding: cli.embedding,
        components: true,
        ...(cli.latency ? {} : { latency: false as const }),
        log,
      }),
    );
  }
  meta.wallTimeMs = performance.now() - start;
  writeStudy({ study: 'ablation', meta, impactRule: IMPACT_DOC, datasets, skipped: [] }, 'ablation');
}

async function externalAblation(cli: Cli): Promise<void> {
  const start = performance.now();
  const meta = runMeta(REPO);
  if (!existsSync(SHARED_DATASETS)) {
    log('ablation --external: ../shared/datasets is not present in this checkout; nothing to run');
    return;
  }
  const files = readdirSync(SHARED_DATASETS)
    .filter((f) => f.endsWith('.json'))
    .filter((f) => cli.datasets === undefined || cli.datasets.includes(f.replace(/\.json$/, '')))
    .sort();
  const datasets: DatasetResult[] = [];
  const skipped: StudyResult['skipped'] = [];
  for (const file of files) {
    const path = join(SHARED_DATASETS, file);
    const shown = `../shared/datasets/${file}`;
    let dataset: ReturnType<typeof readDataset>;
    try {
      dataset = readDataset(path);
    } catch (error) {
      skipped.push({ file: shown, reason: `cannot be read: ${(error as Error).message}` });
      continue;
    }
    if (dataset.queries.length === 0) {
      skipped.push({ file: shown, reason: 'tools only, no queries' });
      log(`ablation --external: ${file} has no queries; skipped`);
      continue;
    }
    datasets.push(
      await runAblation(dataset, {
        file: shown,
        maxQueries: cli.maxQueries ?? DEFAULT_EXTERNAL_MAX_QUERIES,
        embedding: cli.embedding,
        ...(cli.latency ? {} : { latency: false as const }),
        log,
      }),
    );
  }
  meta.wallTimeMs = performance.now() - start;
  writeStudy(
    { study: 'ablation-external', meta, impactRule: IMPACT_DOC, datasets, skipped },
    'ablation-external',
  );
}

/**
 * The embedding benchmark runs in a process of its own: it measures the memory a model
 * and its vectors add (RSS deltas), which this process's ablation engines would blur, and
 * its argument parser must not see ours.
 */
async function embeddingBenchmark(): Promise<void> {
  const source = join(HERE, 'embedding.ts');
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawn(process.execPath, ['--conditions=toolsearch-source', '--import', 'tsx', source], {
      cwd: REPO,
      stdio: 'inherit',
    });
    child.on('error', fail);
    child.on('exit', done);
  });
  if (code !== 0) throw new Error(`bench: embedding benchmark exited with code ${code}`);
}

/** The adapter's token figures, offline on the recorded tool lists. */
async function tokensBenchmark(): Promise<void> {
  const result = await runTokens();
  writeTokens(result);
  const searches = result.example.searches.map((s) => s.tokens);
  console.log(
    `tokens: eager ${result.registry.eager} (${result.registry.tools} tools), example eager ${result.example.eager}, ` +
      `lazy ${result.example.lazyInitial}, after ${result.example.loaded.toolset} ${result.example.loaded.tokens}, ` +
      `search ${Math.min(...searches)}-${Math.max(...searches)}`,
  );
  console.log('\nwrote benchmarks/results/tokens.json');
}

/** The gateway's start over ~10k and ~100k upstream tools, indexing vs from its index cache. */
async function gatewayStartBenchmark(): Promise<void> {
  const result = await runGatewayStart();
  writeGatewayStart(result);
  for (const p of result.points)
    console.log(
      `gateway-start ${p.label}: ${modesLine(p)} (load ${result.meta.loadavg.start.join(' ')} -> ${result.meta.loadavg.end.join(' ')})`,
    );
  console.log('\nwrote benchmarks/results/gateway-start.json');
}

function modesLine(p: StartPoint): string {
  return Object.entries(p.modes)
    .map(([mode, m]) => `${mode} ${m.median.totalMs} ms (CPU ${m.median.cpuMs} ms)`)
    .join(', ');
}

/** The side-by-side comparison (10k and 100k points); its 100k points run in child processes. */
async function compareBenchmark(): Promise<void> {
  const result = await runCompare({});
  console.log(formatCompare(result));
  writeCompare(result);
  console.log('\nwrote benchmarks/results/compare.json');
}

async function main(): Promise<void> {
  const cli = parseCli();
  if (cli.help) {
    console.log(
      'pnpm bench [--only ablation|scale|embedding|compare|tokens|gateway-start] [--external [--max-queries N] [--datasets a,b]] [--no-embedding] [--no-latency]',
    );
    return;
  }
  const start = performance.now();
  const partTimes: Record<string, number> = {};
  const timed = async (name: string, run: () => Promise<void>) => {
    const t = performance.now();
    await run();
    partTimes[name] = Math.round(performance.now() - t);
    log(`${name}: ${(partTimes[name]! / 1000).toFixed(1)} s`);
  };
  if (cli.external) {
    await timed('ablation-external', () => externalAblation(cli));
  } else {
    for (const part of cli.parts) {
      if (part === 'ablation') await timed('ablation', () => fixtureAblation(cli));
      else if (part === 'scale') await timed('scale', () => runScaleBenchmark({}).then(() => undefined));
      else if (part === 'compare') await timed('compare', compareBenchmark);
      else if (part === 'tokens') await timed('tokens', tokensBenchmark);
      else if (part === 'gateway-start') await timed('gateway-start', gatewayStartBenchmark);
      else await timed('embedding', embeddingBenchmark);
    }
  }
  const wallTimeMs = Math.round(performance.now() - start);
  console.log(`\npnpm bench wall time: ${(wallTimeMs / 1000).toFixed(1)} s (${JSON.stringify(partTimes)})`);
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
