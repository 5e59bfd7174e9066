/**
 * `pnpm bench:readme`: renders the measured tables of the README and of core-search's DESIGN.md
 * from benchmarks/results/*.json, between marker comments, so the figures quoted are the
 * figures measured. benchmarks/test/readme.test.ts fails when a doc and the results disagree.
 *
 *   <!-- generated:NAME: pnpm bench:readme -->
 *   ...table...
 *   <!-- /generated:NAME -->
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { adapterBlocks } from './adapter-readme.js';
import type { CompareResult } from './compare.js';
import { type FusedResult, fusedLosses } from './fused-lexical.js';
import type { GatewayStartResult } from './gateway-start.js';
import type { LearningResult } from './learning.js';
import { isMain, REPO, RESULTS } from './paths.js';
import { metric, ms } from './report/format.js';
import type { DatasetResult, RunMeta, SegmentMetrics, StudyResult } from './results.js';
import type { ScaleResult } from './scale.js';
import {
  type CompareHistory,
  compareRunsTable,
  compareTable,
  type EmbeddingResult,
  largeLines,
  linkRef,
  pathRef,
  speedTable,
} from './speed-tables.js';
import type { TokensResult } from './tokens.js';

export const README = join(REPO, 'README.md');
/** Ships in the core-search package: its blocks name results files by path, not by link. */
export const DESIGN = join(REPO, 'packages/core-search/DESIGN.md');
/** Ships in the adapter package: its blocks (adapter-readme.ts) name results files by path. */
export const ADAPTER_README = join(REPO, 'packages/mcp-adapter/README.md');

export interface ReadmeResults {
  ablation: StudyResult | undefined;
  learning: LearningResult | undefined;
  fused: FusedResult | undefined;
  /** scripts/release-test.mjs --record under Node 20 and 24. */
  release?: { node20: ReleaseResult | undefined; node24: ReleaseResult | undefined };
  /** pnpm bench:fuzz. */
  fuzz?: FuzzResult | undefined;
  /** pnpm bench --only scale / embedding / compare; every recorded compare run. */
  scale?: ScaleResult | undefined;
  embedding?: EmbeddingResult | undefined;
  compare?: CompareResult | undefined;
  compareHistory?: CompareHistory | undefined;
  /** pnpm bench --only tokens. */
  tokens?: TokensResult | undefined;
  /** pnpm bench --only gateway-start. */
  gatewayStart?: GatewayStartResult | undefined;
}

/** What scripts/release-test.mjs --record writes (the fields the README quotes). */
export interface ReleaseResult {
  meta: RunMeta & { loadavg?: number };
  tarballs: Record<string, number>;
  install: { mode: string; seconds: number; packages: number };
  nodeModules: { diskMB: number; apparentMB: number };
  cli: {
    query: string;
    firstSearchSeconds: number;
    /** Since the CLI caches its built index: the second search loads it. */
    secondSearchSeconds: number;
    /** The second search with --no-cache (rebuilt from the tools; absent in runs before the index cache). */
    secondSearchNoIndexCacheSeconds?: number;
  };
  gatewayHandshakeSeconds: number | null;
}

/** What benchmarks/src/fuzz.ts writes (the fields the README quotes). */
export interface FuzzResult {
  meta: RunMeta & { loadavg?: number };
  targetMs: number;
  library: {
    tools: number;
    queries: number;
    maxChars: number;
    p50Ms: number;
    p99Ms: number;
    worstMs: number;
    withinTarget: boolean;
    worst: { family: string; chars: number; ms: number }[];
  };
  gateway: {
    tools: number;
    bigQueryChars: number;
    bigQueryWorstMs: number;
    otherAlone: { searches: number; p50Ms: number; p99Ms: number; worstMs: number };
    otherDuring: { searches: number; p50Ms: number; p99Ms: number; worstMs: number };
    worstDelayMs: number;
    noiseMs: number;
    p99DelayMs: number;
    gatewayCpuMsPer4MbQuery: number;
    withinTarget: boolean;
    cpuWithinTarget: boolean;
  };
}

