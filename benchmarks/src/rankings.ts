/**
 * Rankings as text, one line per query (dataset, query id, top 10 names with scores, suggested
 * toolsets), and their digests. A change that must not move rankings (a speed-up, a refactor)
 * proves it by leaving these lines byte-identical: `hits-dump.ts` writes them for every
 * labelled dataset, `hits-dump.ts --record` stores their digests in
 * benchmarks/results/rankings.json, `--check` compares a new run against that file, and
 * benchmarks/test/rankings.test.ts recomputes the fixtures' digests on every `pnpm test`.
 * A change meant to move rankings records the file again, so the move shows in review.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ToolSearch } from '@toolsearch/core-search';
import type { Dataset } from '@toolsearch/core-search/eval';
import { REPO, SHARED_DATASETS } from './paths.js';

/** How many hits a ranking line holds. */
export const RANKING_DEPTH = 10;
/** Significant digits of a score in a line: enough to see any change that can reorder hits. */
const SCORE_DIGITS = 12;

export type RankingMode = 'lexical' | 'hybrid';

/** The fixtures' query file: always present, and the one the tests recompute. */
export const FIXTURE_QUERIES = join(REPO, 'fixtures/queries/toolsearch-queries.json');

/** Every labelled dataset: the fixtures, then ../shared/datasets (when present) by file name. */
export function rankingFiles(): string[] {
  return [
    FIXTURE_QUERIES,
    ...(existsSync(SHARED_DATASETS)
      ? readdirSync(SHARED_DATASETS)
          .filter((f) => f.endsWith('.json'))
          .sort()
          .map((f) => join(SHARED_DATASETS, f))
      : []),
  ];
}

/** One line per query of the dataset, in the dataset's order (at most `maxQueries`). */
export async function rankingLines(
  dataset: Dataset,
  mode: RankingMode,
  {
    maxQueries = Number.POSITIVE_INFINITY,
    viaSaved = false,
  }: { maxQueries?: number; viaSaved?: boolean } = {},
): Promise<string[]> {
  const options = mode === 'lexical' ? { embedding: false as const } : {};
  const built = new ToolSearch({ tools: dataset.tools, ...options });
  await built.ready();
  // viaSaved: search an engine loaded from the built one's toBytes(); the same lines prove a
  // saved index ranks exactly as the engine that saved it.
  const engine = viaSaved ? ToolSearch.load(built.toBytes(), options) : built;
  await engine.ready();
  const lines: string[] = [];
  for (const query of dataset.queries.slice(0, maxQueries)) {
    const response = await engine.search(query.query, { limit: RANKING_DEPTH });
    const hits = response.results.map((r) => `${r.name}:${r.score.toPrecision(SCORE_DIGITS)}`).join(' ');
    lines.push(`${dataset.name}\t${query.id}\t${hits}\t${response.toolsets.map((t) => t.toolset).join(',')}`);
  }
  return lines;
}

/** sha256 of the lines, each ended by a newline (the bytes hits-dump writes). */
export function digestOf(lines: readonly string[]): string {
  const hash = createHash('sha256');
  for (const line of lines) hash.update(`${line}\n`);
  return hash.digest('hex');
}

export interface DatasetRankings {
  queries: number;
  sha256: string;
}

/** benchmarks/results/rankings.json: digests per mode and dataset name. */
export interface RankingsRecord {
  study: 'rankings';
  meta: unknown;
  depth: number;
  modes: Record<RankingMode, Record<string, DatasetRankings>>;
}
