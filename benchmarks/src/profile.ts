/**
 * Where the time and bytes go: one phase per process, for `node --cpu-prof` or a heap snapshot.
 *
 *   pnpm -s tsx --conditions=toolsearch-source benchmarks/src/profile.ts <phase> [--size N]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx --conditions=toolsearch-source benchmarks/src/profile.ts build10k
 *
 * Phases: build10k | lexical | hybrid | after-add | build100k | save-load. Prints timings and
 * process.memoryUsage() after each step; needs ../shared/datasets.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTools, ToolSearch } from '@toolsearch/core-search';
import { mirrorCorpus, sharedTools } from './scale/mirror.js';
import { SCALE_QUERIES } from './scale/queries.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DATASETS = join(REPO, '../shared/datasets');
const phase = process.argv[2] ?? 'build10k';
const sizeArg = process.argv.indexOf('--size');
const size = sizeArg > 0 ? Number(process.argv[sizeArg + 1]) : 100_000;

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
function memory(label: string) {
  const m = process.memoryUsage();
  console.log(
    `${label}: heap ${mb(m.heapUsed)}, rss ${mb(m.rss)}, external ${mb(m.external + m.arrayBuffers)}`,
  );
}
async function time<T>(label: string, run: () => T | Promise<T>): Promise<T> {
  const start = performance.now();
  const value = await run();
  console.log(`${label}: ${(performance.now() - start).toFixed(1)} ms`);
  return value;
}
async function searchAll(engine: ToolSearch, rounds: number): Promise<void> {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++)
    for (const q of SCALE_QUERIES) {
      const start = performance.now();
      await engine.search(q, { limit: 10 });
      times.push(performance.now() - start);
    }
  times.sort((a, b) => a - b);
  console.log(
    `  ${times.length} searches: p50 ${times[times.length >> 1]!.toFixed(3)} ms, p95 ${times[Math.floor(times.length * 0.95)]!.toFixed(3)} ms`,
  );
}

const smithery = () => readTools(join(DATASETS, 'smithery_toolgym_tools.json'));
memory('start');
if (phase === 'build10k') {
  const tools = smithery();
  for (let i = 0; i < Number(process.env.RUNS ?? 3); i++) {
    const engine = await time('build 10k lexical', async () => {
      const e = new ToolSearch({ tools, embedding: false });
      await e.ready();
      await e.search('warm up the norms', { limit: 10 });
      return e;
    });
    memory('  built');
    void engine;
  }
} else if (phase === 'lexical' || phase === 'hybrid') {
  const engine = new ToolSearch({ tools: smithery(), ...(phase === 'lexical' ? { embedding: false } : {}) });
  await time('ready', () => engine.ready());
  await searchAll(engine, 1);
  await time('search x20', () => searchAll(engine, 20));
} else if (phase === 'after-add') {
  const tools = smithery();
  const engine = new ToolSearch({ tools: tools.slice(0, -20), embedding: false });
  await searchAll(engine, 3);
  for (let i = 0; i < 20; i++) {
    engine.add([tools[tools.length - 20 + i]!]);
    const start = performance.now();
    await engine.search(SCALE_QUERIES[i]!, { limit: 10 });
    const first = performance.now() - start;
    const again = performance.now();
    await engine.search(SCALE_QUERIES[i]!, { limit: 10 });
    console.log(
      `after add: first ${first.toFixed(2)} ms, again ${(performance.now() - again).toFixed(2)} ms`,
    );
  }
} else if (phase === 'build100k') {
  const tools = mirrorCorpus(sharedTools(DATASETS), size);
  console.log(`${tools.length} tools`);
  memory('corpus loaded');
  const engine = await time('build lexical', async () => {
    const e = new ToolSearch({ tools, embedding: false });
    await e.ready();
    return e;
  });
  memory('built');
  await time('first search', () => engine.search('take a screenshot of the page'));
  await searchAll(engine, 3);
  memory('searched');
} else if (phase === 'save-load') {
  const tools = mirrorCorpus(sharedTools(DATASETS), size);
  const engine = new ToolSearch({ tools, embedding: false });
  const text = await time('toJSON + stringify', () => JSON.stringify(engine.toJSON()));
  console.log(`  ${mb(text.length)} of JSON`);
  const parsed = await time('parse', () => JSON.parse(text));
  const loaded = await time('load', () => ToolSearch.load(parsed, { embedding: false }));
  await time('first search', () => loaded.search('take a screenshot of the page'));
  memory('loaded');
  void readFileSync;
} else {
  throw new Error(`profile: unknown phase ${phase}`);
}
memory('end');