export function readResults(dir = RESULTS): ReadmeResults {
  const read = <T>(file: string): T | undefined =>
    existsSync(join(dir, file)) ? (JSON.parse(readFileSync(join(dir, file), 'utf8')) as T) : undefined;
  return {
    ablation: read<StudyResult>('ablation.json'),
    learning: read<LearningResult>('learning.json'),
    fused: read<FusedResult>('fused-lexical.json'),
    release: {
      node20: read<ReleaseResult>('release-node20.json'),
      node24: read<ReleaseResult>('release-node24.json'),
    },
    fuzz: read<FuzzResult>('fuzz.json'),
    scale: read<ScaleResult>('scale.json'),
    embedding: read<EmbeddingResult>('embedding.json'),
    compare: read<CompareResult>('compare.json'),
    compareHistory: read<CompareHistory>('compare-history.json'),
    tokens: read<TokensResult>('tokens.json'),
    gatewayStart: read<GatewayStartResult>('gateway-start.json'),
  };
}

function measured(meta: RunMeta, file: string, command: string): string {
  return `Commit \`${meta.commit}\`${meta.dirty ? ' (uncommitted changes)' : ''}, ${meta.date.slice(0, 10)}, \`${command}\`: [${file}](benchmarks/results/${file}).`;
}

/** The quality table's columns: component rows (components.ts) by id. */
const QUALITY_COLUMNS: readonly { id: string; label: string }[] = [
  { id: 'pack-lexical', label: 'lexical-only' },
  { id: 'pack', label: 'fused (default)' },
  { id: 'no-pack', label: 'no pack' },
  { id: 'pack-loso', label: 'pack, leave-one-server-out' },
  { id: 'learned', label: 'pack + learned (5-fold)' },
];

interface QualityRows {
  name: string;
  segments: string[];
  rows: readonly { id: string; metrics: Record<string, SegmentMetrics> }[];
}

