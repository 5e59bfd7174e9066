/**
 * The searchable set of tools behind the meta-tools: the full MCP definitions
 * (handed back unchanged when a tool is bound) next to a core-search engine
 * over them. Tools are grouped in toolsets, replaced a toolset at a time when
 * an upstream re-lists its tools.
 */

import type { Tool } from '@modelcontextprotocol/server';
import {
  closestNames,
  type SearchResponse,
  searchAlternatives,
  summarize,
  type ToolDefinition,
  ToolSearch,
  ToolSearchError,
  type ToolsetInfo,
  toolsetOf,
} from '@toolsearch/core-search';
import type { SavedFile } from '@toolsearch/core-search/internals';
import { stderrLog } from './defaults.js';
import type { LearnedUse } from './learn/types.js';

/**
 * core-search's API for phrasings learned from use and written by a model
 * (engine.learn, engine.addPhrasings). Typed here as optional so the adapter
 * builds against a core-search without them; every call goes through Catalog.
 */
interface PhrasingEngine {
  learn?(uses: LearnedUse | LearnedUse[]): unknown;
  addPhrasings?(name: string, phrasings: string[]): unknown;
}

export type EngineOptions = Omit<NonNullable<ConstructorParameters<typeof ToolSearch>[0]>, 'tools'>;

export interface CatalogTool {
  /** Name as the client sees it (`server__tool` in the gateway). */
  name: string;
  toolset: string;
  /** The MCP tool definition, exactly as the client gets it in tools/list. */
  definition: Tool;
}

export interface CatalogSearchOptions {
  limit: number;
  toolset?: string;
  /** Other phrasings of the same need, fused with the query (searchAlternatives). */
  alternatives?: readonly string[];
}

/**
 * Tool lists stored beside a saved index (the gateway's last entry): per toolset in order, how
 * many tools it listed, how many of them the index holds (the engine refused the others), and
 * which of those have a definition of their own (not heldByIndex); each definition read on demand.
 */
export interface SavedToolsets {
  readonly toolsets: readonly {
    name: string;
    listed: number;
    indexed: number;
    stored: readonly string[];
  }[];
  /** The definition of tool `name` as listed; undefined when it is the one the index holds (heldByIndex). */
  definition(name: string): Tool | undefined;
}

/** A catalog tool whose definition is read from saved lists when first asked for (restoreSaved). */
class SavedTool implements CatalogTool {
  private value: Tool | undefined;

  constructor(
    readonly name: string,
    readonly toolset: string,
    private readonly source: SavedToolsets,
    private readonly engine: ToolSearch,
    private readonly damaged: (error: unknown) => void,
  ) {}

  get definition(): Tool {
    try {
      this.value ??= this.source.definition(this.name) ?? indexedDefinition(this.engine, this.name);
    } catch (error) {
      this.damaged(error);
      throw error;
    }
    return this.value;
  }
}

/**
 * The tools of a catalog restored by restoreSaved, answered from its engine by name: an entry
 * is made when a tool is first asked for. Making the ~100k entries and their Map at load was
 * ~0.17 s of CPU of a gateway's start from its cache, before the garbage they left (`--cpu-prof`
 * of the warm start, load ~4.7), for a first answer that shows ten tools.
 */
class SavedTools {
  private readonly made = new Map<string, SavedTool>();

  constructor(
    private readonly engine: ToolSearch,
    private readonly source: SavedToolsets,
    private readonly damaged: (error: unknown) => void,
  ) {}

  get size(): number {
    return this.engine.size;
  }

  has(name: string): boolean {
    return this.engine.has(name);
  }

  get(name: string): SavedTool | undefined {
    let tool = this.made.get(name);
    if (tool) return tool;
    const toolset = this.engine.toolsetOfTool(name);
    if (toolset === undefined) return undefined;
    tool = new SavedTool(name, toolset, this.source, this.engine, this.damaged);
    this.made.set(name, tool);
    return tool;
  }

  /** A tool's toolset, without making its entry (undefined when not held). */
  toolsetOf(name: string): string | undefined {
    return this.engine.toolsetOfTool(name);
  }

