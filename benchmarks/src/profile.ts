/**
 * Where the time and bytes go: one phase per process, for `node --cpu-prof` or a heap snapshot.
 *
 *   pnpm -s tsx --conditions=toolsearch-source benchmarks/src/profile.ts <phase> [--size N]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx --conditions=toolsearch-source benchmarks/src/profile.ts build10k
 *
 * Phases: build10k | lexical | hybrid | after-add | build100k | search100k | save-load | save-load-json. Prints timings and
 * process.memoryUsage() after each step; needs ../shared/datasets. With `--cpu-prof-out FILE`
 * only the measured part (searches, or the build) is profiled, through node:inspector:
 *
 *   pnpm -s tsx --conditions=toolsearch-source benchmarks/src/profile.ts lexical --cpu-prof-out /tmp/lexical.cpuprofile
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { ToolSearch } from '@toolsearch/core-search';
import { readTools } from '@toolsearch/core-search/eval';
import { SHARED_DATASETS } from './paths.js';
import { mirrorCorpus, sharedTools } from './scale/mirror.js';
import { SCALE_QUERIES } from './scale/queries.js';

const DATASETS = SHARED_DATASETS;
const phase = process.argv[2] ?? 'build10k';
const sizeArg = process.argv.indexOf('--size');
const size = sizeArg > 0 ? Number(process.argv[sizeArg + 1]) : 100_000;

/** --owned: build100k with copyTools: false (owned input, as the CLI reading a tools file); the benchmark keeps the default. */
const owned = process.argv.includes('--owned');
const profileArg = process.argv.indexOf('--cpu-prof-out');
const profileOut = profileArg > 0 ? process.argv[profileArg + 1] : undefined;
const session = profileOut ? new Session() : undefined;
/** Start the CPU profiler (when asked for) right before the part worth profiling. */
async function profileStart(): Promise<void> {
  if (!session) return;
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
async function profileStop(): Promise<void> {
  if (!session || !profileOut) return;
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(profileOut, JSON.stringify(profile));
  console.log(`wrote ${profileOut}`);
}

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
  await profileStart();
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
  await profileStop();
} else if (phase === 'lexical' || phase === 'hybrid') {
  const engine = new ToolSearch({ tools: smithery(), ...(phase === 'lexical' ? { embedding: false } : {}) });
  await time('ready', () => engine.ready());
  await searchAll(engine, 1);
  await profileStart();
  await time('search x20', () => searchAll(engine, 20));
  await profileStop();
} else if (phase === 'after-add') {
  // Medians over 60 adds of CPU time (process.cpuUsage), steadier than wall time on a busy machine.
  const tools = smithery();
  const adds = 60;
  const engine = new ToolSearch({ tools: tools.slice(0, -adds), embedding: false });
  await searchAll(engine, 3);
  const wall: number[] = [];
  const cpu = async (run: () => Promise<unknown>) => {
    const start = process.cpuUsage();
    const t = performance.now();
    await run();
    wall.push(performance.now() - t);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  const first: number[] = [];
  const again: number[] = [];
  // Another query, with no add before it: what a search costs without the repeat's caches
  // (the shared own-term sum, the lists' tfs), to set beside the first search after an add.
  const other: number[] = [];
  await profileStart();
  for (let i = 0; i < adds; i++) {
    engine.add([tools[tools.length - adds + i]!]);
    const query = SCALE_QUERIES[i % SCALE_QUERIES.length]!;
    first.push(await cpu(() => engine.search(query, { limit: 10 })));
    again.push(await cpu(() => engine.search(query, { limit: 10 })));
    const another = SCALE_QUERIES[(i * 7 + 3) % SCALE_QUERIES.length]!;
    other.push(await cpu(() => engine.search(another, { limit: 10 })));
  }
  await profileStop();
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toFixed(2);
  console.log(
    `after add (CPU ms, median of ${adds}): first ${med(first)}, again ${med(again)}, another query ${med(other)}`,
  );
  console.log(
    `after add (wall ms): first ${med(wall.filter((_, i) => i % 3 === 0))}, again ${med(wall.filter((_, i) => i % 3 === 1))}, another query ${med(wall.filter((_, i) => i % 3 === 2))}`,
  );
} else if (phase === 'build100k' || phase === 'search100k') {
  const tools = mirrorCorpus(sharedTools(DATASETS), size);
  console.log(`${tools.length} tools`);
  memory('corpus loaded');
  if (phase === 'build100k') await profileStart();
  const cpu = process.cpuUsage();
  const engine = await time(owned ? 'build lexical (copyTools: false)' : 'build lexical', async () => {
    const e = new ToolSearch({ tools, embedding: false, ...(owned ? { copyTools: false } : {}) });
    await e.ready();
    return e;
  });
  const used = process.cpuUsage(cpu);
  console.log(`  build CPU ${((used.user + used.system) / 1000).toFixed(0)} ms`);
  if (phase === 'build100k') await profileStop();
  memory('built');
  await time('first search', () => engine.search('take a screenshot of the page'));
  if (phase === 'search100k') await profileStart();
  await searchAll(engine, 3);
  if (phase === 'search100k') await profileStop();
  memory('searched');
} else if (phase === 'save-load' || phase === 'save-load-json') {
  // save-load: toBytes() / load(bytes), profiling load; save-load-json: the JSON path of toJSON().
  const tools = mirrorCorpus(sharedTools(DATASETS), size);
  const engine = new ToolSearch({ tools, embedding: false });
  await engine.search('warm up the norms');
  let loaded: ToolSearch;
  if (phase === 'save-load') {
    const bytes = await time('toBytes', () => engine.toBytes());
    console.log(`  ${mb(bytes.length)} saved`);
    await profileStart();
    const cpu = process.cpuUsage();
    loaded = await time('load', () => ToolSearch.load(bytes, { embedding: false }));
    const used = process.cpuUsage(cpu);
    console.log(`  load CPU ${((used.user + used.system) / 1000).toFixed(1)} ms`);
  } else {
    const text = await time('toJSON + stringify', () => JSON.stringify(engine.toJSON()));
    console.log(`  ${mb(text.length)} of JSON`);
    const parsed = await time('parse', () => JSON.parse(text));
    await profileStart();
    loaded = await time('load', () => ToolSearch.load(parsed, { embedding: false }));
  }
  await time('first search', () => loaded.search('take a screenshot of the page'));
  await profileStop();
  await time('second search', () => loaded.search('send an email to my team'));
  memory('loaded');
} else {
  throw new Error(`profile: unknown phase ${phase}`);
}
memory('end');
