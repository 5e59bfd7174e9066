/**
 * The speed, size and side-by-side figures that `pnpm bench:readme` writes into the README and
 * core-search's DESIGN.md, rendered from benchmarks/results/scale.json, embedding.json,
 * compare.json and compare-history.json. Text only: readme.ts reads the files and places the blocks.
 */
import type { CompareResult, LargeResult } from './compare.js';
import { ms } from './report/format.js';
import type { RunMeta } from './results.js';
import type { ScaleResult } from './scale.js';

/** What benchmarks/src/embedding.ts writes (the fields the docs quote). */
export interface EmbeddingResult {
  meta: RunMeta;
  default: {
    model: string;
    tools: number;
    modelLoadMs: number;
    embedOnlyColdMs: number;
    embedOnlyWarmMs: number;
    indexColdMs: number;
    indexWarmMs: number;
    searchHybridMs: { p50: number; p95: number };
    searchLexicalOnlyMs: { p50: number; p95: number };
    vectorScanMs: { p50: number; kind: string; jsFallbackP50: number; vectors: number; dims: number };
    rssDeltaMb: number;
  };
  minilm: {
    modelLoadMs: number;
    indexedSample: number;
    indexSampleMs: number;
    indexExtrapolatedMs: number;
    extrapolatedTo: number;
    queryEmbedMs: { p50: number };
    scanMs: { p50: number; dims: number };
    rssAfterIndexMb: number;
  } | null;
}

/** compare-history.json: every recorded compare run, oldest first. */
export interface CompareHistory {
  runs: CompareResult[];
}

/**
 * The embedding step's targets (the issue that introduced the embedding strategy); the scale
 * targets are recorded in scale.json and the side-by-side ones in compare.json.
 */
export const EMBEDDING_TARGETS = { coldIndexMs: 10_000, warmEmbedMs: 1_000, hybridP50Ms: 5 } as const;

/** A duration for prose: "0.85 ms", "91 ms", "1.4 s", "31 s". */
export function duration(milliseconds: number): string {
  if (milliseconds < 1000) return `${ms(milliseconds)} ms`;
  if (milliseconds < 10_000) return `${(milliseconds / 1000).toFixed(1)} s`;
  return `${Math.round(milliseconds / 1000)} s`;
}

const ratio = (x: number | undefined) => (x === undefined ? '–' : `${x.toFixed(x < 10 ? 2 : 0)}x`);
const megabytes = (x: number | undefined) => (x === undefined ? '–' : `${Math.round(x)} MB`);
const met = (ok: boolean | null | undefined) => (ok ? 'met' : ok === false ? 'missed' : 'not measured');

/**
 * How a doc names a results file: a link from the root README, a path from DESIGN.md (which
 * ships in the package, where repository links would not resolve).
 */
export type FileRef = (file: string) => string;
export const linkRef: FileRef = (file) => `[${file}](benchmarks/results/${file})`;
export const pathRef: FileRef = (file) => `\`benchmarks/results/${file}\``;

function commitOf(meta: RunMeta): string {
  return `\`${meta.commit}\`${meta.dirty ? ' (uncommitted changes)' : ''}`;
}