  /** Every tool's name, in the index's order (the catalog's: it was built toolset after toolset). */
  names(toolset?: string): string[] {
    const list = this.engine.listTools();
    return (toolset === undefined ? list : list.filter((t) => t.toolset === toolset)).map((t) => t.name);
  }

  /** The tools as a Map of their own, for a catalog that changes them. */
  toMap(): Map<string, CatalogTool> {
    return new Map(this.names().map((name) => [name, this.get(name)!]));
  }
}

/**
 * True when `definition` is what the index holds of it (toEngineTool's tool without its
 * toolset), key order included: no key toEngineTool drops (an upstream's outputSchema, _meta,
 * an empty title or description, null annotations), none in another order. The gateway's
 * last entry stores only the definitions that are not. Compared with toEngineTool's own
 * output (keys in order, values by identity), so the two cannot disagree.
 */
export function heldByIndex(definition: Tool): boolean {
  const { toolset: _toolset, ...held } = toEngineTool({ name: definition.name, toolset: '', definition });
  const keys = Object.keys(definition);
  const heldKeys = Object.keys(held);
  return (
    keys.length === heldKeys.length &&
    keys.every(
      (key, i) =>
        key === heldKeys[i] &&
        (definition as Record<string, unknown>)[key] === (held as Record<string, unknown>)[key],
    )
  );
}

/** A tool's definition as the index holds it (heldByIndex), a copy of its own. */
function indexedDefinition(engine: ToolSearch, name: string): Tool {
  const tool = engine.get(name);
  if (!tool) throw new ToolSearchError('INVALID_INDEX', `toolsearch: invalid index: it lacks ${name}`);
  const { toolset: _toolset, ...definition } = structuredClone(tool);
  return definition as Tool;
}

/** Most phrasings Catalog keeps per tool from addPhrasings (enrichment); the engine bounds its own. */
const MAX_ADDED_PHRASINGS = 20;

export class Catalog {
  /**
   * Made when first needed (the engine getter, or prepare()), replaced only by restore() and
   * rebuild(): a gateway that restores its index from the cache would make one only to drop
   * it, and making one builds its synonym map and starts loading its embedding model.
   */
  private current: ToolSearch | undefined;
  private readonly engineOptions: EngineOptions;
  /** Replaced whole only by a restore; answered from the engine after restoreSaved (SavedTools) until changed. */
  private tools: Map<string, CatalogTool> | SavedTools = new Map();
  private readonly log: (line: string) => void;
  /** Phrasings added per tool (model-written), re-applied when an upstream re-lists the tool. */
  private readonly added = new Map<string, string[]>();
  private readonly indexedListeners = new Set<(names: readonly string[]) => void>();
  /** Rebuilds the index when a restored one turns out damaged (onDamagedIndex); the rebuild under way. */
  private repairer: ((error: ToolSearchError) => Promise<void>) | undefined;
  private repairing: Promise<void> | undefined;

  constructor(options: { engine?: EngineOptions; log?: (line: string) => void } = {}) {
    this.engineOptions = options.engine ?? {};
    this.log = options.log ?? stderrLog;
  }

  private get engine(): ToolSearch {
    this.current ??= new ToolSearch(this.engineOptions);
    return this.current;
  }

  /**
   * Makes the engine now, unless there is one: bad engine options throw here, and an
   * embedding model starts loading while the caller waits for tools to index.
   */
  prepare(): void {
    void this.engine;
  }

  get size(): number {
    return this.tools.size;
  }

  /** Characters of a query the engine searches (its limits.maxQueryChars). */
  get maxQueryChars(): number {
    return this.engine.maxQueryChars;
  }

  /** Resolves once the engine has loaded everything (the embedding model, vectors): searches after it rank with every strategy. */
  ready(): Promise<void> {
    return this.engine.ready();
  }

  get(name: string): CatalogTool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** Tool names of a toolset, in the order they were added. */
  toolsOf(toolset: string): string[] {
    if (this.tools instanceof SavedTools) return this.tools.names(toolset);
    return [...this.tools.values()].filter((t) => t.toolset === toolset).map((t) => t.name);
  }

