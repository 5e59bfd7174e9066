/**
 * A byte-for-byte proof that a change keeps rankings: every query of every labelled dataset
 * (the fixtures and ../shared/datasets), top 10 names with scores, one line per query
 * (rankings.ts).
 *
 *   npx tsx --conditions=toolsearch-source benchmarks/src/hits-dump.ts out.txt [--embedding] [--via-saved] [--max-queries N]
 *   npx tsx --conditions=toolsearch-source benchmarks/src/hits-dump.ts --record   # both modes -> results/rankings.json
 *   npx tsx --conditions=toolsearch-source benchmarks/src/hits-dump.ts --check    # both modes against it
 *
 * With a file: run it before and after a change, then `cmp` the two files (lexical by default:
 * fast). `--via-saved` searches an engine loaded from the built one's toBytes() instead: `cmp`
 * against a plain run proves a saved index ranks exactly as the engine that saved it. --record stores the digests of both modes (lexical, hybrid with the bundled model) per
 * dataset; --check recomputes them and exits 1 naming every dataset whose rankings moved.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readDataset } from '@toolsearch/core-search/eval';
import { runMeta } from './environment.js';
import { REPO, RESULTS } from './paths.js';
import {
  type DatasetRankings,
  digestOf,
  RANKING_DEPTH,
  type RankingMode,
  type RankingsRecord,
  rankingFiles,
  rankingLines,
} from './rankings.js';

const RECORD = join(RESULTS, 'rankings.json');
const args = process.argv.slice(2);
const maxArg = args.indexOf('--max-queries');
const maxQueries = maxArg >= 0 ? Number(args[maxArg + 1]) : Number.POSITIVE_INFINITY;

async function digests(mode: RankingMode): Promise<Record<string, DatasetRankings>> {
  const out: Record<string, DatasetRankings> = {};
  for (const file of rankingFiles()) {
    const dataset = readDataset(file);
    if (dataset.queries.length === 0) continue;
    const lines = await rankingLines(dataset, mode);
    out[dataset.name] = { queries: lines.length, sha256: digestOf(lines) };
    process.stderr.write(`hits-dump: ${mode} ${dataset.name} ${lines.length} queries (${basename(file)})\n`);
  }
  return out;
}

if (args.includes('--record') || args.includes('--check')) {
  const modes = { lexical: await digests('lexical'), hybrid: await digests('hybrid') };
  if (args.includes('--record')) {
    const record: RankingsRecord = { study: 'rankings', meta: runMeta(REPO), depth: RANKING_DEPTH, modes };
    writeFileSync(RECORD, `${JSON.stringify(record, null, 2)}\n`);
    process.stderr.write(`hits-dump: wrote ${RECORD}\n`);
  } else {
    const recorded = JSON.parse(readFileSync(RECORD, 'utf8')) as RankingsRecord;
    const moved: string[] = [];
    for (const mode of ['lexical', 'hybrid'] as const)
      for (const [name, now] of Object.entries(modes[mode])) {
        const then = recorded.modes[mode][name];
        if (!then) moved.push(`${mode} ${name}: not recorded`);
        else if (then.sha256 !== now.sha256 || then.queries !== now.queries)
          moved.push(`${mode} ${name}: moved`);
      }
    if (moved.length > 0) {
      process.stderr.write(`hits-dump: rankings differ from ${RECORD}:\n  ${moved.join('\n  ')}\n`);
      process.exit(1);
    }
    process.stderr.write('hits-dump: every recorded ranking is unchanged\n');
  }
} else {
  const out = args[0];
  if (!out || out.startsWith('--')) throw new Error('hits-dump: give an output file, --record or --check');
  const mode: RankingMode = args.includes('--embedding') ? 'hybrid' : 'lexical';
  const lines: string[] = [];
  for (const file of rankingFiles()) {
    const dataset = readDataset(file);
    if (dataset.queries.length === 0) continue;
    const viaSaved = args.includes('--via-saved');
    lines.push(...(await rankingLines(dataset, mode, { maxQueries, viaSaved })));
    process.stderr.write(`hits-dump: ${dataset.name} ${dataset.queries.length} queries\n`);
  }
  writeFileSync(out, `${lines.join('\n')}\n`);
}