function fixtureRows(d: DatasetResult): QualityRows {
  return {
    name: d.file.replace(/^fixtures\/queries\//, '').replace(/\.json$/, ''),
    segments: d.segments,
    rows: d.components ?? [],
  };
}

/** Fixtures and holdout (ablation.json) then the public datasets (fused-lexical.json): R@5 / MRR per column. */
export function qualityTable(ablation: StudyResult | undefined, fused: FusedResult | undefined): string[] {
  const groups: QualityRows[] = [
    ...(ablation?.datasets.filter((d) => d.components !== undefined).map(fixtureRows) ?? []),
    ...(fused?.datasets.map((d) => ({ name: d.key, segments: d.segments, rows: d.rows })) ?? []),
  ];
  const sources = [
    ...(ablation ? [measured(ablation.meta, 'ablation.md', 'pnpm bench --only ablation')] : []),
    ...(fused ? [measured(fused.meta, 'fused-lexical.md', fused.command)] : []),
  ];
  const lines = [
    `${sources.join(' ')} Cells are R@5 / MRR; – where the pack recognises none of the tools.`,
    '',
    `| dataset, segment (queries) | ${QUALITY_COLUMNS.map((c) => c.label).join(' | ')} |`,
    `| --- | ${QUALITY_COLUMNS.map(() => '---:').join(' | ')} |`,
  ];
  for (const group of groups) {
    for (const segment of group.segments) {
      const cells = QUALITY_COLUMNS.map((c) => {
        const m = group.rows.find((row) => row.id === c.id)?.metrics[segment];
        return m ? `${metric(m.r5)} / ${metric(m.mrr)}` : '–';
      });
      const n = group.rows[0]?.metrics[segment]?.queries ?? 0;
      const label = group.segments.length > 1 ? `${group.name}, ${segment}` : group.name;
      lines.push(`| ${label} (${n.toLocaleString('en-US')}) | ${cells.join(' | ')} |`);
    }
  }
  return lines;
}

/** One line: where all defaults are below lexical-only in R@5 or MRR, over every dataset and segment measured. */
export function lossesLine(ablation: StudyResult | undefined, fused: FusedResult | undefined): string[] {
  const losses = fusedLosses([
    ...(ablation?.datasets.map((d) => ({
      key: fixtureRows(d).name,
      segments: d.segments,
      rows: d.components ?? [],
    })) ?? []),
    ...(fused?.datasets ?? []),
  ]);
  return [
    losses.length === 0
      ? '**Fused below lexical-only:** nowhere. All defaults are at or above `--disable embedding` in R@5 and MRR on every dataset and segment above.'
      : `**Fused below lexical-only** (R@5 or MRR, all defaults against \`--disable embedding\`): ${losses.join('; ')}.`,
  ];
}

/** The strategy ablation on the fixtures: R@5 per segment and p50 latency, for every configuration and the baseline. */
export function strategyTable(ablation: StudyResult): string[] {
  const d = ablation.datasets[0];
  if (!d) return [];
  const lines = [
    `${measured(ablation.meta, 'ablation.md', 'pnpm bench --only ablation')} R@5 on \`${d.file}\` (${d.queries} queries).`,
    '',
    `| configuration | ${d.segments.join(' | ')} | p50 ms |`,
    `| --- | ${d.segments.map(() => '---:').join(' | ')} | ---: |`,
  ];
  for (const c of [...d.configs, ...d.baselines]) {
    const cells = d.segments.map((segment) => metric(c.metrics[segment]?.r5));
    lines.push(`| ${c.label} | ${cells.join(' | ')} | ${c.latency ? ms(c.latency.p50Ms) : '–'} |`);
  }
  return lines;
}

/** On the held-out split after learning 0/10/50/100% of the history: R@5 / MRR / nDCG@10, fused and lexical. */
export function learningTable(learning: LearningResult): string[] {
  const fractions = learning.curves[0]?.points.map((p) => p.fraction) ?? [];
  const lines = [
    `${measured(learning.meta, 'learning.md', learning.command)} Test split only; cells are R@5 / MRR / nDCG@10 ` +
      'with all defaults, and lexical-only below.',
    '',
    `| dataset (test queries) | ranking | ${fractions.map((f) => `${Math.round(f * 100)}% of history`).join(' | ')} |`,
    `| --- | --- | ${fractions.map(() => '---:').join(' | ')} |`,
  ];
  for (const curve of learning.curves) {
    for (const mode of ['fused', 'lexical'] as const) {
      const cells = curve.points.map((p) => {
        const m = p[mode].overall;
        return m ? `${metric(m.r5)} / ${metric(m.mrr)} / ${metric(m.ndcg10)}` : '–';
      });
      const label = mode === 'fused' ? `${curve.key} (${curve.test})` : '';
      lines.push(`| ${label} | ${mode === 'fused' ? 'fused' : 'lexical-only'} | ${cells.join(' | ')} |`);
    }
  }
  return lines;
}

const seconds = (s: number | null | undefined) => (s === null || s === undefined ? '–' : `${s.toFixed(1)} s`);

/** The release test under Node 20 and 24: install size, install time, CLI and gateway times. */
export function releaseTable(node20: ReleaseResult | undefined, node24: ReleaseResult | undefined): string[] {
  const runs = [
    ['Node 20', node20],
    ['Node 24', node24],
  ].filter((r): r is [string, ReleaseResult] => r[1] !== undefined);
  const row = (label: string, cell: (r: ReleaseResult) => string) =>
    `| ${label} | ${runs.map(([, r]) => cell(r)).join(' | ')} |`;
  const sources = runs.map(
    ([name, r]) =>
      `${name}: commit \`${r.meta.commit}\`${r.meta.dirty ? ' (uncommitted changes)' : ''}, ${r.meta.date.slice(0, 10)}, [release-node${name.slice(5)}.json](benchmarks/results/release-node${name.slice(5)}.json).`,
  );
  return [
    `\`node scripts/release-test.mjs --record\`. ${sources.join(' ')} Wall times on a shared 2-core machine, at the load average in the last row.`,
    '',
    `| release test | ${runs.map(([name]) => name).join(' | ')} |`,
    `| --- | ${runs.map(() => '---:').join(' | ')} |`,
    row(
      '`node_modules` on disk (apparent)',
      (r) => `${r.nodeModules.diskMB.toFixed(1)} MB (${r.nodeModules.apparentMB.toFixed(1)} MB)`,
    ),
    row('tarballs (core-search + mcp-adapter)', (r) =>
      Object.values(r.tarballs)
        .map((bytes) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.round(bytes / 1e3)} kB`))
        .join(' + '),
    ),
    row('packages installed, install scripts', (r) => `${r.install.packages}, none`),
    row('`npm install` of both tarballs', (r) => `${seconds(r.install.seconds)} (${r.install.mode})`),
    row('first CLI search (cold embedding cache)', (r) => seconds(r.cli.firstSearchSeconds)),
    row('second CLI search (the cached index, where the run had one)', (r) =>
      seconds(r.cli.secondSearchSeconds),
    ),
    row('second CLI search with `--no-cache` (index rebuilt)', (r) =>
      seconds(r.cli.secondSearchNoIndexCacheSeconds),
    ),
    row('gateway: spawn, initialize, tools/list', (r) => seconds(r.gatewayHandshakeSeconds)),
    row('machine load average during the run', (r) =>
      r.meta.loadavg === undefined ? '–' : String(Math.round(r.meta.loadavg)),
    ),
  ];
}

/** bench:fuzz: the library's worst query and the gateway under 4 MB queries. */
export function fuzzTable(fuzz: FuzzResult): string[] {
  const { library: l, gateway: g, targetMs } = fuzz;
  const worst = l.worst[0];
  const triple = (s: { p50Ms: number; p99Ms: number; worstMs: number }) =>
    `${ms(s.p50Ms)} / ${ms(s.p99Ms)} / ${ms(s.worstMs)} ms`;
  return [
    `${measured(fuzz.meta, 'fuzz.json', 'pnpm bench:fuzz')}${fuzz.meta.loadavg === undefined ? '' : ` Load average ${fuzz.meta.loadavg} on ${fuzz.meta.machine.cores} cores.`}`,
    '',
    '| measurement | result | target |',
    '| --- | --- | --- |',
    `| library, ${l.tools} tools: ${l.queries} queries up to ${(l.maxChars / 1e6).toFixed(0)} MB, p50 / p99 / worst | ${ms(l.p50Ms)} / ${ms(l.p99Ms)} / ${ms(l.worstMs)} ms${worst ? ` (worst: ${worst.family.replace(/"/g, '`')}, ${worst.chars} chars)` : ''} | no query > ${targetMs} ms: ${l.withinTarget ? 'met' : 'not met'} |`,
    `| gateway, ${g.tools} tools: another session's search alone (${g.otherAlone.searches}), p50 / p99 / worst | ${triple(g.otherAlone)} | |`,
    `| the same while one session sends 4 MB queries (${g.otherDuring.searches}), p50 / p99 / worst | ${triple(g.otherDuring)} (each 4 MB query ≤ ${ms(g.bigQueryWorstMs)} ms) | |`,
    `| gateway CPU per 4 MB \`search_tools\` query (body, parse, checks, search) | ${ms(g.gatewayCpuMsPer4MbQuery)} ms | delay ≤ ${targetMs} ms: ${g.cpuWithinTarget ? 'met (CPU bound)' : 'not met'} |`,
    `| worst search during 4 MB queries over the lone median | ${ms(g.worstDelayMs)} ms (noise floor, lone worst over lone median: ${ms(g.noiseMs)} ms; p99 +${ms(g.p99DelayMs)} ms) | ${g.withinTarget ? 'met' : 'not shown by wall clock'} |`,
  ];
}

/** The MCP adapter's token figures: eager lists against the gateway's lazy ones. */
export function tokensTable(tokens: TokensResult): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const { registry: r, example: e } = tokens;
  const searches = e.searches.map((s) => s.tokens);
  const low = Math.min(...searches);
  const high = Math.max(...searches);
  return [
    `${measured(tokens.meta, 'tokens.json', tokens.command)} Counted with ${tokens.tokenizer}. The registry row ` +
      "sums its servers' recorded `tools/list` answers, which kept no output schemas (a lower bound: the same " +
      `three reference servers count ${n(r.exampleServersEager)} there against ${n(e.eager)} live); the other rows ` +
      'are the reference servers of `packages/mcp-adapter/examples/mcp.json`, started over stdio.',
    '',
    '| what the client receives | tokens (cl100k) |',
    '| --- | ---: |',
    `| eager \`tools/list\` of the ${r.tools} tools of the ${r.servers}-server registry | ${n(r.eager)} |`,
    `| eager \`tools/list\` of ${e.servers.join(' + ')} (${e.tools} tools) | ${n(e.eager)} |`,
    `| lazy initial list through the gateway (${e.metaToolCount} meta-tools${e.lazyInitial === e.metaTools ? '' : ' and always-loaded tools'}) | ${n(e.lazyInitial)} |`,
    `| after loading the ${e.loaded.toolset} toolset (${e.loaded.tools} tools) | ${n(e.loaded.tokens)} |`,
    `| a 5-hit \`search_tools\` answer (${searches.length} queries) | ${low === high ? n(low) : `${n(low)}–${n(high)}`} |`,
  ];
}

export function renderBlocks(results: ReadmeResults): Record<string, string> {
  const blocks: Record<string, string> = {};
  if (results.ablation || results.fused) {
    blocks['quality-table'] = qualityTable(results.ablation, results.fused).join('\n');
    blocks['fused-losses'] = lossesLine(results.ablation, results.fused).join('\n');
  }
  if (results.ablation) blocks['strategy-table'] = strategyTable(results.ablation).join('\n');
  if (results.learning) blocks['learning-table'] = learningTable(results.learning).join('\n');
  if (results.release?.node20 || results.release?.node24)
    blocks['release-table'] = releaseTable(results.release.node20, results.release.node24).join('\n');
  if (results.fuzz) blocks['fuzz-table'] = fuzzTable(results.fuzz).join('\n');
  if (results.tokens) blocks['tokens-table'] = tokensTable(results.tokens).join('\n');
  if (results.scale || results.embedding)
    blocks['speed-table'] = speedTable(results.scale, results.embedding).join('\n');
  if (results.compare) {
    blocks['compare-table'] = compareTable(results.compare, linkRef).join('\n');
    blocks['compare-large'] = largeLines(results.compare).join('\n');
  }
  if (results.compare || results.compareHistory)
    blocks['compare-runs'] = compareRunsTable(results.compareHistory, results.compare, linkRef).join('\n');
  return aligned(blocks);
}

/** DESIGN.md's blocks: the compare runs behind its speed section, files named by path. */
export function renderDesignBlocks(results: ReadmeResults): Record<string, string> {
  const blocks: Record<string, string> = {};
  if (results.compare || results.compareHistory)
    blocks['compare-runs'] = compareRunsTable(results.compareHistory, results.compare, pathRef).join('\n');
  if (results.compare) blocks['compare-large'] = largeLines(results.compare).join('\n');
  return aligned(blocks);
}

/** Each doc with generated blocks, and its blocks. */
export function renderDocs(results: ReadmeResults): { file: string; blocks: Record<string, string> }[] {
  return [
    { file: README, blocks: renderBlocks(results) },
    { file: DESIGN, blocks: renderDesignBlocks(results) },
    { file: ADAPTER_README, blocks: aligned(adapterBlocks(results)) },
  ];
}

function aligned(blocks: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(blocks).map(([name, text]) => [name, alignTables(text)]));
}

/**
 * Pads a block's table cells to equal widths (right-aligned where the rule says `---:`),
 * so the README reads as a table in plain text too. Other lines pass through.
 */
export function alignTables(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!lines[i]!.startsWith('|')) {
      out.push(lines[i]!);
      i++;
      continue;
    }
    const table: string[][] = [];
    while (i < lines.length && lines[i]!.startsWith('|')) {
      table.push(
        lines[i]!.slice(1, -1)
          .split(' | ')
          .map((c) => c.trim()),
      );
      i++;
    }
    const rule = table[1] ?? [];
    const right = rule.map((c) => c.endsWith(':'));
    const widths = rule.map((_, col) =>
      Math.max(3, ...table.map((row, r) => (r === 1 ? 3 : (row[col] ?? '').length))),
    );
    for (const [r, row] of table.entries()) {
      const cells = widths.map((w, col) => {
        if (r === 1) return right[col] ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w);
        const c = row[col] ?? '';
        return right[col] ? c.padStart(w) : c.padEnd(w);
      });
      out.push(`| ${cells.join(' | ')} |`);
    }
  }
  return out.join('\n');
}

