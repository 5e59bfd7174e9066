/**
 * Text the meta-tools answer with. Compact lines rather than JSON: an agent
 * reads them as well and they cost fewer tokens (a 5-hit search < 400).
 */

import type { CallToolResult } from '@modelcontextprotocol/server';
import { countOf, quoteQuery, type SearchResponse } from '@toolsearch/core-search';
import type { Catalog } from './catalog.js';
import { renderDetail, type ToolDetail } from './details.js';
import { AdapterError } from './errors.js';
import type { ToolsetStatus } from './meta-tools.js';
import type { LoadOutcome, SessionState, UnloadOutcome } from './session.js';

/** `_meta` key marking an adapter error, so clients can tell it from a tool's own `isError`. */
export const ERROR_META_KEY = 'io.toolsearch/error';

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** An adapter-side failure as a tool result the agent can read and act on. */
export function errorResult(err: unknown): CallToolResult {
  const code =
    err instanceof AdapterError
      ? err.code
      : typeof (err as { code?: unknown })?.code === 'string'
        ? (err as { code: string }).code
        : 'INTERNAL';
  const message = err instanceof Error ? err.message : String(err);
  return {
    content: [{ type: 'text', text: `${message} [${code}]` }],
    isError: true,
    _meta: { [ERROR_META_KEY]: { code } },
  };
}

export function renderSearch(
  response: SearchResponse,
  session: SessionState,
  details?: ReadonlyMap<string, ToolDetail>,
): string {
  const proxy = session.listChangedSupport() === 'no';
  if (response.results.length === 0)
    return `No tools match ${quoteQuery(response.query)}. Try other words, or search_tools {} for the toolsets.`;
  const degraded = response.degraded ? ' (keyword match only: semantic model not ready)' : '';
  const lines = [`Tools for ${quoteQuery(response.query)}${degraded}:`];
  response.results.forEach((r, i) => {
    const loaded = session.isBound(r.name) ? ' (loaded)' : '';
    lines.push(`${i + 1}. ${r.name} [${r.toolset}]${loaded} ${r.summary}`);
    const detail = renderDetail(details?.get(r.name));
    if (detail) lines.push(detail);
  });
  const sets = response.toolsets
    .slice(0, 3)
    .map((t) => `${t.toolset} (${countOf(t.hits, 'hit')}/${countOf(t.toolCount, 'tool')})`);
  if (sets.length > 0) lines.push(`Toolsets: ${sets.join(', ')}`);
  const first = response.results[0];
  if (first && session.isBound(first.name))
    lines.push(`Next: call ${first.name}${proxy ? ' with call_tool' : ''}.`);
  else if (first)
    lines.push(
      `Next: load_toolset {"tools":["${first.name}"]} (or {"toolsets":["${first.toolset}"]}), then ${proxy ? 'call_tool' : 'call it'}.`,
    );
  return lines.join('\n');
}

export function renderOverview(
  catalog: Catalog,
  session: SessionState,
  statuses: readonly ToolsetStatus[],
  only?: string,
): string {
  const status = new Map(statuses.map((s) => [s.name, s]));
  const toolsets = catalog.toolsets().filter((t) => !only || t.name === only);
  const lines: string[] = [];
  let total = 0;
  for (const t of toolsets) {
    total += t.toolCount;
    const bound = catalog.toolsOf(t.name).filter((n) => session.isBound(n)).length;
    const loaded = bound === 0 ? '' : bound === t.toolCount ? ', all loaded' : `, ${bound} loaded`;
    // A derived description repeats the count ("13 tools: a, b, ..."): we already say it.
    const description = t.description.replace(/^\d+ tools?: /, '').slice(0, 100);
    lines.push(`- ${t.name} (${t.toolCount} tools${loaded}${health(status.get(t.name))}): ${description}`);
    status.delete(t.name);
  }
  // Upstreams with no indexed tools (failed to start, disabled) are still worth reporting.
  for (const s of status.values())
    if (!only || s.name === only) lines.push(`- ${s.name} (0 tools${health(s)})`);
  const head = `${countOf(lines.length, 'toolset')}, ${countOf(total, 'tool')}. search_tools {query} finds tools; load_toolset binds them.`;
  return [head, ...lines].join('\n');
}

function health(status: ToolsetStatus | undefined): string {
  if (!status || status.state === 'ready') return '';
  return `, upstream ${status.state}${status.error ? `: ${status.error}` : ''}`;
}