/** Lexical index and search by registry size (scale.json), then the default model's costs (embedding.json). */
export function speedTable(scale: ScaleResult | undefined, embedding: EmbeddingResult | undefined): string[] {
  const sources = [
    ...(scale
      ? [`\`pnpm bench --only scale\`, commit ${commitOf(scale.meta)}: ${linkRef('scale.json')}.`]
      : []),
    ...(embedding
      ? [`\`pnpm bench --only embedding\`, commit ${commitOf(embedding.meta)}: ${linkRef('embedding.json')}.`]
      : []),
  ];
  const lines = [sources.join(' '), '', '| measurement | result | target |', '| --- | --- | --- |'];
  for (const c of scale?.corpora ?? []) {
    const tools = c.tools.toLocaleString('en-US');
    const indexTarget = c.targets.indexMs;
    lines.push(
      `| index ${tools} tools (${c.label}), lexical | ${duration(c.index.medianMs)} | ${indexTarget === undefined ? '' : `< ${duration(indexTarget)}: ${met(c.index.medianMs < indexTarget)}`} |`,
      `| search p50 / p99, ${tools} tools, lexical | ${ms(c.search.p50Ms)} / ${ms(c.search.p99Ms)} ms | < ${c.targets.searchP50Ms} ms: ${met(c.search.p50Ms < c.targets.searchP50Ms)} |`,
    );
  }
  const d = embedding?.default;
  if (d) {
    const tools = d.tools.toLocaleString('en-US');
    const scan = d.vectorScanMs;
    const kind = scan.kind === 'wasm-simd' ? 'WebAssembly SIMD' : scan.kind;
    const t = EMBEDDING_TARGETS;
    lines.push(
      `| index ${tools} tools with embeddings, cold cache | ${duration(d.indexColdMs)} (embedding alone ${duration(d.embedOnlyColdMs)}) | < ${duration(t.coldIndexMs)}: ${met(d.indexColdMs < t.coldIndexMs)} |`,
      `| index ${tools} tools with embeddings, warm cache | embedding ${duration(d.embedOnlyWarmMs)} (engine ${duration(d.indexWarmMs)}) | < ${duration(t.warmEmbedMs)}: ${met(d.embedOnlyWarmMs < t.warmEmbedMs)} for the embedding step |`,
      `| hybrid search p50 / p95, ${tools} tools, query embedding | ${ms(d.searchHybridMs.p50)} / ${ms(d.searchHybridMs.p95)} ms (lexical ${ms(d.searchLexicalOnlyMs.p50)} ms in the same run) | < ${t.hybridP50Ms} ms: ${met(d.searchHybridMs.p50 < t.hybridP50Ms)} |`,
      `| vector scan alone, ${scan.vectors.toLocaleString('en-US')} × ${scan.dims}, top 100 | ${ms(scan.p50)} ms ${kind} (JavaScript fallback ${ms(scan.jsFallbackP50)} ms) | |`,
      `| default model: load, memory | ${duration(d.modelLoadMs)}, +${Math.round(d.rssDeltaMb)} MB RSS at ${tools} tools | |`,
    );
  }
  const m = embedding?.minilm;
  if (m && d) {
    lines.push(
      `| MiniLM-sized model (random weights, timing only) | load ${duration(m.modelLoadMs)}; index ${m.extrapolatedTo.toLocaleString('en-US')} ≈ ${duration(m.indexExtrapolatedMs)} (from ${m.indexedSample.toLocaleString('en-US')} in ${duration(m.indexSampleMs)}), ${ratio(m.indexExtrapolatedMs / d.embedOnlyColdMs)} the default model's; query embed p50 ${ms(m.queryEmbedMs.p50)} ms; ${m.scanMs.dims}-wide scan ${ms(m.scanMs.p50)} ms; RSS ${(m.rssAfterIndexMb / 1024).toFixed(2)} GB | |`,
    );
  }
  return lines;
}

/** The ~10k side-by-side table of the latest compare run. */
export function compareTable(c: CompareResult, ref: FileRef): string[] {
  const t = c.tenK;
  const header = `\`pnpm bench --only compare\`, commit ${commitOf(c.meta)}, ${c.meta.date.slice(0, 10)}, Node ${c.meta.machine.node.replace(/^v/, '')}, ${c.meta.machine.cores} cores: ${ref('compare.json')}. ${loadLine(c)}`;
  if (!t) return [header];
  const target = (key: string, label: string) => {
    const x = c.targets[key];
    return x ? `${label}: ${met(x.met)}` : '';
  };
  const s = t.search;
  const row = (...cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    header,
    '',
    row(
      `~10k tools (${t.tools.toLocaleString('en-US')})`,
      'toolsearch',
      'MiniSearch 7',
      'wink-bm25 + wink-nlp',
      'target',
    ),
    row('---', '---', '---', '---', '---'),
    row(
      'lexical search p50',
      `${ms(s.toolsearchLexical?.p50Ms)} ms (${ratio(t.ratios.lexicalP50VsWink)} wink)`,
      `${ms(s.minisearch?.p50Ms)} ms`,
      `${ms(s.wink?.p50Ms)} ms`,
      target('lexicalP50VsWink', `<= ${c.targets.lexicalP50VsWink?.target}x wink`),
    ),
    row(
      'lexical index',
      `${duration(t.indexMs.toolsearchLexical)} (${ratio(t.ratios.lexicalIndexVsMiniSearch)} MiniSearch)`,
      duration(t.indexMs.minisearch),
      duration(t.indexMs.wink),
      target('lexicalIndexVsMiniSearch', `<= ${c.targets.lexicalIndexVsMiniSearch?.target}x MiniSearch`),
    ),
    ...(s.toolsearchHybrid
      ? [
          row(
            'hybrid search p50',
            `${ms(s.toolsearchHybrid.p50Ms)} ms (${ratio(t.ratios.hybridP50VsWink)} wink)`,
            '',
            '',
            target('hybridP50VsWink', `<= ${c.targets.hybridP50VsWink?.target}x wink`),
          ),
        ]
      : []),
    ...(t.indexMs.toolsearchHybridWarm !== undefined && t.indexMs.toolsearchHybridCold !== undefined
      ? [
          row(
            'hybrid index, warm / cold cache',
            `${duration(t.indexMs.toolsearchHybridWarm)} (${ratio(t.ratios.hybridWarmIndexVsMiniSearch)} MiniSearch) / ${duration(t.indexMs.toolsearchHybridCold)}`,
            '',
            '',
            `${target('hybridWarmIndexVsMiniSearch', `<= ${c.targets.hybridWarmIndexVsMiniSearch?.target}x`)}; ${target('hybridColdIndexMs', `< ${duration(c.targets.hybridColdIndexMs?.target ?? 0)}`)}`,
          ),
        ]
      : []),
    row(
      `first search after one add(), ${afterAddKind(c)}`,
      afterAdd(c),
      '',
      '',
      target('firstSearchAfterAddVsNormal', `<= ${c.targets.firstSearchAfterAddVsNormal?.target}x`),
    ),
  ];
}