  toolsets(): ToolsetInfo[] {
    return this.engine.toolsets();
  }

  /** By the engine's counts: toolsets() describes every toolset from its tools' definitions. */
  hasToolset(toolset: string): boolean {
    return this.engine.toolCounts().has(toolset);
  }

  /** The tools as a Map this catalog may change (a restoreSaved catalog's are made then). */
  private ownTools(): Map<string, CatalogTool> {
    if (this.tools instanceof SavedTools) this.tools = this.tools.toMap();
    return this.tools;
  }

  /**
   * Replaces every tool of `toolset` by `tools`. A tool the engine rejects
   * (e.g. a malformed upstream definition) is skipped and logged rather than
   * taking the whole toolset down with it.
   */
  setToolset(toolset: string, tools: readonly Tool[]): void {
    const old = this.toolsOf(toolset);
    if (old.length > 0) this.engine.remove(old);
    const held = this.ownTools();
    for (const name of old) held.delete(name);
    this.indexed(this.addTo(this.engine, toolset, tools));
  }

  /**
   * Replaces everything by a fresh index of `toolsets`, built aside (as setToolset in this order
   * on an empty catalog builds it) and swapped in at once: searches meanwhile use the old index,
   * never a half-built one. Added phrasings are applied again and the onIndexed listeners told,
   * as after setToolset. Returns the index's bytes as built, before any of that (what restore()
   * takes), for the gateway's index cache.
   */
  rebuild(toolsets: ReadonlyMap<string, readonly Tool[]>): Uint8Array {
    const engine = new ToolSearch(this.engineOptions);
    const entries: CatalogTool[] = [];
    for (const [toolset, tools] of toolsets) entries.push(...this.addTo(engine, toolset, tools));
    const bytes = engine.toBytes();
    this.current = engine;
    this.tools = new Map();
    this.indexed(entries);
    return bytes;
  }

  /** Adds one toolset's tools to `engine`, skipping (and logging) those it rejects; returns the added ones. */
  private addTo(engine: ToolSearch, toolset: string, tools: readonly Tool[]): CatalogTool[] {
    let entries = tools.map((definition) => ({ name: definition.name, toolset, definition }));
    try {
      engine.add(entries.map(toEngineTool));
    } catch (err) {
      if (!(err instanceof ToolSearchError) || err.issues.length === 0) throw err;
      const bad = new Set(err.issues.map((i) => i.index).filter((i): i is number => i !== undefined));
      this.log(`toolsearch-mcp: skipped ${bad.size} tool(s) of ${toolset}: ${err.message}`);
      entries = entries.filter((_, i) => !bad.has(i));
      engine.add(entries.map(toEngineTool));
    }
    return entries;
  }

  /** Tools now in the engine: kept here, given back their added phrasings, announced. */
  private indexed(entries: readonly CatalogTool[]): void {
    const tools = this.ownTools();
    for (const entry of entries) tools.set(entry.name, entry);
    this.announce(() => entries.map((e) => e.name));
  }

  /**
   * Tools the catalog now holds (`names()`, asked for only when needed): given back their
   * added phrasings, announced to the onIndexed listeners.
   */
  private announce(names: () => readonly string[]): void {
    const engine = this.engine as unknown as PhrasingEngine;
    // Most starts have nothing added yet and no listener: no name list then.
    if (this.added.size === 0 && this.indexedListeners.size === 0) return;
    const list = names();
    if (this.added.size > 0) {
      for (const name of list) {
        const added = this.added.get(name);
        if (added && engine.addPhrasings) engine.addPhrasings(name, added);
      }
    }
    for (const listener of this.indexedListeners) listener(list);
  }

