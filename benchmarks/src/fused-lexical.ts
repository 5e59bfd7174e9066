/**
 * `pnpm bench:fused`: all defaults against `--disable embedding` (lexical-only) on every
 * ../shared/datasets file that has queries, per segment where the queries have one, with
 * the issue 13 rows beside them (components.ts): the pack plus learned phrasings
 * (cross-fitted, learned from the other folds), and, where the pack covers some of the
 * dataset's tools, no pack and a leave-one-server-out pack. Large files are cut to a
 * deterministic subsample (core-search's selectQueries) of what is asked; learning still
 * draws on all other-fold queries. Written to results/fused-lexical.{json,md}, with the
 * places where fused is below lexical-only in R@5 or MRR.
 *
 *   pnpm bench:fused
 *   pnpm bench:fused --datasets bfcl,metatool --max-queries 300
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PhrasingPack } from '@toolsearch/core-search';
import { readDataset, selectQueries } from '@toolsearch/core-search/eval';
import { type ComponentId, runComponents } from './components.js';
import { runMeta } from './environment.js';
import { isMain, REPO, RESULTS, SHARED_DATASETS } from './paths.js';
import { metric } from './report/format.js';
import type { RunMeta, SegmentMetrics } from './results.js';
import { segmentMetrics, segmentsOf } from './segments.js';

/**
 * Above this many queries a dataset is subsampled (only MetaTool, 21k). Whole datasets
 * otherwise: at 500 queries a fused-vs-lexical MRR gap of .0005 on Seal-Tools was the
 * subsample's noise (the whole set: fused ahead). 3,000 runs in about 90 s on 2 cores.
 */
export const DEFAULT_MAX_QUERIES = 3000;

export interface FusedRow {
  /** `<variant>` (fused) or `<variant>-lexical` (embedding off); `pack` is all defaults. */
  id: string;
  label: string;
  metrics: Record<string, SegmentMetrics>;
}

export interface FusedDataset {
  key: string;
  file: string;
  tools: number;
  /** Queries asked, and how many the file holds. */
  queries: number;
  of: number;
  /** Tools of the file the shipped phrasing pack recognises. */
  packTools: number;
  /** Segment columns, "overall" last. */
  segments: string[];
  rows: FusedRow[];
}

export interface FusedResult {
  study: 'fused-lexical';
  meta: RunMeta;
  command: string;
  method: string;
  datasets: FusedDataset[];
  skipped: { file: string; reason: string }[];
}

/** Four decimals: a loss can be smaller than the tables' three. */
function fine(value: number): string {
  return value.toFixed(4);
}

/** Below by more than float noise. */
const EPSILON = 1e-9;

/**
 * Where a fused row is below its lexical twin in R@5 or MRR, per dataset and segment:
 * `<dataset>/<segment>: R@5 0.7000 < 0.7100` (fused < lexical). `variant` picks the pair (default: all defaults).
 */
export function fusedLosses(
  datasets: readonly {
    key: string;
    segments: readonly string[];
    rows: readonly { id: string; metrics: Record<string, Pick<SegmentMetrics, 'r5' | 'mrr'>> }[];
  }[],
  variant = 'pack',
): string[] {
  const losses: string[] = [];
  for (const d of datasets) {
    const fused = d.rows.find((row) => row.id === variant);
    const lexical = d.rows.find((row) => row.id === `${variant}-lexical`);
    if (!fused || !lexical) continue;
    for (const segment of d.segments) {
      const f = fused.metrics[segment];
      const l = lexical.metrics[segment];
      if (!f || !l) continue;
      if (f.r5 < l.r5 - EPSILON) losses.push(`${d.key}/${segment}: R@5 ${fine(f.r5)} < ${fine(l.r5)}`);
      if (f.mrr < l.mrr - EPSILON) losses.push(`${d.key}/${segment}: MRR ${fine(f.mrr)} < ${fine(l.mrr)}`);
    }
  }
  return losses;
}

