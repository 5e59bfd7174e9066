/**
 * A byte-for-byte proof that a change keeps rankings: every query of every labelled dataset
 * (the fixtures and ../shared/datasets), top 10 names with scores, one line per query.
 *
 *   npx tsx --conditions=toolsearch-source benchmarks/src/hits-dump.ts out.txt [--embedding] [--max-queries N]
 *
 * Run it before and after a change, then `cmp` the two files. Lexical by default (fast).
 * `--via-saved` searches an engine loaded from the built one's toBytes() instead: `cmp`
 * against a plain run proves a saved index ranks exactly as the engine that saved it.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolSearch } from '@toolsearch/core-search';
import { readDataset } from '@toolsearch/core-search/eval';
import { REPO, SHARED_DATASETS } from './paths.js';

const out = process.argv[2];
if (!out) throw new Error('hits-dump: give an output file');
const embedding = process.argv.includes('--embedding');
const viaSaved = process.argv.includes('--via-saved');
const maxArg = process.argv.indexOf('--max-queries');
const maxQueries = maxArg > 0 ? Number(process.argv[maxArg + 1]) : Number.POSITIVE_INFINITY;
const shared = SHARED_DATASETS;
const files = [
  join(REPO, 'fixtures/queries/toolsearch-queries.json'),
  ...(existsSync(shared)
    ? readdirSync(shared)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => join(shared, f))
    : []),
];
const lines: string[] = [];
for (const file of files) {
  const dataset = readDataset(file);
  if (dataset.queries.length === 0) continue;
  const options = embedding ? {} : { embedding: false as const };
  const built = new ToolSearch({ tools: dataset.tools, ...options });
  await built.ready();
  const engine = viaSaved ? ToolSearch.load(built.toBytes(), options) : built;
  await engine.ready();
  for (const query of dataset.queries.slice(0, maxQueries)) {
    const response = await engine.search(query.query, { limit: 10 });
    const hits = response.results.map((r) => `${r.name}:${r.score.toPrecision(12)}`).join(' ');
    lines.push(`${dataset.name}\t${query.id}\t${hits}\t${response.toolsets.map((t) => t.toolset).join(',')}`);
  }
  process.stderr.write(`hits-dump: ${dataset.name} ${dataset.queries.length} queries\n`);
}
writeFileSync(out, `${lines.join('\n')}\n`);