  /**
   * Takes over a saved index (toBytes() of a catalog that indexed exactly `toolsets`, by
   * setToolset in this order) instead of indexing the tools again: the gateway's index cache.
   * The catalog then holds those toolsets and no other tools; added phrasings are applied again
   * and the onIndexed listeners told, as after setToolset. The tools the index does not hold are
   * the ones the engine rejected when it was built, logged as setToolset logs them. Throws
   * INVALID_INDEX (the saved index's own checks, or an index that does not hold these toolsets)
   * and then leaves the catalog as it was.
   */
  restore(index: Uint8Array | SavedFile, toolsets: ReadonlyMap<string, readonly Tool[]>): void {
    const engine = this.loadEngine(index);
    const held = new Map(engine.toolsets().map((t) => [t.name, t.toolCount]));
    const entries: CatalogTool[] = [];
    let probe: Probe | undefined;
    for (const [toolset, tools] of toolsets) {
      const kept = tools.filter((definition) => engine.has(definition.name));
      if (kept.length !== (held.get(toolset) ?? 0))
        throw new ToolSearchError(
          'INVALID_INDEX',
          `toolsearch: invalid index: toolset ${toolset} has ${held.get(toolset) ?? 0} tools in the index, ${kept.length} of its ${tools.length} listed`,
        );
      const missing = tools.filter((definition) => !engine.has(definition.name));
      if (missing.length > 0) probe ??= new Probe(this.engineOptions);
      const indexable = missing.find((definition) => probe?.accepts(definition, toolset));
      if (indexable)
        throw new ToolSearchError(
          'INVALID_INDEX',
          `toolsearch: invalid index: it lacks ${indexable.name}, which the engine accepts`,
        );
      if (kept.length < tools.length)
        this.log(
          `toolsearch-mcp: skipped ${tools.length - kept.length} tool(s) of ${toolset} (rejected when indexed)`,
        );
      for (const definition of kept) entries.push({ name: definition.name, toolset, definition });
    }
    this.adopt(engine, entries);
  }

  /**
   * restore() from the tool lists stored with the index (the gateway's start before its
   * upstreams list): the index holds the catalog's tools in the catalog's order (it was built
   * toolset after toolset), so names and toolsets come from the index, checked against the
   * stored counts, and each tool's entry is made and its definition read when first needed
   * (SavedTools; parsing 100k definitions was half of a start from the cache). Counts that do
   * not match, or a stored definition of a tool the index does not hold in that toolset, are
   * INVALID_INDEX, and the catalog is then left as it was.
   */
  restoreSaved(index: Uint8Array | SavedFile, saved: SavedToolsets): void {
    const engine = this.loadEngine(index);
    const counts = engine.toolCounts();
    const seen = new Set<string>();
    let total = 0;
    for (const { name: toolset, listed, indexed, stored } of saved.toolsets) {
      const held = counts.get(toolset) ?? 0;
      if (held !== indexed || seen.has(toolset))
        throw new ToolSearchError(
          'INVALID_INDEX',
          `toolsearch: invalid index: toolset ${toolset} has ${held} tools in the index, ${indexed} as stored with it`,
        );
      seen.add(toolset);
      total += indexed;
      for (const name of stored)
        if (engine.toolsetOfTool(name) !== toolset)
          throw new ToolSearchError(
            'INVALID_INDEX',
            `toolsearch: invalid index: it lacks ${name} of toolset ${toolset}, stored with it`,
          );
      if (indexed < listed)
        this.log(`toolsearch-mcp: skipped ${listed - indexed} tool(s) of ${toolset} (rejected when indexed)`);
    }
    if (total !== engine.size)
      throw new ToolSearchError(
        'INVALID_INDEX',
        `toolsearch: invalid index: it holds ${engine.size} tools, the toolsets ${total}`,
      );
    const tools = new SavedTools(engine, saved, (error) => this.damaged(error));
    this.current = engine;
    this.tools = tools;
    this.announce(() => tools.names());
  }