function loadLine(c: CompareResult): string {
  const l = c.loadAverage;
  if (!l) return 'Load average not recorded.';
  const calibration = c.calibrationMs
    ? ` A fixed workload took ${c.calibrationMs.start} ms at the start and ${c.calibrationMs.end} ms at the end (\`calibrationMs\` in \`environment.ts\`: the machine's speed at that moment; lower is faster).`
    : '';
  return `Load average (1 min) ${l.start[0]} at the start, ${l.end[0]} at the end, on ${c.meta.machine.cores} cores.${calibration}`;
}

/**
 * How a run measured the first search after an add: wall or CPU time, and "vs repeat" for
 * runs whose normal search was the same query repeated at once (compare.ts firstSearchAfterAdd).
 */
const afterAddKind = (c: CompareResult) => {
  const a = c.tenK?.afterAdd;
  const kind = a?.firstCpuMedianMs === undefined ? 'wall' : 'CPU';
  return a?.baseline === 'steady' ? kind : `${kind} vs repeat`;
};

function afterAdd(c: CompareResult): string {
  const a = c.tenK?.afterAdd;
  if (!a) return '–';
  const [first, normal] =
    a.firstCpuMedianMs === undefined || a.normalCpuMedianMs === undefined
      ? [a.firstMedianMs, a.normalMedianMs]
      : [a.firstCpuMedianMs, a.normalCpuMedianMs];
  const repeat =
    a.repeatCpuMedianMs === undefined
      ? ''
      : `; the same query repeated at once ${ms(a.repeatCpuMedianMs)} ms`;
  const p90 = a.firstCpuP90Ms === undefined ? '' : `; the first's p90 ${ms(a.firstCpuP90Ms)} ms`;
  const runs =
    a.runRatios === undefined
      ? ''
      : `; the run with the median ratio of ${a.runRatios.map(ratio).join(' / ')}`;
  return `${ms(first)} ms vs ${ms(normal)} ms (${ratio(a.ratio)})${p90}${repeat}${runs}`;
}

/** The ~100k paragraph of the latest compare run: index, search, memory, save and load. */
export function largeLines(c: CompareResult): string[] {
  const lexical = c.large?.find((p) => p.mode === 'lexical');
  const hybrid = c.large?.find((p) => p.mode === 'hybrid');
  if (!lexical) return [];
  const save = lexical.save;
  const after = lexical.afterLoad;
  const targets = (['largeLexicalIndexMs', 'largeLexicalP50Ms', 'largePeakRssMB'] as const)
    .map((key) => {
      const x = c.targets[key];
      if (!x) return undefined;
      const bound =
        key === 'largeLexicalIndexMs'
          ? duration(x.target)
          : key === 'largeLexicalP50Ms'
            ? `${x.target} ms`
            : `${x.target} MB`;
      return `${bound} ${met(x.met)}`;
    })
    .filter((x) => x !== undefined);
  return [
    `At ~100k tools (${lexical.realTools.toLocaleString('en-US')} real tools under mirror server prefixes, ${lexical.tools.toLocaleString('en-US')} in all), lexical: ${largePoint(lexical)}` +
      (save
        ? `; \`toJSON()\` + stringify ${duration(save.toJSONMs + save.stringifyMs)} (${Math.round(save.jsonMB)} MB), parse ${duration(save.parseMs)} + \`load()\` ${duration(save.loadMs)}`
        : '') +
      (after ? `, first search after load ${duration(after.firstSearchMs)}` : '') +
      '.' +
      savedLine(lexical) +
      (hybrid ? ` Hybrid: ${largePoint(hybrid)}.${savedLine(hybrid)}` : '') +
      (targets.length > 0 ? ` Targets (lexical index, p50, peak RSS): ${targets.join(', ')}.` : ''),
  ];
}

