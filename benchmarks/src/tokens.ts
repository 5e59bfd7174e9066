/**
 * `pnpm bench --only tokens`: what the MCP adapter puts in a client's context, in cl100k tokens,
 * counted by the adapter's own report (what `toolsearch-mcp --report-tokens` prints). Offline:
 *
 * - the 27-server registry from the tool lists recorded in fixtures/registry/tools.json (each
 *   server's `tools/list` answer, PROVENANCE.md), as its servers list them: their own names,
 *   title, description, input schema, annotations. The fixture did not keep output schemas, so
 *   this figure is a lower bound for servers that declare them;
 * - the three reference servers of packages/mcp-adapter/examples/mcp.json (memory, filesystem,
 *   everything: the adapter's development dependencies) through a real Gateway, each started
 *   over stdio as that config says: the eager lists, the lazy initial list, the list after
 *   loading the filesystem toolset, and 5-hit `search_tools` answers to the fixture queries
 *   about these servers (once the engine is ready, so the answers do not depend on timing).
 *
 * Writes benchmarks/results/tokens.json; `pnpm bench:readme` renders the README's table and the
 * adapter README's token figures from it (adapter-readme.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readDataset } from '@toolsearch/core-search/eval';
import {
  Catalog,
  Gateway,
  type GatewayOptions,
  INSTRUCTIONS,
  META_TOOLS,
  tokenReport,
} from '@toolsearch/mcp-adapter';
import {
  catalogTokenReport,
  countTokens,
  countToolListTokens,
  SEARCH_TOOLS,
} from '@toolsearch/mcp-adapter/internals';
import { runMeta } from './environment.js';
import { isMain, REPO, RESULTS } from './paths.js';
import type { RunMeta } from './results.js';

const REGISTRY = join(REPO, 'fixtures/registry/tools.json');
const QUERIES = join(REPO, 'fixtures/queries/toolsearch-queries.json');
const EXAMPLE_CONFIG = join(REPO, 'packages/mcp-adapter/examples/mcp.json');
/** The registry's names of the example config's servers. */
const REGISTRY_NAMES: Record<string, string> = {
  memory: 'server-memory',
  filesystem: 'server-filesystem',
  everything: 'server-everything',
};
/** The toolset whose load the table shows. */
const LOADED = 'filesystem';
/** How many search answers give the range (the fixture queries about the example servers, in file order). */
const SEARCHES = 10;
/** search_tools parameters added after the first meta-tools (fusing phrasings, detail lines): their cost is reported apart. */
const LATER_SEARCH_PARAMETERS = ['alternatives', 'detail'];

/** A tool definition as MCP lists it (the SDK's type, through the adapter's API). */
type Tool = Parameters<Catalog['setToolset']>[1][number];

interface RegistryTool {
  name: string;
  description: string;
  inputSchema: Tool['inputSchema'];
  meta: { server: string; toolName: string; title?: string; annotations?: Tool['annotations'] };
}

interface ExampleServer {
  command: string;
  args?: string[];
  cwd?: string;
}

export interface TokensResult {
  meta: RunMeta;
  command: string;
  tokenizer: string;
  /** The recorded lists of fixtures/registry/tools.json (no output schemas: a lower bound). */
  registry: {
    servers: number;
    tools: number;
    eager: number;
    /** The example config's servers as the fixture recorded them (compare with example.eager). */
    exampleServersEager: number;
  };
  /** The servers of packages/mcp-adapter/examples/mcp.json, live over stdio. */
  example: {
    servers: string[];
    tools: number;
    eager: number;
    /** The gateway's tools/list before any load: the meta-tools (no always-loaded tools). */
    lazyInitial: number;
    metaTools: number;
    metaToolCount: number;
    /** The meta-tools without search_tools' LATER_SEARCH_PARAMETERS (what `alternatives` and `detail` add). */
    metaToolsBase?: { without: string[]; tokens: number };
    /** The server `instructions` every session gets in its initialize result. */
    instructions?: number;
    loaded: { toolset: string; tools: number; tokens: number };
    /** tools/list after loading each server's toolset alone, in the config's order. */
    loadedEach?: { toolset: string; tools: number; tokens: number }[];
    /** 5-hit search_tools answers, one per query. */
    searches: { query: string; hits: number; tokens: number }[];
  };
}

/** A recorded tool as its server listed it: the original name, and the fields the fixture kept. */
function asListed(t: RegistryTool): Tool {
  return {
    name: t.meta.toolName,
    ...(t.meta.title === undefined ? {} : { title: t.meta.title }),
    description: t.description,
    inputSchema: t.inputSchema,
    ...(t.meta.annotations === undefined ? {} : { annotations: t.meta.annotations }),
  };
}