  /**
   * The upstreams listed exactly the tools of a restoreSaved() index: their definitions (the
   * same JSON) replace the saved ones, read or not, so the saved lists' bytes can go.
   */
  keepDefinitions(toolsets: ReadonlyMap<string, readonly Tool[]>): void {
    const saved = this.tools;
    if (!(saved instanceof SavedTools)) return;
    const tools = new Map<string, CatalogTool>();
    for (const [toolset, list] of toolsets) {
      for (const definition of list) {
        // By the engine's toolset: making every tool's entry only to read it made 100k of them.
        if (saved.toolsetOf(definition.name) === toolset)
          tools.set(definition.name, { name: definition.name, toolset, definition });
      }
    }
    // Lists that are not the index's after all (the caller compared their keys): the rest stay saved.
    if (tools.size !== saved.size)
      for (const name of saved.names()) if (!tools.has(name)) tools.set(name, saved.get(name)!);
    this.tools = tools;
  }

  /** A saved index as an engine with this catalog's options. */
  private loadEngine(index: Uint8Array | SavedFile): ToolSearch {
    // The saved index keeps the pack setting it was built with; passing one re-analyses every tool.
    const { pack: _pack, ...options } = this.engineOptions;
    return ToolSearch.load(index, options);
  }

  /** The engine of a restore, once its tools are known to be exactly `entries`. */
  private adopt(engine: ToolSearch, entries: readonly CatalogTool[]): void {
    const tools = new Map<string, CatalogTool>();
    for (const entry of entries) tools.set(entry.name, entry);
    if (entries.length !== engine.size || tools.size !== engine.size)
      throw new ToolSearchError(
        'INVALID_INDEX',
        `toolsearch: invalid index: it holds ${engine.size} tools, the toolsets ${tools.size}`,
      );
    this.current = engine;
    this.tools = tools;
    this.announce(() => entries.map((e) => e.name));
  }

  /** The index as bytes (core-search's saved index), for restore(). */
  toBytes(): Uint8Array {
    return this.engine.toBytes();
  }

  /** Called with the names of tools (re-)indexed, e.g. to feed them their learned uses. */
  onIndexed(listener: (names: readonly string[]) => void): () => void {
    this.indexedListeners.add(listener);
    return () => this.indexedListeners.delete(listener);
  }

  /** Feeds learned (query -> tool) uses to the engine. Uses of unknown tools are dropped. */
  learn(uses: readonly LearnedUse[]): void {
    const known = uses.filter((u) => this.tools.has(u.tool));
    const engine = this.engine as unknown as PhrasingEngine;
    if (known.length > 0 && engine.learn) engine.learn(known);
  }

  /** Adds everyday phrasings to a tool (enrichment); kept across re-lists of its upstream. */
  addPhrasings(name: string, phrasings: readonly string[]): void {
    if (!this.tools.has(name)) return;
    const list = [...new Set([...(this.added.get(name) ?? []), ...phrasings])].slice(0, MAX_ADDED_PHRASINGS);
    this.added.set(name, list);
    const engine = this.engine as unknown as PhrasingEngine;
    engine.addPhrasings?.(name, [...phrasings]);
  }

  /** Phrasings a tool brings or was given: its definition's, then added ones. */
  phrasingsOf(name: string): string[] {
    const tool = this.engine.get(name);
    const own = [...((tool?.phrasings as string[] | undefined) ?? []), ...(tool?.examples ?? [])];
    return [...new Set([...own, ...(this.added.get(name) ?? [])])];
  }

  /** The tools of `name`'s toolset closest to it (its summary searched within the toolset). */
  async closest(name: string, limit: number): Promise<string[]> {
    const entry = this.tools.get(name);
    if (!entry) return [];
    const text = summarize(entry.definition.description) || name;
    const response = await this.engine.search(text, { limit: limit + 1, toolsets: [entry.toolset] });
    return response.results
      .map((r) => r.name)
      .filter((n) => n !== name)
      .slice(0, limit);
  }

  /** Adds tools whose toolset follows from their name (library mode). */
  addTools(tools: readonly { definition: Tool; toolset?: string }[]): void {
    const byToolset = new Map<string, Tool[]>();
    for (const t of tools) {
      // core-search's rule, so the adapter and the engine group a name alike.
      const toolset = toolsetOf({ name: t.definition.name, ...(t.toolset ? { toolset: t.toolset } : {}) });
      byToolset.set(toolset, [...(byToolset.get(toolset) ?? []), t.definition]);
    }
    for (const [toolset, defs] of byToolset) this.setToolset(toolset, [...this.existing(toolset), ...defs]);
  }

