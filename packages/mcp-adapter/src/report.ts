/**
 * What lazy loading saves, in tokens (cl100k): the eager tools/list a client
 * gets when connected to every upstream directly, the gateway's initial list,
 * and the list after loading one toolset.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { countOf, quoteQuery } from '@toolsearch/core-search';
import type { Catalog } from './catalog.js';
import type { Gateway } from './gateway/gateway.js';
import { META_TOOLS } from './meta-tools.js';
import { renderSearch } from './render.js';
import { SessionState } from './session.js';
import { countTokens, countToolListTokens } from './tokens.js';

export interface TokenReport {
  upstreams: number;
  tools: number;
  /** tools/list of every upstream, summed, as a client connected to each would hold them. */
  eager: number;
  /** The gateway's tools/list before any load (meta-tools and always-loaded tools). */
  lazyInitial: number;
  /** The meta-tool definitions alone. */
  metaTools: number;
  /** tools/list after load_toolset of each toolset in turn. */
  afterLoad: { toolset: string; tools: number; tokens: number }[];
  /** A search_tools answer with 5 hits for `query`. */
  search: { query: string; hits: number; tokens: number };
}

/**
 * A query any catalog answers: the first words of the first tool's description.
 * Deterministic, and needs no knowledge of which servers are configured.
 */
export function defaultReportQuery(gateway: Gateway): string {
  const first = gateway.upstreams.tools()[0]?.definition;
  const sentence = (first?.description ?? first?.name ?? '').split(/[.\n]/)[0] ?? '';
  return sentence.split(/\s+/).filter(Boolean).slice(0, 6).join(' ') || 'tools';
}

export async function tokenReport(
  gateway: Gateway,
  alwaysLoaded: readonly string[],
  query: string,
): Promise<TokenReport> {
  const byUpstream = new Map<string, Tool[]>();
  for (const t of gateway.upstreams.tools())
    byUpstream.set(t.upstream, [...(byUpstream.get(t.upstream) ?? []), t.definition]);
  return catalogTokenReport(gateway.catalog, [...byUpstream.values()], alwaysLoaded, query);
}

/**
 * The same report from a catalog and each upstream's tools/list, without a running
 * gateway: the benchmark measures recorded tool lists with it, offline.
 */
export async function catalogTokenReport(
  catalog: Catalog,
  upstreamLists: readonly (readonly Tool[])[],
  alwaysLoaded: readonly string[],
  query: string,
): Promise<TokenReport> {
  const definitions = (names: readonly string[]) =>
    names.map((n) => catalog.get(n)?.definition).filter((d): d is Tool => d !== undefined);
  const initial = [...META_TOOLS, ...definitions(alwaysLoaded)];
  const response = await catalog.search(query, { limit: 5 });
  return {
    upstreams: upstreamLists.length,
    tools: catalog.size,
    eager: upstreamLists.reduce((sum, tools) => sum + countToolListTokens(tools), 0),
    lazyInitial: countToolListTokens(initial),
    metaTools: countToolListTokens(META_TOOLS),
    afterLoad: catalog.toolsets().map((t) => {
      const names = catalog.toolsOf(t.name);
      return {
        toolset: t.name,
        tools: names.length,
        tokens: countToolListTokens([...initial, ...definitions(names)]),
      };
    }),
    search: {
      query,
      hits: response.results.length,
      tokens: countTokens(renderSearch(response, new SessionState())),
    },
  };
}

export function formatTokenReport(r: TokenReport): string {
  const pct = (n: number) => (r.eager > 0 ? ` (${((100 * n) / r.eager).toFixed(1)}% of eager)` : '');
  const lines = [
    'tokens (cl100k, js-tiktoken)',
    `eager tools/list, ${countOf(r.upstreams, 'upstream')}, ${countOf(r.tools, 'tool')}: ${r.eager}`,
    `lazy initial tools/list: ${r.lazyInitial}${pct(r.lazyInitial)}  (meta-tools alone: ${r.metaTools})`,
    ...r.afterLoad.map(
      (l) => `after load_toolset ${l.toolset} (${countOf(l.tools, 'tool')}): ${l.tokens}${pct(l.tokens)}`,
    ),
    `search_tools ${quoteQuery(r.search.query)} (${countOf(r.search.hits, 'hit')}): ${r.search.tokens}`,
  ];
  return `${lines.join('\n')}\n`;
}