/** The recorded registry: every server's list, summed as a client connected to each would hold them. */
async function registryFigures(): Promise<TokensResult['registry']> {
  const registry = (JSON.parse(readFileSync(REGISTRY, 'utf8')) as { tools: RegistryTool[] }).tools;
  const byServer = new Map<string, Tool[]>();
  for (const t of registry)
    byServer.set(t.meta.server, [...(byServer.get(t.meta.server) ?? []), asListed(t)]);
  const eager = async (servers: Map<string, Tool[]>) => {
    // Lexical only: the eager count needs no search, so no model is loaded for it.
    const catalog = new Catalog({ engine: { embedding: false }, log: () => {} });
    for (const [server, tools] of servers)
      catalog.setToolset(
        server,
        tools.map((t) => ({ ...t, name: `${server}__${t.name}` })),
      );
    return catalogTokenReport(catalog, [...servers.values()], [], 'tools');
  };
  const all = await eager(byServer);
  const example = await eager(
    new Map(Object.values(REGISTRY_NAMES).map((server) => [server, byServer.get(server) ?? []])),
  );
  return { servers: all.upstreams, tools: all.tools, eager: all.eager, exampleServersEager: example.eager };
}

/** The meta-tools as they were before search_tools took LATER_SEARCH_PARAMETERS. */
function metaToolsBase(): { without: string[]; tokens: number } {
  const tools = META_TOOLS.map((tool) => {
    if (tool.name !== SEARCH_TOOLS) return tool;
    const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
    const properties = Object.fromEntries(
      Object.entries(schema.properties ?? {}).filter(([name]) => !LATER_SEARCH_PARAMETERS.includes(name)),
    );
    return { ...tool, inputSchema: { ...schema, properties } };
  });
  return { without: LATER_SEARCH_PARAMETERS, tokens: countToolListTokens(tools) };
}

/** examples/mcp.json as a gateway config: the same servers, started from the adapter's package. */
function exampleConfig(): GatewayOptions['config'] {
  const servers = (
    JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8')) as { mcpServers: Record<string, ExampleServer> }
  ).mcpServers;
  return {
    upstreams: Object.entries(servers).map(([name, s]) => ({
      name,
      // `node` is this process's node, so the run does not depend on PATH.
      command: s.command === 'node' ? process.execPath : s.command,
      args: s.args ?? [],
      cwd: resolve(dirname(EXAMPLE_CONFIG), s.cwd ?? '.'),
    })),
    alwaysLoaded: [],
    maxBoundTools: 40,
    callTimeoutMs: 60_000,
  };
}

export async function runTokens(): Promise<TokensResult> {
  const meta = runMeta(REPO);
  const start = performance.now();
  const registry = await registryFigures();
  const gateway = await Gateway.start({
    config: exampleConfig(),
    learn: false,
    enrich: false,
    // Tokens depend on no index: a cached one would only leave an entry in the user's cache.
    indexCache: false,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  try {
    const down = gateway.status().filter((s) => s.state !== 'ready');
    if (down.length > 0)
      throw new Error(
        `tokens: example servers not ready: ${down.map((s) => `${s.name} ${s.state}`).join(', ')}`,
      );
    await gateway.catalog.ready();
    const registryNames = new Set(Object.values(REGISTRY_NAMES));
    const queries = readDataset(QUERIES)
      .queries.filter((q) => q.relevant.some((name) => registryNames.has(name.split('__')[0]!)))
      .slice(0, SEARCHES)
      .map((q) => q.query);
    const reports = [];
    for (const query of queries) reports.push(await tokenReport(gateway, [], query));
    const first = reports[0]!;
    const loaded = first.afterLoad.find((l) => l.toolset === LOADED);
    if (!loaded) throw new Error(`tokens: the example config has no "${LOADED}" toolset`);
    const servers = gateway.status().map((s) => s.name);
    const loadedEach = servers.map((toolset) => {
      const entry = first.afterLoad.find((l) => l.toolset === toolset);
      if (!entry) throw new Error(`tokens: no tools listed for the example server "${toolset}"`);
      return entry;
    });
    meta.wallTimeMs = Math.round(performance.now() - start);
    return {
      meta,
      command: 'pnpm bench --only tokens',
      tokenizer: 'cl100k_base (js-tiktoken)',
      registry,
      example: {
        servers,
        tools: first.tools,
        eager: first.eager,
        lazyInitial: first.lazyInitial,
        metaTools: first.metaTools,
        metaToolCount: META_TOOLS.length,
        metaToolsBase: metaToolsBase(),
        instructions: countTokens(INSTRUCTIONS),
        loaded,
        loadedEach,
        searches: reports.map((r) => r.search),
      },
    };
  } finally {
    await gateway.close();
  }
}

export function writeTokens(result: TokensResult): void {
  writeFileSync(join(RESULTS, 'tokens.json'), `${JSON.stringify(result, null, 2)}\n`);
}

if (isMain(import.meta.url)) {
  const result = await runTokens();
  writeTokens(result);
  console.log(JSON.stringify(result, null, 2));
}