export function renderLoad(
  outcome: LoadOutcome,
  catalog: Catalog,
  session: SessionState,
  details?: ReadonlyMap<string, ToolDetail>,
): string {
  const lines: string[] = [];
  if (outcome.loaded.length > 0) lines.push(`Loaded ${outcome.loaded.length}: ${outcome.loaded.join(', ')}.`);
  if (outcome.already.length > 0) lines.push(`Already loaded: ${outcome.already.join(', ')}.`);
  if (outcome.evicted.length > 0)
    lines.push(
      `Unloaded to stay under ${session.maxBoundTools} tools (least recently used): ${outcome.evicted.join(', ')}.`,
    );
  if (outcome.overCap.length > 0)
    lines.push(`Not loaded (more than ${session.maxBoundTools} at once): ${outcome.overCap.join(', ')}.`);
  const requested = [...outcome.loaded, ...outcome.already];
  const support = session.listChangedSupport();
  if (support === 'no') {
    lines.push('Your client does not refresh its tool list: call these with call_tool {"name","arguments"}:');
    for (const name of requested) {
      const line = schemaLine(catalog, name);
      if (!line) continue;
      lines.push(line);
      const detail = renderDetail(details?.get(name));
      if (detail) lines.push(detail);
    }
  } else if (requested.length > 0) {
    lines.push(
      support === 'yes'
        ? 'They are in your tool list now: call them directly.'
        : 'They are in your tool list now: call them directly (if they do not show up, use call_tool {"name","arguments"}).',
    );
  }
  return lines.join('\n');
}

/** A tool's name, description (first 120 characters) and input schema, on one line. */
function schemaLine(catalog: Catalog, name: string): string | undefined {
  const def = catalog.get(name)?.definition;
  return def && `${name}: ${(def.description ?? '').slice(0, 120)} ${JSON.stringify(def.inputSchema)}`;
}

/** The handle line of a 2026-07-28 answer: once, since it is the longest thing in it. */
function handleLine(handle: string): string {
  return `handle: ${handle}\n(pass it as "handle" to load_toolset and call_tool)`;
}

/**
 * A search answer for a 2026-07-28 client: nothing is ever added to its tool
 * list, so the next step is call_tool, with the schemas inline on request.
 */
export function renderSearchStateless(
  response: SearchResponse,
  catalog: Catalog,
  schemas: boolean,
  handle: string,
  details?: ReadonlyMap<string, ToolDetail>,
): string {
  if (response.results.length === 0)
    return `No tools match ${quoteQuery(response.query)}. Try other words, or search_tools {} for the toolsets.`;
  const degraded = response.degraded ? ' (keyword match only: semantic model not ready)' : '';
  const lines = [`Tools for ${quoteQuery(response.query)}${degraded}:`];
  response.results.forEach((r, i) => {
    lines.push(`${i + 1}. ${r.name} [${r.toolset}] ${r.summary}`);
    const def = schemas ? catalog.get(r.name)?.definition : undefined;
    if (def) lines.push(`   input: ${JSON.stringify(def.inputSchema)}`);
    const detail = renderDetail(details?.get(r.name));
    if (detail) lines.push(detail);
  });
  const sets = response.toolsets.slice(0, 3).map((t) => `${t.toolset} (${t.hits} hits/${t.toolCount} tools)`);
  if (sets.length > 0) lines.push(`Toolsets: ${sets.join(', ')}`);
  const first = response.results[0];
  if (first)
    lines.push(
      schemas
        ? `Next: call_tool {"name":"${first.name}","arguments":{...},"handle":...}.`
        : `Next: load_toolset {"tools":["${first.name}"],"handle":...} for its input schema, then call_tool.`,
    );
  lines.push(handleLine(handle));
  return lines.join('\n');
}

/** A load_toolset answer for a 2026-07-28 client: the schemas, and the handle naming what is loaded. */
export function renderLoadStateless(
  names: readonly string[],
  overCap: readonly string[],
  catalog: Catalog,
  handle: string,
  cap: number,
  details?: ReadonlyMap<string, ToolDetail>,
): string {
  const lines = [`Schemas of ${names.length} tools; call them with call_tool {"name","arguments","handle"}:`];
  for (const name of names) {
    const line = schemaLine(catalog, name);
    if (!line) continue;
    lines.push(line);
    const detail = renderDetail(details?.get(name));
    if (detail) lines.push(detail);
  }
  if (overCap.length > 0) lines.push(`Not loaded (more than ${cap} at once): ${overCap.join(', ')}.`);
  lines.push(handleLine(handle));
  return lines.join('\n');
}

export function renderUnload(outcome: UnloadOutcome): string {
  const lines = [
    outcome.unloaded.length > 0
      ? `Unloaded ${outcome.unloaded.length}: ${outcome.unloaded.join(', ')}.`
      : 'Nothing to unload.',
  ];
  if (outcome.kept.length > 0) lines.push(`Always loaded, kept: ${outcome.kept.join(', ')}.`);
  return lines.join('\n');
}
