/**
 * The four meta-tools an agent starts with, shared by library and gateway
 * mode. Schemas are kept small on purpose: all four together cost < 600
 * tokens, which is the whole point of the adapter.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { boundQuery, quoteQuery } from '@toolsearch/core-search';
import type { Catalog } from './catalog.js';
import { ADAPTER_DEFAULTS } from './defaults.js';
import { toolDetails } from './details.js';
import { AdapterError } from './errors.js';
import { type FollowedSearch, type HandleCodec, type HandleState, takeFollowed } from './handles.js';
import type { ConversationLearner, Learning } from './learn/learning.js';
import {
  errorResult,
  renderLoad,
  renderLoadStateless,
  renderOverview,
  renderSearch,
  renderSearchStateless,
  renderUnload,
  textResult,
} from './render.js';
import type { SessionState } from './session.js';
import { schemaProblems } from './validate.js';

export const SEARCH_TOOLS = 'search_tools';
export const LOAD_TOOLSET = 'load_toolset';
export const UNLOAD_TOOLSET = 'unload_toolset';
export const CALL_TOOL = 'call_tool';
export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;
/** Alternative phrasings search_tools takes (DEFAULTS.search.maxAlternatives of core-search). */
export const MAX_ALTERNATIVES = 3;

const names = { type: 'array', items: { type: 'string' } } as const;
const searchArgs = {
  query: { type: 'string', description: 'The action as a tool would be named: verb + object' },
  alternatives: {
    type: 'array',
    items: { type: 'string' },
    maxItems: MAX_ALTERNATIVES,
    description: 'The same need in plain words',
  },
  limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT, default: DEFAULT_SEARCH_LIMIT },
  toolset: { type: 'string' },
  detail: { type: 'boolean', description: 'Add example requests and related tools' },
} as const;
const searchAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

export const META_TOOLS: readonly Tool[] = [
  {
    name: SEARCH_TOOLS,
    description: 'Find tools for a task. Without query: list toolsets.',
    inputSchema: { type: 'object', properties: searchArgs, additionalProperties: false },
    annotations: searchAnnotations,
  },
  {
    name: LOAD_TOOLSET,
    description: 'Add tools (by name or whole toolsets) to your tool list.',
    inputSchema: {
      type: 'object',
      properties: { toolsets: names, tools: names },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: UNLOAD_TOOLSET,
    description: 'Remove loaded tools from your tool list. No arguments: all.',
    inputSchema: {
      type: 'object',
      properties: { toolsets: names, tools: names },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: CALL_TOOL,
    description: 'Call any tool by name, loaded or not.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string' }, arguments: { type: 'object' } },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  },
];

const handleArg = {
  type: 'string',
  description: 'handle from your last search_tools or load_toolset answer',
} as const;

/**
 * The meta-tools of a 2026-07-28 client. Its tool list is fixed (the revision
 * forbids a tool set that changes as a side effect of calls), so there is
 * nothing to unload: tools are called through call_tool, and what the
 * conversation searched and loaded travels in a signed `handle`.
 */
export const STATELESS_META_TOOLS: readonly Tool[] = [
  {
    name: SEARCH_TOOLS,
    description: 'Find tools for a task. Without query: list toolsets. schemas: include input schemas.',
    inputSchema: {
      type: 'object',
      properties: { ...searchArgs, schemas: { type: 'boolean', default: false }, handle: handleArg },
      additionalProperties: false,
    },
    annotations: searchAnnotations,
  },
  {
    name: LOAD_TOOLSET,
    description: 'Get the input schemas of tools (by name or whole toolsets) to call them with call_tool.',
    inputSchema: {
      type: 'object',
      properties: { toolsets: names, tools: names, handle: handleArg },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: CALL_TOOL,
    description: 'Call any tool by name, with the handle of your last search_tools or load_toolset answer.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string' }, arguments: { type: 'object' }, handle: handleArg },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  },
];