  /**
   * Searches the index. A restored index reads each tool's text when a search first returns
   * it and refuses a damaged one (INVALID_INDEX, core-search's saved-index.ts): the search
   * then waits for the index to be built again (onDamagedIndex) and answers from that one,
   * never from the damaged one.
   */
  async search(query: string, options: CatalogSearchOptions): Promise<SearchResponse> {
    const run = () =>
      searchAlternatives(this.engine, query, options.alternatives ?? [], {
        limit: options.limit,
        ...(options.toolset ? { toolsets: [options.toolset] } : {}),
      });
    try {
      return await run();
    } catch (error) {
      if (!this.damaged(error)) throw error;
      await this.repairing;
      return run();
    }
  }

  /**
   * How to build the index again when a restored one turns out damaged after it was adopted
   * (a tool's text that fails its check when first read): the gateway indexes its upstreams'
   * lists. Without it, such a search fails with INVALID_INDEX.
   */
  onDamagedIndex(repair: (error: ToolSearchError) => Promise<void>): void {
    this.repairer = repair;
  }

  /** Starts the repair of a damaged restored index (once at a time); false when `error` is not that or there is no repairer. */
  private damaged(error: unknown): boolean {
    if (!(error instanceof ToolSearchError) || error.code !== 'INVALID_INDEX' || !this.repairer) return false;
    this.repairing ??= this.repairer(error).finally(() => {
      this.repairing = undefined;
    });
    return true;
  }

  /** Did-you-mean for an unknown tool name: the engine's best matches for the name itself. */
  async suggestTools(name: string, limit = 3): Promise<string[]> {
    if (name.trim() === '' || this.tools.size === 0) return [];
    const response = await this.engine.search(name, { limit });
    return response.results.map((r) => r.name);
  }

  /**
   * Did-you-mean for an unknown toolset: the close spellings (core-search's closestNames, the
   * rule of the engine's own UNKNOWN_TOOLSET error), then the toolsets whose tools best match
   * the name as a query. The second part is the adapter's on purpose: an agent often names a
   * toolset by its topic ("email") rather than misspelling it, and the engine's error has no
   * search to offer (it answers a caller's filter, not a request).
   */
  async suggestToolsets(name: string, limit = 3): Promise<string[]> {
    if (name.trim() === '' || this.tools.size === 0) return [];
    const response = await this.engine.search(name, { limit: 10 });
    const byName = closestNames(
      name,
      this.toolsets().map((t) => t.name),
      limit,
    );
    return [...new Set([...byName, ...response.toolsets.map((t) => t.toolset)])].slice(0, limit);
  }

  private existing(toolset: string): Tool[] {
    return this.toolsOf(toolset).map((n) => (this.tools.get(n) as CatalogTool).definition);
  }
}

/**
 * Tells whether the engine indexes a tool (restore: a listed tool missing from a saved index
 * must be one the engine refused, else the index is not the one built from these lists). One
 * lexical engine with the catalog's limits for all the tools asked about: validation depends on
 * the limits, not on the strategies.
 */
class Probe {
  private readonly engine: ToolSearch;

  constructor(options: EngineOptions) {
    this.engine = new ToolSearch({
      embedding: false,
      pack: false,
      ...(options.limits ? { limits: options.limits } : {}),
    });
  }

  accepts(definition: Tool, toolset: string): boolean {
    try {
      this.engine.add([toEngineTool({ name: definition.name, toolset, definition })]);
      return true;
    } catch {
      return false;
    }
  }
}

function toEngineTool(entry: CatalogTool): ToolDefinition {
  const { definition } = entry;
  return {
    name: entry.name,
    toolset: entry.toolset,
    ...(definition.title ? { title: definition.title } : {}),
    ...(definition.description ? { description: definition.description } : {}),
    inputSchema: definition.inputSchema as ToolDefinition['inputSchema'],
    ...(definition.annotations ? { annotations: definition.annotations as Record<string, unknown> } : {}),
  };
}
