/**
 * The four meta-tools an agent starts with, shared by library and gateway
 * mode. Schemas are kept small on purpose: all four together cost < 600
 * tokens, which is the whole point of the adapter.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Catalog } from './catalog.js';
import { AdapterError } from './errors.js';
import { errorResult, renderLoad, renderOverview, renderSearch, renderUnload, textResult } from './render.js';
import type { SessionState } from './session.js';
import { schemaProblems } from './validate.js';

export const SEARCH_TOOLS = 'search_tools';
export const LOAD_TOOLSET = 'load_toolset';
export const UNLOAD_TOOLSET = 'unload_toolset';
export const CALL_TOOL = 'call_tool';
export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;

const names = { type: 'array', items: { type: 'string' } } as const;

export const META_TOOLS: readonly Tool[] = [
  {
    name: SEARCH_TOOLS,
    description: 'Find tools for a task. Without query: list toolsets.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What you want to do' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT, default: DEFAULT_SEARCH_LIMIT },
        toolset: { type: 'string' },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
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

export const INSTRUCTIONS = [
  'Tools load on demand. 1) search_tools {query} finds tools (no query: toolsets).',
  '2) load_toolset {tools} or {toolsets} adds them to your tool list. 3) Call them directly,',
  'or with call_tool {name, arguments} if they do not appear. unload_toolset frees room.',
].join('\n');

export function isMetaTool(name: string): boolean {
  return META_TOOLS.some((t) => t.name === name);
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
  /**
   * Gateway mode: restarts (with the usual backoff) a down upstream that owns any of these
   * toolset or tool names but never listed its tools. True when one came up (look the
   * names up again); throws UPSTREAM_DOWN when it stays down; false when none applies.
   */
  revive?(names: readonly string[]): Promise<boolean>;
}

export interface MetaContext {
  readonly backend: MetaBackend;
  readonly session: SessionState;
  /** Makes the session's bound set visible to the client and sends tools/list_changed. */
  bindingsChanged(): void;
}

/** Runs one meta-tool. Never throws: every failure is an error result the agent can read. */
export async function runMetaTool(
  ctx: MetaContext,
  name: string,
  args: Record<string, unknown> | undefined,
  extra: RequestExtra,
): Promise<CallToolResult> {
  try {
    const definition = META_TOOLS.find((t) => t.name === name);
    if (!definition) throw new AdapterError('UNKNOWN_TOOL', `${name} is not a meta-tool`);
    const input = args ?? {};
    const problems = schemaProblems(definition.inputSchema, input);
    if (problems.length > 0)
      throw new AdapterError('INVALID_ARGUMENTS', `${name}: ${problems.join('; ')}`, { problems });
    switch (name) {
      case SEARCH_TOOLS:
        return await searchTools(ctx, input as SearchInput);
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

interface SearchInput {
  query?: string;
  limit?: number;
  toolset?: string;
}
interface SelectionInput {
  toolsets?: string[];
  tools?: string[];
}
interface CallInput {
  name: string;
  arguments?: Record<string, unknown>;
}

async function searchTools(ctx: MetaContext, input: SearchInput): Promise<CallToolResult> {
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
  const limit = input.limit ?? DEFAULT_SEARCH_LIMIT;
  const response = await catalog.search(query, {
    limit,
    ...(input.toolset ? { toolset: input.toolset } : {}),
  });
  return textResult(renderSearch(response, ctx.session));
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
  const outcome = ctx.session.load(await resolveSelection(ctx, input));
  if (outcome.loaded.length + outcome.evicted.length > 0) ctx.bindingsChanged();
  return textResult(renderLoad(outcome, ctx.backend.catalog, ctx.session));
}

async function unloadToolset(ctx: MetaContext, input: SelectionInput): Promise<CallToolResult> {
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
  ctx.session.touch(input.name);
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
  const parts = await Promise.all(
    wanted.map(async (name) => didYouMean(`no tool "${name}"`, await ctx.backend.catalog.suggestTools(name))),
  );
  throw new AdapterError('UNKNOWN_TOOL', `${parts.join('; ')}. Nothing was loaded or called.`, {
    names: wanted,
  });
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
  const parts = await Promise.all(
    wanted.map(async (name) =>
      didYouMean(`no toolset "${name}"`, await ctx.backend.catalog.suggestToolsets(name)),
    ),
  );
  throw new AdapterError('UNKNOWN_TOOLSET', `${parts.join('; ')}. search_tools {} lists the toolsets.`, {
    names: wanted,
  });
}

function didYouMean(problem: string, suggestions: string[]): string {
  return suggestions.length > 0 ? `${problem} (did you mean ${suggestions.join(', ')}?)` : problem;
}