/** Sent to both eras (the server's instructions do not vary per request). */
export const INSTRUCTIONS = [
  'Tools load on demand. 1) search_tools {query} finds tools (no query: toolsets).',
  '2) load_toolset {tools} or {toolsets} adds them to your tool list, or gives their schemas.',
  '3) Call them directly if listed, else with call_tool {name, arguments}; pass along the',
  '"handle" an answer gives you. unload_toolset frees room.',
].join('\n');

/**
 * How a request is served: `legacy` (2025-era client with a session: tools
 * are bound into its tool list) or `stateless` (2026-07-28 client: the tool
 * list is fixed, state travels in handles).
 */
export type MetaMode = 'legacy' | 'stateless';

export function metaToolsFor(mode: MetaMode): readonly Tool[] {
  return mode === 'stateless' ? STATELESS_META_TOOLS : META_TOOLS;
}

export function isMetaTool(name: string): boolean {
  return META_TOOLS.some((t) => t.name === name);
}

/** A search followed by a load or a call of a tool it offered: what learning from use records. */
export interface UseEvent {
  /** The search's query (at most 200 characters). */
  query: string;
  tool: string;
  via: 'load_toolset' | 'call';
}

/** An upstream's health as the overview reports it (gateway mode only). */
export interface ToolsetStatus {
  name: string;
  state: string;
  toolCount: number;
  error?: string;
}

/**
 * The context of the MCP request being served, as the SDK serving it hands it
 * over (SDK v1's RequestHandlerExtra, SDK v2's ServerContext). Opaque here:
 * library/sdk-internals.ts reads it (abort signal, protocol revision).
 */
export type RequestExtra = object;

/** What the meta-tools need from the mode they run in. */
export interface MetaBackend {
  readonly catalog: Catalog;
  /** Runs a tool; the tool's result comes back unchanged. Adapter failures throw AdapterError. */
  callTool(name: string, args: Record<string, unknown>, extra: RequestExtra): Promise<CallToolResult>;
  /** Upstream health per toolset, gateway mode only. */
  status?(): ToolsetStatus[];
  /** Gateway mode: true while search serves the index of an earlier start (the upstreams are still listing). */
  indexPossiblyStale?(): boolean;
  /**
   * Gateway mode: restarts (with the usual backoff) a down upstream that owns any of these
   * toolset or tool names but never listed its tools. True when one came up (look the
   * names up again); throws UPSTREAM_DOWN when it stays down; false when none applies.
   */
  revive?(names: readonly string[]): Promise<boolean>;
  /** Learned uses and co-uses, for the details of tools (absent: learning off). */
  learning?: Learning;
}

export interface MetaContext {
  readonly backend: MetaBackend;
  /** Legacy mode's bindings; stateless mode reads only its always-loaded tools. */
  readonly session: SessionState;
  /** This 2025-era session's calls, for tools used together (absent: learning off, or stateless). */
  readonly conversation?: ConversationLearner;
  /** Makes the session's bound set visible to the client and sends tools/list_changed. */
  bindingsChanged(): void;
  /** Default `legacy`. */
  readonly mode?: MetaMode;
  /** Signs and opens handles; stateless mode needs it. */
  readonly handles?: HandleCodec;
  /** Told when a search is followed by a load or call of a tool it offered (both modes). */
  readonly onUse?: (event: UseEvent) => void;
  readonly log?: (line: string) => void;
}

/** Runs one meta-tool. Never throws: every failure is an error result the agent can read. */
export async function runMetaTool(
  ctx: MetaContext,
  name: string,
  args: Record<string, unknown> | undefined,
  extra: RequestExtra,
): Promise<CallToolResult> {
  try {
    const definition = metaToolsFor(ctx.mode ?? 'legacy').find((t) => t.name === name);
    if (!definition) throw new AdapterError('UNKNOWN_TOOL', `${name} is not a meta-tool here`);
    const { input, cut } = boundArguments(name, args ?? {}, ctx.backend.catalog.maxQueryChars);
    const problems = schemaProblems(definition.inputSchema, input, 'arguments', true);
    if (problems.length > 0)
      throw new AdapterError('INVALID_ARGUMENTS', `${name}: ${problems.join('; ')}`, { problems });
    switch (name) {
      case SEARCH_TOOLS:
        return await searchTools(ctx, input as SearchInput, cut);
      case LOAD_TOOLSET:
        return await loadToolset(ctx, input as SelectionInput);
      case UNLOAD_TOOLSET:
        return await unloadToolset(ctx, input as SelectionInput);
      default:
        return await callTool(ctx, input as unknown as CallInput, extra);
    }
  } catch (err) {
    return errorResult(err);
  }
}