export function renderFusedMarkdown(result: FusedResult): string {
  const { meta } = result;
  const losses = fusedLosses(result.datasets);
  const lines = [
    '# Fused against lexical-only on the public datasets',
    '',
    `Commit ${meta.commit}${meta.dirty ? ' (dirty)' : ''}, ${meta.date}, ${meta.machine.cpu} (${meta.machine.cores} cores), Node ${meta.machine.node}. Command: \`${result.command}\`.`,
    '',
    result.method,
    '',
    losses.length === 0
      ? '**Fused (all defaults) is not below lexical-only (`--disable embedding`) in R@5 or MRR on any dataset or segment.**'
      : `**Fused (all defaults) is below lexical-only (\`--disable embedding\`) in: ${losses.join('; ')}.**`,
    '',
  ];
  for (const d of result.datasets) {
    lines.push(
      `## ${d.key} (${d.file})`,
      '',
      `${d.tools} tools (${d.packTools} recognised by the phrasing pack), ${d.queries} queries` +
        (d.queries < d.of ? ` (deterministic subsample of ${d.of})` : '') +
        '.',
      '',
    );
    for (const segment of d.segments) {
      const n = d.rows[0]?.metrics[segment]?.queries ?? 0;
      if (d.segments.length > 1) lines.push(`### ${segment} (${n} queries)`, '');
      lines.push(
        '| configuration | R@1 | R@5 | R@10 | MRR | nDCG@10 |',
        '| --- | ---: | ---: | ---: | ---: | ---: |',
      );
      for (const row of d.rows) {
        const m = row.metrics[segment];
        lines.push(
          `| ${row.label} | ${metric(m?.r1)} | ${metric(m?.r5)} | ${metric(m?.r10)} | ${metric(m?.mrr)} | ${metric(m?.ndcg10)} |`,
        );
      }
      lines.push('');
    }
  }
  if (result.skipped.length > 0) {
    lines.push('## Skipped', '');
    for (const s of result.skipped) lines.push(`- ${s.file}: ${s.reason}`);
    lines.push('');
  }
  return lines.join('\n');
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { datasets: { type: 'string' }, 'max-queries': { type: 'string' } },
    strict: true,
  });
  const maxQueries =
    values['max-queries'] === undefined ? DEFAULT_MAX_QUERIES : Number(values['max-queries']);
  if (!Number.isInteger(maxQueries) || maxQueries < 1) {
    throw new Error(`bench:fused: --max-queries must be a positive integer, got "${values['max-queries']}"`);
  }
  const wanted = values.datasets?.split(',').filter((d) => d !== '');
  const start = performance.now();
  const meta = runMeta(REPO);
  const datasets: FusedDataset[] = [];
  const skipped: FusedResult['skipped'] = [];
  const files = existsSync(SHARED_DATASETS)
    ? readdirSync(SHARED_DATASETS)
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];
  if (files.length === 0) log('bench:fused: ../shared/datasets is not present; nothing to run');
  const pack = PhrasingPack.shipped();
  for (const file of files) {
    const key = file.replace(/\.json$/, '');
    if (wanted !== undefined && !wanted.includes(key)) continue;
    const shown = `../shared/datasets/${file}`;
    const dataset = readDataset(join(SHARED_DATASETS, file));
    if (dataset.queries.length === 0) {
      skipped.push({ file: shown, reason: 'tools only, no queries' });
      continue;
    }
    const queries = selectQueries(dataset.queries, maxQueries);
    const segments = segmentsOf(queries);
    const packTools = dataset.tools.filter((tool) => pack.match(tool) !== undefined).length;
    const variants: ComponentId[] =
      packTools > 0 ? ['pack', 'no-pack', 'pack-loso', 'learned'] : ['pack', 'learned'];
    log(
      `bench:fused: ${key}: ${dataset.tools.length} tools, ${queries.length} of ${dataset.queries.length} queries`,
    );
    const rows = await runComponents(dataset, { queries, variants, log });
    datasets.push({
      key,
      file: shown,
      tools: dataset.tools.length,
      queries: queries.length,
      of: dataset.queries.length,
      packTools,
      segments,
      rows: rows.map((row) => ({
        id: row.id,
        label:
          row.id === 'pack'
            ? 'all defaults (fused)'
            : row.id === 'pack-lexical'
              ? 'lexical-only (`--disable embedding`)'
              : row.label,
        metrics: segmentMetrics(row.result.metrics, row.result.segments, segments),
      })),
    });
  }
  meta.wallTimeMs = performance.now() - start;
  const result: FusedResult = {
    study: 'fused-lexical',
    meta,
    command: ['pnpm bench:fused', ...process.argv.slice(2)].join(' '),
    method:
      `Every ../shared/datasets file with queries; above ${maxQueries} queries, the deterministic subsample of core-search's selectQueries(). ` +
      '"All defaults" is the engine as shipped (phrasing pack on); "lexical-only" the same engine with the embedding switched off per query, ' +
      'as `toolsearch eval --disable embedding` does. "pack + learned (5-fold)": the file\'s queries cut into 5 folds by query ' +
      '(seeded; the same text always in one fold), each asked query answered by an engine that learned every query of the other folds ' +
      'through `engine.learn`, never its own. No pack and the leave-one-server-out pack are run where the pack recognises some of the tools. ' +
      'Each search returns 20 results.',
    datasets,
    skipped,
  };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'fused-lexical.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(RESULTS, 'fused-lexical.md'), renderFusedMarkdown(result));
  const losses = fusedLosses(datasets);
  log(
    losses.length === 0
      ? 'bench:fused: fused is never below lexical-only'
      : `bench:fused: fused below lexical-only: ${losses.join('; ')}`,
  );
  log(
    `bench:fused: wrote benchmarks/results/fused-lexical.{json,md} in ${(meta.wallTimeMs / 1000).toFixed(1)} s`,
  );
}

if (isMain(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
