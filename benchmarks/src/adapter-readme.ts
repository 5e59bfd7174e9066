/**
 * The generated blocks of packages/mcp-adapter/README.md (`pnpm bench:readme`, readme.ts): its
 * token figures from results/tokens.json and its start-up table from results/gateway-start.json.
 * The README ships in the package, so results files are named by path in the repository, not
 * linked.
 */
import type { GatewayStartResult, StartPoint } from './gateway-start.js';
import type { TokensResult } from './tokens.js';

const n = (value: number) => value.toLocaleString('en-US');
const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;
const range = (values: readonly number[]) => {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low === high ? n(low) : `${n(low)}–${n(high)}`;
};
const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

/** The sentence under the meta-tools table: what they, the instructions and an answer cost. */
export function metaToolsTokensLine(t: TokensResult): string[] {
  const e = t.example;
  const base = e.metaToolsBase
    ? `; ${n(e.metaToolsBase.tokens)} without the ${e.metaToolsBase.without.map((p) => `\`${p}\``).join(' and ')} parameters of \`search_tools\``
    : '';
  const instructions =
    e.instructions === undefined
      ? ''
      : `, plus ${n(e.instructions)} for the server \`instructions\` that teach the workflow`;
  return [
    `All ${e.metaToolCount} cost **${n(e.metaTools)} tokens** in \`tools/list\` (cl100k${base})${instructions}. ` +
      `A 5-hit \`search_tools\` answer costs ${range(e.searches.map((s) => s.tokens))} tokens on the example ` +
      `servers (the repository's \`benchmarks/results/tokens.json\`, \`${t.command}\`, at ${t.meta.commit}).`,
  ];
}

/** Eager vs lazy tools/list over the example config, each server's toolset loaded alone. */
export function adapterTokensTable(t: TokensResult): string[] {
  const e = t.example;
  const loads = e.loadedEach ?? [e.loaded];
  return [
    '| tools/list | tools | tokens | vs eager |',
    '| --- | ---: | ---: | ---: |',
    `| eager: all ${e.servers.length === 3 ? 'three' : e.servers.length} servers connected directly | ${e.tools} | ${n(e.eager)} | 100% |`,
    `| lazy, initial (the ${e.metaToolCount} meta-tools) | ${e.metaToolCount} | ${n(e.lazyInitial)} | ${percent(e.lazyInitial, e.eager)} |`,
    ...loads.map(
      (l) =>
        `| after \`load_toolset {"toolsets":["${l.toolset}"]}\` | ${e.metaToolCount} + ${l.tools} | ${n(l.tokens)} | ${percent(l.tokens, e.eager)} |`,
    ),
    `| a \`search_tools\` answer with 5 hits (${e.searches.length} queries) | – | ${range(e.searches.map((s) => s.tokens))} | – |`,
    '',
    `\`${t.command}\` at ${t.meta.commit} (${t.meta.date.slice(0, 10)}), recorded in the repository's \`benchmarks/results/tokens.json\`.`,
  ];
}

/** The gateway's start from its index cache vs indexing, per registry size. */
export function gatewayStartTable(g: GatewayStartResult): string[] {
  if (g.points.length === 0) return [`Not measured: ${g.skipped.join('; ')}.`];
  const row = (p: StartPoint, mode: keyof StartPoint['modes'], what: string) => {
    const m = p.modes[mode].median;
    // Results from before the warm start served ahead of the listing have no settledMs: it was the answer.
    const settled = m.settledMs ?? m.totalMs;
    return `| ${p.label} (${n(p.indexed)} tools) | ${what} | ${seconds(m.totalMs)} | ${seconds(m.listedMs)} | ${seconds(settled)} | ${seconds(m.cpuMs)} |`;
  };
  const load = (values: number[]) => values.map((v) => v.toFixed(1)).join(' ');
  return [
    '| registry | start | to the first `search_tools` answer | upstream listed its tools | index checked against the listing | gateway CPU to the answer |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...g.points.flatMap((p) => [
      row(p, 'no cache', 'indexing (cache off)'),
      row(p, 'cold', 'indexing, then writing the cache'),
      row(p, 'warm', `from the last start's index (${p.cacheMB} MB), served before the listing`),
    ]),
    '',
    `Medians of ${g.rounds} interleaved rounds, each start in a fresh process (from \`Gateway.start()\`, after Node's start-up), lexical (the embedding model loads in the background either way), one ` +
      `stdio upstream listing every tool in pages of 1,000; \`${g.command}\` at ${g.meta.commit} ` +
      `(${g.meta.date.slice(0, 10)}, ${g.meta.machine.cores} cores, load average ${load(g.meta.loadavg.start)} at the ` +
      `start, ${load(g.meta.loadavg.end)} at the end), recorded in the repository's ` +
      '`benchmarks/results/gateway-start.json`.',
  ];
}

/** The adapter README's blocks that the results at hand can fill. */
export function adapterBlocks(results: {
  tokens?: TokensResult | undefined;
  gatewayStart?: GatewayStartResult | undefined;
}): Record<string, string> {
  const blocks: Record<string, string> = {};
  if (results.tokens) {
    blocks['meta-tools-tokens'] = metaToolsTokensLine(results.tokens).join('\n');
    blocks['adapter-tokens-table'] = adapterTokensTable(results.tokens).join('\n');
  }
  if (results.gatewayStart)
    blocks['gateway-start-table'] = gatewayStartTable(results.gatewayStart).join('\n');
  return blocks;
}