/** A search text cut to the engine's query budget: which argument, and how long it was. */
interface Cut {
  field: string;
  chars: number;
}

/**
 * Settles the size of untrusted arguments before validation or any lookup sees them (the
 * HTTP body cap allows 4 MB): search texts are cut to what the engine reads anyway
 * (its maxQueryChars), and the answer says so; a name longer than any tool or toolset
 * name can be, or more names than one call takes, is INVALID_ARGUMENTS. Other fields
 * and non-strings are left to the schema check.
 */
function boundArguments(
  tool: string,
  args: Record<string, unknown>,
  maxQueryChars: number,
): { input: Record<string, unknown>; cut: Cut[] } {
  const input = { ...args };
  const cut: Cut[] = [];
  const cutText = (text: unknown, field: string): unknown => {
    if (typeof text !== 'string' || text.length <= maxQueryChars) return text;
    const bounded = boundQuery(text, maxQueryChars);
    // Leading spaces are dropped, not cut: only say so when words were left out.
    if (bounded.length < text.trimStart().length) cut.push({ field, chars: text.length });
    return bounded;
  };
  if (tool === SEARCH_TOOLS) {
    input.query = cutText(input.query, 'query');
    if (input.query === undefined) delete input.query;
    if (Array.isArray(input.alternatives))
      input.alternatives = input.alternatives.map((a, i) => cutText(a, `alternatives[${i}]`));
  }
  const { maxNameChars, maxNamesPerCall } = ADAPTER_DEFAULTS;
  const lists = (['toolsets', 'tools'] as const).filter((field) => Array.isArray(input[field]));
  const count = lists.reduce((n, field) => n + (input[field] as unknown[]).length, 0);
  if (count > maxNamesPerCall)
    throw new AdapterError(
      'INVALID_ARGUMENTS',
      `${tool}: ${count} names in one call; at most ${maxNamesPerCall} (whole toolsets load with "toolsets")`,
      { problems: [`names: at most ${maxNamesPerCall}`] },
    );
  const names: [string, unknown][] = [
    ...(['toolset', 'name'] as const).map((field): [string, unknown] => [field, input[field]]),
    ...lists.flatMap((field) =>
      (input[field] as unknown[]).map((value, i): [string, unknown] => [`${field}[${i}]`, value]),
    ),
  ];
  const long = names.filter(([, value]) => typeof value === 'string' && value.length > maxNameChars);
  if (long.length > 0)
    throw new AdapterError(
      'INVALID_ARGUMENTS',
      `${tool}: ${long.map(([field, value]) => `${field} is ${(value as string).length} characters`).join('; ')}: no tool or toolset name is longer than ${maxNameChars}`,
      { problems: long.map(([field]) => `${field}: at most ${maxNameChars} characters`) },
    );
  return { input, cut };
}

/** The line that tells the agent its search text was cut (nothing is dropped silently). */
/** Said under search results while the gateway serves the index of an earlier start (gateway.ts). */
export const STALE_NOTE =
  'Note: the upstream servers are still listing their tools; these results come from the index of an earlier start, and a tool may have changed or gone since.';

function cutNote(cut: readonly Cut[], maxQueryChars: number): string {
  const what = cut.map((c) => `${c.field} (${c.chars} characters)`).join(', ');
  return `Note: only the first ${maxQueryChars} characters of ${what} were searched.`;
}