/** The binary saved index of a ~100k point (toBytes / ToolSearch.load(bytes)), when the run measured it. */
function savedLine(p: LargeResult): string {
  const saved = p.savedIndex;
  if (!saved) return '';
  return ` Saved index (\`toBytes()\`, ${Math.round(saved.MB)} MB): save ${duration(saved.toBytesMs + saved.writeMs)}, read ${duration(saved.readMs)} + \`load()\` ${duration(saved.loadMs)} (CPU ${duration(saved.loadCpuMs)}), first search ${duration(saved.firstSearchMs)}, ${firstPass(saved)}p50 ${duration(saved.search.p50Ms)}.`;
}

/** "first pass p50 X, then " when the run kept the first pass apart (runs before it measured only that pass). */
function firstPass(p: { firstPass?: { p50Ms: number } }): string {
  return p.firstPass ? `first pass p50 ${duration(p.firstPass.p50Ms)}, then warm ` : 'then ';
}

function largePoint(p: LargeResult): string {
  return `index ${duration(p.indexMs)}, search p50 ${duration(p.search.p50Ms)} / p95 ${duration(p.search.p95Ms)}, heap +${Math.round(p.heapMB)} MB (${(p.bytesPerTool / 1000).toFixed(1)} kB a tool, its JSON included), peak RSS ${megabytes(p.peakRssMB)}`;
}

/**
 * Every recorded compare run, oldest first, one row each: the history behind the targets.
 * The latest run (compare.json) is added when the history does not hold it yet.
 */
export function compareRunsTable(
  history: CompareHistory | undefined,
  latest: CompareResult | undefined,
  ref: FileRef,
): string[] {
  const runs = [...(history?.runs ?? [])];
  if (latest && !runs.some((r) => r.meta.date === latest.meta.date)) runs.push(latest);
  if (runs.length === 0) return [];
  const last = runs[runs.length - 1]!;
  const target = (key: string, unit: (x: number) => string) => {
    const x = last.targets[key];
    return x ? `≤ ${unit(x.target)}` : '';
  };
  const lines = [
    `Every recorded \`pnpm bench --only compare\` run, oldest first: ${ref('compare-history.json')}. Ratios come from one run each (interleaved), yet move between runs with the machine's load. Calibration (from 2026-11-24): a fixed workload's time at the start and the end of the run (\`calibrationMs\` in \`benchmarks/src/environment.ts\`), the machine's speed at that moment; lower is faster.`,
    '',
    '| commit, date (load, 1 min; calibration) | 10k lexical index vs MiniSearch | lexical p50 vs wink | hybrid p50 vs wink | 10k hybrid index, cold | first search after add() | ~100k lexical index | ~100k p50 | ~100k peak RSS | ~100k save / parse + load() |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| target | ${target('lexicalIndexVsMiniSearch', (x) => `${x}x`)} | ${target('lexicalP50VsWink', (x) => `${x}x`)} | ${target('hybridP50VsWink', (x) => `${x}x`)} | ${target('hybridColdIndexMs', duration)} | ${target('firstSearchAfterAddVsNormal', (x) => `${x}x`)} | ${target('largeLexicalIndexMs', duration)} | ${target('largeLexicalP50Ms', (x) => `${x} ms`)} | ${target('largePeakRssMB', (x) => `${x} MB`)} | |`,
  ];
  for (const r of runs) {
    const t = r.tenK;
    const l = r.large?.find((p) => p.mode === 'lexical');
    const loadRange = r.loadAverage
      ? `${Math.round(r.loadAverage.start[0] ?? 0)}–${Math.round(r.loadAverage.end[0] ?? 0)}`
      : '–';
    const calibration = r.calibrationMs
      ? `; calibration ${r.calibrationMs.start}–${r.calibrationMs.end} ms`
      : '';
    const load = `${loadRange}${calibration}`;
    const save = l?.save;
    lines.push(
      `| ${commitOf(r.meta)}, ${r.meta.date.slice(0, 10)} (${load}) | ${ratio(t?.ratios.lexicalIndexVsMiniSearch)} | ${ratio(t?.ratios.lexicalP50VsWink)} | ${ratio(t?.ratios.hybridP50VsWink)} | ${t?.indexMs.toolsearchHybridCold === undefined ? '–' : duration(t.indexMs.toolsearchHybridCold)} | ${t ? `${ratio(t.afterAdd.ratio)} ${afterAddKind(r)}` : '–'} | ${l ? duration(l.indexMs) : '–'} | ${l ? duration(l.search.p50Ms) : '–'} | ${megabytes(l?.peakRssMB)} | ${save ? `${duration(save.toJSONMs + save.stringifyMs)} / ${duration(save.parseMs + save.loadMs)}` : '–'} |`,
    );
  }
  return lines;
}
