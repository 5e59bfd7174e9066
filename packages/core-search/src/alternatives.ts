/**
 * One need, asked several ways: the query plus up to DEFAULTS.search.maxAlternatives
 * alternative phrasings (a calling model's "create issue" next to "write down a
 * bug for the team"), each searched on its own and fused by reciprocal rank,
 * so a tool that any phrasing ranks high comes up, and one that all of them
 * rank high comes first. Ranks, not scores, are fused: responses to different
 * queries have incomparable scores.
 */
import { boundQuery } from './analysis/query.js';
import { DEFAULTS } from './defaults.js';
import { ToolSearchError } from './errors.js';
import type { SearchOptions, SearchResponse, SearchResult, ToolsetInfo, ToolsetSuggestion } from './types.js';

/** Anything that searches like ToolSearch (the engine, or a wrapper over it). */
export interface Searchable {
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
  /** Tool counts per toolset, for the fused toolset suggestions. */
  toolsets?(): readonly ToolsetInfo[];
  /** Characters of a query the search reads (ToolSearch.maxQueryChars); default DEFAULTS.analysis.maxQueryChars. */
  readonly maxQueryChars?: number;
}

/**
 * Searches `query` and each of `alternatives` and fuses the rankings. Blank and
 * repeated alternatives are ignored; more than the maximum is INVALID_QUERY.
 * Without alternatives this is exactly `engine.search(query, options)`. Ties
 * keep the order of the query's own ranking, then of the alternatives in turn.
 */
export async function searchAlternatives(
  engine: Searchable,
  query: string,
  alternatives: readonly string[] = [],
  options: SearchOptions = {},
): Promise<SearchResponse> {
  if (!Array.isArray(alternatives) || alternatives.some((a) => typeof a !== 'string'))
    throw new ToolSearchError('INVALID_QUERY', 'toolsearch: alternatives must be an array of strings');
  if (alternatives.length > DEFAULTS.search.maxAlternatives)
    throw new ToolSearchError(
      'INVALID_QUERY',
      `toolsearch: at most ${DEFAULTS.search.maxAlternatives} alternatives, got ${alternatives.length}`,
    );
  // Compared as searched: only the first maxQueryChars count, and a 4 MB phrasing is
  // not lowercased whole to find that it repeats another.
  const maxChars = engine.maxQueryChars ?? DEFAULTS.analysis.maxQueryChars;
  const keyOf = (text: string) => boundQuery(text, maxChars).trim().toLowerCase();
  const seen = new Set([typeof query === 'string' ? keyOf(query) : '']);
  const others: string[] = [];
  for (const alternative of alternatives) {
    const key = keyOf(alternative);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    others.push(alternative);
  }
  if (others.length === 0) return engine.search(query, options);
  const limit = options.limit ?? DEFAULTS.search.limit;
  // Each list goes as deep as fusion does inside the engine, so a tool ranked low by one phrasing still counts.
  const depth = { ...options, limit: Math.max(limit, DEFAULTS.fusion.depth) };
  const responses = await Promise.all([query, ...others].map((q) => engine.search(q, depth)));
  const sizes = new Map((engine.toolsets?.() ?? []).map((t) => [t.name, t.toolCount]));
  return fuseResponses(responses, limit, sizes);
}

/** RRF over whole responses (rank only); the first response names the query. */
export function fuseResponses(
  responses: readonly SearchResponse[],
  limit: number,
  toolCounts: ReadonlyMap<string, number> = new Map(),
): SearchResponse {
  const k = DEFAULTS.fusion.rrfK;
  const fused = new Map<string, { result: SearchResult; score: number; order: number }>();
  let order = 0;
  for (const response of responses) {
    response.results.forEach((result, i) => {
      const entry = fused.get(result.name);
      const add = 1 / (k + i + 1);
      if (entry) entry.score += add;
      else fused.set(result.name, { result, score: add, order: order++ });
    });
  }
  const ranked = [...fused.values()].sort((a, b) => b.score - a.score || a.order - b.order);
  const results = ranked.slice(0, limit).map(({ result, score }) => ({ ...result, score }));
  const toolsets = new Map<string, ToolsetSuggestion>();
  for (const { result, score } of ranked.slice(0, DEFAULTS.fusion.toolsetEvidenceDepth)) {
    const known = responses.flatMap((r) => r.toolsets).find((t) => t.toolset === result.toolset)?.toolCount;
    const entry = toolsets.get(result.toolset) ?? {
      toolset: result.toolset,
      score: 0,
      hits: 0,
      toolCount: toolCounts.get(result.toolset) ?? known ?? 0,
    };
    entry.score += score;
    entry.hits += 1;
    toolsets.set(result.toolset, entry);
  }
  const first = responses[0]!;
  const out: SearchResponse = {
    query: first.query,
    results,
    toolsets: [...toolsets.values()]
      .sort((a, b) => b.score - a.score || (a.toolset < b.toolset ? -1 : 1))
      .slice(0, DEFAULTS.fusion.maxToolsetSuggestions),
    strategies: [...new Set(responses.flatMap((r) => r.strategies))],
  };
  const degraded = responses.find((r) => r.degraded)?.degraded;
  if (degraded) out.degraded = degraded;
  return out;
}