interface SearchInput {
  query?: string;
  alternatives?: string[];
  limit?: number;
  toolset?: string;
  schemas?: boolean;
  handle?: string;
  detail?: boolean;
}
interface SelectionInput {
  toolsets?: string[];
  tools?: string[];
  handle?: string;
}
interface CallInput {
  name: string;
  arguments?: Record<string, unknown>;
  handle?: string;
}

function stateless(ctx: MetaContext): ctx is MetaContext & { handles: HandleCodec } {
  if (ctx.mode !== 'stateless') return false;
  if (!ctx.handles) throw new Error('toolsearch-mcp: stateless mode needs a HandleCodec');
  return true;
}

/** The state a request's handle carries (empty without one); INVALID_HANDLE when it does not verify. */
async function openHandle(handles: HandleCodec, handle: string | undefined): Promise<HandleState> {
  return handle === undefined ? { loaded: [] } : handles.open(handle);
}

/** A stateless answer: the text, and the handle again in `_meta` for programs. */
function withHandle(text: string, handle: string): CallToolResult {
  return { ...textResult(text), _meta: { [HANDLE_META_KEY]: handle } };
}

/** `_meta` key of the handle in a stateless answer. */
export const HANDLE_META_KEY = 'io.toolsearch/handle';

/** Reports the tools of `used` that `search` offered, each once; a failing listener is logged, never fatal. */
function reportUse(
  ctx: MetaContext,
  search: FollowedSearch | undefined,
  used: readonly string[],
  via: UseEvent['via'],
): void {
  if (!search || !ctx.onUse) return;
  for (const tool of takeFollowed(search, used)) {
    try {
      ctx.onUse({ query: search.query, tool, via });
    } catch (err) {
      ctx.log?.(`toolsearch-mcp: onUse failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** A tool called by name outside call_tool (legacy sessions: a bound tool): it may follow the session's search. */
export function noteDirectCall(ctx: MetaContext, name: string): void {
  if ((ctx.mode ?? 'legacy') === 'legacy') reportUse(ctx, ctx.session.lastSearch, [name], 'call');
}

async function searchTools(
  ctx: MetaContext,
  input: SearchInput,
  cut: readonly Cut[],
): Promise<CallToolResult> {
  const { catalog } = ctx.backend;
  if (
    input.toolset !== undefined &&
    !catalog.hasToolset(input.toolset) &&
    !((await ctx.backend.revive?.([input.toolset])) && catalog.hasToolset(input.toolset))
  )
    await unknownToolsets(ctx, [input.toolset]);
  const query = input.query?.trim() ?? '';
  if (query === '')
    return textResult(renderOverview(catalog, ctx.session, ctx.backend.status?.() ?? [], input.toolset));
  if (catalog.size === 0) {
    // Say why rather than "no match": every upstream is down, or nothing is registered.
    const down = (ctx.backend.status?.() ?? []).filter((s) => s.state !== 'ready');
    throw new AdapterError(
      'NO_TOOLS',
      down.length > 0
        ? `no tools to search: ${down.map((s) => `upstream ${s.name} is ${s.state}`).join('; ')}`
        : 'no tools to search: none is registered',
      { upstreams: down.map((s) => s.name) },
    );
  }
  const prior = stateless(ctx) ? await openHandle(ctx.handles, input.handle) : undefined;
  const limit = input.limit ?? DEFAULT_SEARCH_LIMIT;
  const response = await catalog.search(query, {
    limit,
    ...(input.toolset ? { toolset: input.toolset } : {}),
    ...(input.alternatives ? { alternatives: input.alternatives } : {}),
  });
  const search: FollowedSearch = { query, offered: response.results.map((r) => r.name) };
  const details = input.detail
    ? await toolDetails(
        catalog,
        ctx.backend.learning,
        response.results.map((r) => r.name),
      )
    : undefined;
  const note =
    (cut.length > 0 ? `\n${cutNote(cut, catalog.maxQueryChars)}` : '') +
    (ctx.backend.indexPossiblyStale?.() ? `\n${STALE_NOTE}` : '');
  if (!stateless(ctx)) {
    ctx.session.lastSearch = search;
    return textResult(renderSearch(response, ctx.session, details) + note);
  }
  const handle = await ctx.handles.mint({ search, loaded: prior?.loaded ?? [] });
  return withHandle(
    renderSearchStateless(response, catalog, input.schemas === true, handle, details) + note,
    handle,
  );
}

/** Expands toolsets and tools to tool names; unknown names fail the whole request, with suggestions. */
async function resolveSelection(ctx: MetaContext, input: SelectionInput, revived = false): Promise<string[]> {
  const { catalog } = ctx.backend;
  const badSets = (input.toolsets ?? []).filter((t) => !catalog.hasToolset(t));
  const badTools = (input.tools ?? []).filter((t) => !catalog.has(t));
  // Names of an upstream that never came up are not typos: it gets its restart first.
  if (
    !revived &&
    badSets.length + badTools.length > 0 &&
    (await ctx.backend.revive?.([...badSets, ...badTools]))
  )
    return resolveSelection(ctx, input, true);
  if (badSets.length > 0) await unknownToolsets(ctx, badSets);
  if (badTools.length > 0) await unknownTools(ctx, badTools);
  return [...(input.toolsets ?? []).flatMap((t) => catalog.toolsOf(t)), ...(input.tools ?? [])];
}

async function loadToolset(ctx: MetaContext, input: SelectionInput): Promise<CallToolResult> {
  if ((input.toolsets?.length ?? 0) + (input.tools?.length ?? 0) === 0)
    throw new AdapterError(
      'INVALID_ARGUMENTS',
      'load_toolset: give "tools" or "toolsets" (names from search_tools)',
    );
  if (stateless(ctx)) return loadStateless(ctx, input);
  const outcome = ctx.session.load(await resolveSelection(ctx, input));
  if (outcome.loaded.length + outcome.evicted.length > 0) ctx.bindingsChanged();
  reportUse(ctx, ctx.session.lastSearch, [...outcome.loaded, ...outcome.already], 'load_toolset');
  // Clients that take schemas from this answer (not from tools/list) get the details with them.
  const details =
    ctx.session.listChangedSupport() === 'no'
      ? await toolDetails(ctx.backend.catalog, ctx.backend.learning, [...outcome.loaded, ...outcome.already])
      : undefined;
  return textResult(renderLoad(outcome, ctx.backend.catalog, ctx.session, details));
}

/** Nothing is bound: the answer carries the schemas, and a handle naming what the conversation loaded. */
async function loadStateless(
  ctx: MetaContext & { handles: HandleCodec },
  input: SelectionInput,
): Promise<CallToolResult> {
  const prior = await openHandle(ctx.handles, input.handle);
  const cap = ctx.session.maxBoundTools;
  const wanted = [...new Set(await resolveSelection(ctx, input))];
  const chosen = wanted.slice(0, cap);
  reportUse(ctx, prior.search, chosen, 'load_toolset');
  // Least recently loaded first, as in a session, so the cap drops the oldest.
  const loaded = [...prior.loaded.filter((n) => !chosen.includes(n)), ...chosen].slice(-cap);
  const handle = await ctx.handles.mint({ ...(prior.search ? { search: prior.search } : {}), loaded });
  // A 2026-07-28 client takes its schemas from this answer: the details come with them.
  const details = await toolDetails(ctx.backend.catalog, ctx.backend.learning, chosen);
  return withHandle(
    renderLoadStateless(chosen, wanted.slice(cap), ctx.backend.catalog, handle, cap, details),
    handle,
  );
}

async function unloadToolset(ctx: MetaContext, input: SelectionInput): Promise<CallToolResult> {
  // Only legacy mode lists unload_toolset; runMetaTool refuses it in stateless mode.
  const everything = (input.toolsets?.length ?? 0) + (input.tools?.length ?? 0) === 0;
  const targets = everything ? ctx.session.loaded() : await resolveSelection(ctx, input);
  const outcome = ctx.session.unload(targets);
  if (outcome.unloaded.length > 0) ctx.bindingsChanged();
  return textResult(renderUnload(outcome));
}

async function callTool(ctx: MetaContext, input: CallInput, extra: RequestExtra): Promise<CallToolResult> {
  const tool = await findTool(ctx, input.name);
  if (!tool) {
    if (isMetaTool(input.name))
      throw new AdapterError(
        'INVALID_ARGUMENTS',
        `call_tool: call ${input.name} directly, not through call_tool`,
      );
    return await unknownTools(ctx, [input.name]);
  }
  const args = input.arguments ?? {};
  const problems = schemaProblems(tool.definition.inputSchema, args);
  if (problems.length > 0)
    throw new AdapterError('INVALID_ARGUMENTS', `${input.name}: ${problems.join('; ')}`, {
      tool: input.name,
      problems,
    });
  if (stateless(ctx)) {
    const state = await openHandle(ctx.handles, input.handle);
    reportUse(ctx, state.search, [input.name], 'call');
  } else {
    ctx.session.touch(input.name);
    reportUse(ctx, ctx.session.lastSearch, [input.name], 'call');
    ctx.conversation?.calledTool(input.name);
  }
  return await ctx.backend.callTool(input.name, args, extra);
}

/**
 * A tool by name; a tool of an upstream that never listed its tools gets that upstream
 * restarted first (UPSTREAM_DOWN when it stays down), rather than a did-you-mean that
 * points at another server's tool.
 */
export async function findTool(ctx: { backend: MetaBackend }, name: string) {
  const { catalog } = ctx.backend;
  return catalog.get(name) ?? ((await ctx.backend.revive?.([name])) ? catalog.get(name) : undefined);
}

export async function unknownTools(ctx: { backend: MetaBackend }, wanted: string[]): Promise<never> {
  const parts = await unknownNames(wanted, 'tool', (name) => ctx.backend.catalog.suggestTools(name));
  throw new AdapterError('UNKNOWN_TOOL', `${parts}. Nothing was loaded or called.`, {
    names: wanted.slice(0, MAX_REPORTED_NAMES),
  });
}

/** Unknown names an error names, each with its did-you-mean search; the rest are counted. */
const MAX_REPORTED_NAMES = 5;

/**
 * "no tool "x" (did you mean ...?)" for the first few unknown names, quoted at most
 * QUOTED_QUERY_CHARS long; a name longer than any real one gets no did-you-mean search.
 */
async function unknownNames(
  wanted: readonly string[],
  noun: string,
  suggest: (name: string) => Promise<string[]>,
): Promise<string> {
  const shown = wanted.slice(0, MAX_REPORTED_NAMES);
  const parts = await Promise.all(
    shown.map(async (name) =>
      didYouMean(
        `no ${noun} ${quoteQuery(name)}`,
        name.length > ADAPTER_DEFAULTS.maxNameChars ? [] : await suggest(name),
      ),
    ),
  );
  const more = wanted.length - shown.length;
  return `${parts.join('; ')}${more > 0 ? `; ${more} more unknown ${noun}s` : ''}`;
}

async function unknownToolsets(ctx: MetaContext, wanted: string[]): Promise<never> {
  // A configured upstream that never came up is not a typo: say what happened to it.
  const down = (ctx.backend.status?.() ?? []).filter((s) => wanted.includes(s.name));
  if (down.length > 0)
    throw new AdapterError(
      'UPSTREAM_DOWN',
      down
        .map((s) => `toolset "${s.name}" has no tools: upstream ${s.state}${s.error ? ` (${s.error})` : ''}`)
        .join('; '),
      { names: down.map((s) => s.name) },
    );
  const parts = await unknownNames(wanted, 'toolset', (name) => ctx.backend.catalog.suggestToolsets(name));
  throw new AdapterError('UNKNOWN_TOOLSET', `${parts}. search_tools {} lists the toolsets.`, {
    names: wanted.slice(0, MAX_REPORTED_NAMES),
  });
}

function didYouMean(problem: string, suggestions: string[]): string {
  return suggestions.length > 0 ? `${problem} (did you mean ${suggestions.join(', ')}?)` : problem;
}