function markers(name: string): { open: string; close: string } {
  return { open: `<!-- generated:${name}: pnpm bench:readme -->`, close: `<!-- /generated:${name} -->` };
}

/** The doc with each block's text between its markers. Throws when a marker pair is missing. */
export function replaceBlocks(readme: string, blocks: Record<string, string>): string {
  let out = readme;
  for (const [name, text] of Object.entries(blocks)) {
    const { open, close } = markers(name);
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start)
      throw new Error(`bench:readme: the doc has no "${open}" ... "${close}" block`);
    out = `${out.slice(0, start + open.length)}\n${text}\n${out.slice(end)}`;
  }
  return out;
}

/** The text between a block's markers, or undefined. */
export function blockOf(readme: string, name: string): string | undefined {
  const { open, close } = markers(name);
  const start = readme.indexOf(open);
  const end = readme.indexOf(close);
  if (start < 0 || end < start) return undefined;
  return readme
    .slice(start + open.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

if (isMain(import.meta.url)) {
  for (const { file, blocks } of renderDocs(readResults())) {
    writeFileSync(file, replaceBlocks(readFileSync(file, 'utf8'), blocks));
    process.stderr.write(
      `bench:readme: wrote ${Object.keys(blocks).join(', ')} into ${relative(REPO, file)}\n`,
    );
  }
}
