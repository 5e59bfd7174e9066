import { AnalysisMemo, analyze } from './analysis/analyze.js';
import { analyzeTool } from './analysis/document.js';
import { bareName } from './analysis/identifier.js';
import type { PhrasingSource } from './analysis/phrasings.js';
import { analyzeQuery } from './analysis/query.js';
import { summarize } from './analysis/summarize.js';
import { Corpus } from './corpus.js';
import { DEFAULTS, FIELD_NAMES } from './defaults.js';
import { ToolSearchError } from './errors.js';
import { fuse, type StrategyRanking } from './fusion.js';
import {
  type LearnedUse,
  learnedTerms,
  mergeUse,
  pruneUses,
  type ToolUse,
  type ToolUses,
  useKey,
  validateUses,
} from './learning.js';
import {
  booleanOption,
  integerInRange,
  type Limits,
  limitOptions,
  positiveNumber,
  strategyList,
  stringList,
  synonymOption,
  weightMap,
} from './options.js';
import { PhrasingPack } from './pack.js';
import type { EmbeddingOptions, RetrieverContext, RetrieverFactory } from './retrieval/context.js';
import { DEFAULT_RETRIEVERS } from './retrieval/registry.js';
import { SHAPES, shapeNumber } from './retrieval/shape.js';
import { buildSynonymMap, expandTerms, rewriteIdioms } from './retrieval/synonym-map.js';
import { ToolsetTable } from './retrieval/toolset-table.js';
import { Vocabulary } from './retrieval/vocabulary.js';
import type { IndexedDoc, RetrievalHit, Retriever } from './retriever.js';
import { SavedFile } from './saved-file.js';
import { SavedDoc, SavedIndex, writeSavedIndex } from './saved-index.js';
import {
  ANALYZER_VERSION,
  deserializeIndex,
  invalidIndex,
  type SerializedDoc,
  type SerializedOptions,
  serializeIndex,
} from './serialize.js';
import { closestNames } from './suggest.js';
import {
  type Degraded,
  type SearchExplanation,
  type SearchOptions,
  type SearchResponse,
  type SearchResult,
  STRATEGY_NAMES,
  type StrategyName,
  type ToolDefinition,
  type ToolsetInfo,
  type ToolsetSuggestion,
} from './types.js';
import { validatePhrasings, validateTools } from './validate.js';

export type { EmbeddingOptions };

/** No strategies switched off (a search without `disable`). */
const NONE: ReadonlySet<StrategyName> = new Set();

export interface Progress {
  phase: string;
  done: number;
  total: number;
}

/** The `pack` option as an object: servers left out, or another pack than the shipped one. */
export interface PackOptions {
  /** Pack servers (pack/<server>.json) whose phrasings are not applied (leave-one-server-out). */
  exclude?: string[];
  /** Another pack than the shipped one (PhrasingPack over your own registry and pack files). */
  source?: PhrasingPack;
}

export interface ToolSearchOptions {
  /** Indexed at construction, exactly like add(). */
  tools?: ToolDefinition[];
  /**
   * Default true: the engine keeps its own copy of each tool it indexes (as JSON would save
   * it), so changing a tool object after add() changes nothing indexed. false keeps the
   * given objects instead (still validated: the same errors and size limit; anything JSON
   * would change is still copied): for tools nothing else holds, such as a tools file just
   * parsed, which then must not be changed. It saves the copy, a fifth of indexing ~100k tools.
   */
  copyTools?: boolean;
  /** Strategies switched off engine-wide (ablation). */
  disable?: StrategyName[];
  /** RRF weight per strategy; multiplies the shape weights of defaults.ts. 0 switches it off. */
  weights?: Partial<Record<StrategyName, number>>;
  /** RRF constant; default 60. */
  rrfK?: number;
  /** Extends the built-in synonym map: word or phrase -> equivalent words or phrases. */
  synonyms?: Record<string, string[]>;
  /**
   * Size budgets for untrusted input (defaults.ts `limits`, and `analysis.maxQueryChars`):
   * longer queries are truncated before any strategy sees them; larger tools and synonym
   * maps are rejected with a typed error.
   */
  limits?: Partial<Limits>;
  /** Semantic strategy options; false switches it off. */
  embedding?: EmbeddingOptions | false;
  onProgress?: (progress: Progress) => void;
  /**
   * The shipped phrasing pack (pack/README.md): everyday requests for the bundled
   * registry's tools, applied to every added tool recognised by its definition (whatever
   * its server is called). Default true; false switches it off.
   */
  pack?: boolean | PackOptions;
  /** Advanced: the retriever factories to build the engine from (default DEFAULT_RETRIEVERS). */
  retrievers?: readonly RetrieverFactory[];
}

/**
 * The search engine: validates and analyses tools once, keeps them in every strategy's
 * index incrementally, and answers a query by running the strategies that fit its
 * shape and fusing their rankings (fusion.ts). All retrieval logic lives in
 * src/retrievers; this class only orchestrates.
 */
export class ToolSearch {
  private readonly docs = new Map<number, IndexedDoc>();
  /**
   * 1 at the ids in `docs`: a search checks every strategy's hits against it (a Map lookup
   * per hit, ~800 a search at 10k tools, cost more than fusing them).
   */
  private live = new Uint8Array(64);
  /**
   * Each indexed tool's toolset, by id, as a number, and the tools per toolset, kept
   * incrementally: toolset suggestions read it for the best 30 fused hits of every search,
   * where a lookup in `docs` and a read of the document each cost a cold hash probe
   * (compare.ts's 10k window: lexical p50 -4%, old and new sources interleaved in one
   * process, two runs, load 5-9).
   */
  private readonly toolsetTable = new ToolsetTable();
  private idByName = new Map<string, number>();
  /** Result summaries, computed on first display (descriptions are long, results few). */
  private readonly summaries = new Map<number, string>();
  private nextId = 0;
  private readonly corpus = new Corpus();
  private readonly retrievers: Retriever[];
  /**
   * Per query shape (by shapeNumber), each retriever's fusion weight before its weightFor (the
   * shape weight times the `weights` option; 0 when switched off engine-wide), fixed at
   * construction: a search reads one small array instead of two Sets and two objects by name
   * per retriever.
   */
  private readonly baseWeights: readonly Float64Array[];
  private readonly pending = new Set<Promise<unknown>>();
  private readonly disabled: ReadonlySet<StrategyName>;
  private readonly weights: Partial<Record<StrategyName, number>>;
  private readonly rrfK: number;
  private readonly limits: Limits;
  private readonly copyTools: boolean;
  private readonly synonymOption: Record<string, string[]>;
  private readonly synonyms: ReturnType<typeof buildSynonymMap>;
  private readonly onProgress: ((progress: Progress) => void) | undefined;
  private readonly pack: { exclude: ReadonlySet<string>; source: PhrasingPack | undefined } | false;
  /** Learned uses by tool name (kept while a tool is removed, applied again when it is re-added). */
  private readonly uses = new Map<string, ToolUses>();
  /** The newest lastSeen among the learned uses: the "now" they age from (never the clock). */
  private newestUse: number | undefined;

  constructor(options: ToolSearchOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new ToolSearchError('INVALID_OPTION', 'toolsearch: options must be an object');
    }
    this.disabled = new Set(strategyList(options.disable, 'disable'));
    this.weights = { ...weightMap(options.weights) };
    this.rrfK = positiveNumber(options.rrfK, 'rrfK', DEFAULTS.fusion.rrfK);
    this.limits = limitOptions(options.limits);
    this.copyTools = booleanOption(options.copyTools, 'copyTools', true);
    this.synonymOption = synonymOption(options.synonyms, this.limits);
    this.synonyms = buildSynonymMap(this.synonymOption);
    this.onProgress = options.onProgress;
    this.pack = packOption(options.pack);
    const context: RetrieverContext = {
      corpus: this.corpus,
      docs: this.docs,
      synonyms: this.synonyms,
      vocabulary: new Vocabulary(this.corpus),
      // Switched off engine-wide = never loaded; the engine's progress callback reports embedding too.
      embedding:
        options.embedding === false || this.disabled.has('embedding')
          ? false
          : { onProgress: options.onProgress, ...options.embedding },
    };
    this.retrievers = (options.retrievers ?? DEFAULT_RETRIEVERS)
      .map((create) => create(context))
      .filter((retriever): retriever is Retriever => retriever !== undefined);
    this.enabledStrategies([], undefined); // every strategy switched off fails here, not at each search
    this.baseWeights = SHAPES.map((shape) =>
      Float64Array.from(this.retrievers, ({ name }) =>
        this.disabled.has(name) ? 0 : DEFAULTS.shapeWeights[shape][name] * (this.weights[name] ?? 1),
      ),
    );
    if (options.tools !== undefined) this.add(options.tools);
  }

  get size(): number {
    return this.docs.size;
  }

  /**
   * The query budget (limits.maxQueryChars): a search reads at most this many characters
   * of a query. A caller holding untrusted text can cut it here first and say so.
   */
  get maxQueryChars(): number {
    return this.limits.maxQueryChars;
  }

  has(name: string): boolean {
    return this.idByName.has(name);
  }

  get(name: string): ToolDefinition | undefined {
    const id = this.idByName.get(name);
    return id === undefined ? undefined : this.docs.get(id)?.tool;
  }

  /** Index tools. Atomic: on INVALID_TOOL / DUPLICATE_TOOL nothing is added. */
  add(tools: ToolDefinition[]): void {
    this.addWith(tools, []);
  }

  /**
   * Add everyday requests to an indexed tool (after its own and earlier added ones, before
   * the pack's; bounded per tool by DEFAULTS.phrasings, repeats by case and spacing
   * dropped). Re-indexes that tool only. Returns how many of them are new to the tool.
   * Throws UNKNOWN_TOOL for a name not indexed, INVALID_PHRASING for anything but an array
   * of strings (nothing is changed then).
   */
  addPhrasings(name: string, phrasings: string[]): { added: number } {
    const list = validatePhrasings(phrasings, 'phrasings');
    const id = typeof name === 'string' ? this.idByName.get(name) : undefined;
    if (id === undefined) {
      throw new ToolSearchError(
        'UNKNOWN_TOOL',
        `toolsearch: cannot add phrasings to unknown tool ${JSON.stringify(name)}`,
        [{ name: String(name), field: 'name', message: 'not indexed' }],
      );
    }
    const old = this.docs.get(id)!;
    const before = old.phrasings.length;
    const doc = analyzeTool(old.tool, id, {
      added: [...sourced(old, 'added'), ...list],
      pack: sourced(old, 'pack'),
      learned: old.fields.learned,
    });
    // Own and added phrasings come before the pack's, so a full tool may trade pack
    // phrasings for added ones: count what is new, not the change in length.
    const known = new Set(old.phrasings.map((p) => p.text.toLowerCase()));
    const added = doc.phrasings.filter((p) => !known.has(p.text.toLowerCase())).length;
    if (added > 0 || doc.phrasings.length !== before) this.replace(old, doc);
    return { added };
  }

  /**
   * Learn from use: `query` was searched for, then `tool` loaded or called (one use or an
   * array; `count` times, last at `lastSeen`). Uses of one tool and normalised query add
   * up; each tool keeps its strongest DEFAULTS.learning.maxPerTool, ageing with a
   * half-life from the newest use seen. The affected tools are re-indexed in place.
   * The same uses in any order, in one call or many, give the same ranking.
   *
   * Uses naming tools that are not indexed are ignored and counted (`unknown`, the first
   * ten names in `unknownTools`): registries change, and a log outlives its tools.
   * Malformed uses throw INVALID_PHRASING naming `uses[i].field`, and nothing is learned.
   */
  learn(uses: ToolUse | readonly ToolUse[]): { learned: number; unknown: number; unknownTools: string[] } {
    const valid = validateUses(uses);
    const touched = new Set<string>();
    const unknown = new Set<string>();
    let learned = 0;
    let unknownCount = 0;
    const before = this.newestUse;
    for (const use of valid) {
      if (!this.idByName.has(use.tool)) {
        unknownCount++;
        if (unknown.size < 10) unknown.add(use.tool);
        continue;
      }
      this.mergeUse(use);
      touched.add(use.tool);
      learned++;
    }
    // A newer use ages every other: all tools with uses are looked at again.
    const names = this.newestUse === before ? touched : new Set(this.uses.keys());
    this.relearn(names);
    return { learned, unknown: unknownCount, unknownTools: [...unknown] };
  }

  /** The learned uses, aggregated, by tool then query: what a store persists and feeds back. */
  learned(): LearnedUse[] {
    const all: LearnedUse[] = [];
    for (const name of [...this.uses.keys()].sort()) {
      for (const use of [...this.uses.get(name)!.values()].sort((a, b) => (a.query < b.query ? -1 : 1))) {
        all.push({ ...use });
      }
    }
    return all;
  }

  /**
   * Forget learned uses: all of them, a tool's, or one query of a tool (matched after
   * normalisation). Returns how many were forgotten; the affected tools are re-indexed.
   */
  forget(filter: { tool?: string; query?: string } = {}): number {
    if (filter === null || typeof filter !== 'object') {
      throw new ToolSearchError('INVALID_OPTION', 'toolsearch: forget() takes { tool?, query? }');
    }
    const { tool, query } = filter;
    if (
      (tool !== undefined && typeof tool !== 'string') ||
      (query !== undefined && typeof query !== 'string')
    ) {
      throw new ToolSearchError('INVALID_OPTION', 'toolsearch: forget(): tool and query must be strings');
    }
    const names = tool === undefined ? [...this.uses.keys()] : this.uses.has(tool) ? [tool] : [];
    let forgotten = 0;
    for (const name of names) {
      const toolUses = this.uses.get(name)!;
      if (query === undefined) {
        forgotten += toolUses.size;
        toolUses.clear();
      } else if (toolUses.delete(useKey(query))) forgotten++;
      if (toolUses.size === 0) this.uses.delete(name);
    }
    let newest: number | undefined;
    for (const toolUses of this.uses.values()) {
      for (const use of toolUses.values()) {
        if (use.lastSeen !== undefined) newest = Math.max(newest ?? use.lastSeen, use.lastSeen);
      }
    }
    const aged = newest !== this.newestUse;
    this.newestUse = newest;
    this.relearn(aged ? new Set([...this.uses.keys(), ...names]) : new Set(names));
    return forgotten;
  }

  /** Prune and re-index the learned field of these tools, in name order (deterministic). */
  private relearn(names: ReadonlySet<string>): void {
    for (const name of [...names].sort()) {
      const toolUses = this.uses.get(name);
      if (toolUses) {
        pruneUses(toolUses, this.newestUse);
        if (toolUses.size === 0) this.uses.delete(name);
      }
      const id = this.idByName.get(name);
      if (id === undefined) continue;
      const old = this.docs.get(id)!;
      const terms = learnedTerms(this.uses.get(name), this.newestUse, ownTerms(old));
      if (sameTerms(terms, old.fields.learned)) continue;
      this.replace(
        old,
        analyzeTool(old.tool, id, {
          added: sourced(old, 'added'),
          pack: sourced(old, 'pack'),
          learned: terms,
        }),
      );
    }
  }

  private addWith(tools: ToolDefinition[], added: readonly (readonly string[] | undefined)[]): void {
    const names = new Map<string, number>();
    const valid = validateTools(
      tools,
      (name) => this.idByName.has(name),
      this.limits.maxToolChars,
      this.copyTools,
      names,
    );
    const docs: IndexedDoc[] = [];
    const memo = new AnalysisMemo();
    valid.forEach((tool, i) => {
      const extra = { added: added[i], pack: this.packPhrasings(tool, memo) };
      let doc = analyzeTool(tool, this.nextId + i, extra, memo);
      const uses = this.uses.get(tool.name);
      // Learned before the tool was (re-)added: its uses are attributed to its own text.
      if (uses) {
        const learned = learnedTerms(uses, this.newestUse, ownTerms(doc));
        doc = analyzeTool(tool, this.nextId + i, { ...extra, learned }, memo);
      }
      docs.push(doc);
      if ((i + 1) % 1000 === 0) this.progress('analyze', i + 1, valid.length);
    });
    this.progress('analyze', valid.length, valid.length);
    // Into an engine that has never held a tool, each id is its index in the batch: the
    // validation's map of names to indexes (its duplicate check) is then the map of names to
    // ids, and register() need not hash every name into a second map of the same size.
    const named = this.nextId === 0 && this.idByName.size === 0;
    if (named) this.idByName = names;
    this.insert(docs, named);
  }

  /** The pack's phrasings for a tool, unless the pack is off or the tool is not in it. */
  private packPhrasings(tool: ToolDefinition, memo: AnalysisMemo): readonly string[] | undefined {
    if (!this.pack) return undefined;
    const source = this.pack.source ?? PhrasingPack.shipped();
    return source.match(tool, this.pack.exclude, memo)?.phrasings;
  }

  /** Re-index one tool in place (same id, so ties still break by insertion order). */
  private replace(old: IndexedDoc, doc: IndexedDoc): void {
    for (const retriever of this.retrievers) retriever.remove([old.id]);
    this.corpus.remove([old]);
    this.docs.set(doc.id, doc);
    this.corpus.add([doc]);
    for (const retriever of this.retrievers) {
      const done = retriever.add([doc]);
      if (done instanceof Promise) this.track(done);
    }
  }

  private track(done: Promise<unknown>): void {
    const tracked = done.catch(() => undefined).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Forget tools by name. Throws UNKNOWN_TOOL (and removes nothing) if any name is not indexed. */
  remove(names: string[]): void {
    const unknown = stringList(names, 'names')?.filter((name) => !this.idByName.has(name)) ?? [];
    if (unknown.length > 0) {
      throw new ToolSearchError(
        'UNKNOWN_TOOL',
        `toolsearch: cannot remove unknown tool(s): ${unknown.map((n) => JSON.stringify(n)).join(', ')}`,
        unknown.map((name) => ({ name, field: 'name', message: 'not indexed' })),
      );
    }
    const docs = [...new Set(names)].map((name) => this.docs.get(this.idByName.get(name)!)!);
    const ids = docs.map((doc) => doc.id);
    for (const retriever of this.retrievers) retriever.remove(ids);
    this.corpus.remove(docs);
    for (const doc of docs) {
      this.docs.delete(doc.id);
      this.live[doc.id] = 0;
      this.toolsetTable.remove(doc.id);
      this.idByName.delete(doc.name);
      this.summaries.delete(doc.id);
    }
  }

  /** Toolsets with their tool counts, by name. */
  toolsets(): ToolsetInfo[] {
    const byToolset = new Map<string, IndexedDoc[]>();
    for (const doc of this.docs.values()) {
      const list = byToolset.get(doc.toolset);
      if (list) list.push(doc);
      else byToolset.set(doc.toolset, [doc]);
    }
    return [...byToolset]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, docs]) => ({ name, toolCount: docs.length, description: describeToolset(docs) }));
  }

  /**
   * Every tool's name and toolset, by id: the order they were added, unless one was re-indexed
   * in place. A catalog restored from a saved index takes its order and toolsets from here.
   */
  listTools(): { name: string; toolset: string }[] {
    const list = new Array<{ name: string; toolset: string }>(this.docs.size);
    let i = 0;
    for (const doc of this.docs.values()) list[i++] = { name: doc.name, toolset: doc.toolset };
    return list;
  }

  /**
   * An indexed tool's toolset (undefined when not indexed), without reading its definition:
   * a loaded index reads and checks that from its file when first asked for.
   */
  toolsetOfTool(name: string): string | undefined {
    const id = this.idByName.get(name);
    const number = id === undefined ? -1 : this.toolsetTable.of(id);
    return number < 0 ? undefined : this.toolsetTable.name(number);
  }

  /**
   * Tools per toolset, reading no tool: toolsets() describes each toolset from its tools'
   * definitions, every one of them read from the file on a loaded index.
   */
  toolCounts(): Map<string, number> {
    return this.toolsetTable.counts();
  }

  /** Resolves once every retriever has finished loading (embedding model, vectors). */
  async ready(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    await Promise.allSettled(this.retrievers.map((retriever) => retriever.ready?.()));
  }

  /** The strategies a search with these switches would run; none is an error naming the ones there are. */
  private enabledStrategies(
    off: Iterable<StrategyName>,
    only: ReadonlySet<StrategyName> | undefined,
  ): StrategyName[] {
    const skip = new Set(off);
    // By name: a strategy that is on but cannot run (a model that failed to load) degrades
    // a search, it does not make it an error.
    const available = STRATEGY_NAMES.filter((name) => !this.disabled.has(name));
    const enabled = available.filter((name) => !skip.has(name) && (!only || only.has(name)));
    if (enabled.length === 0) {
      throw new ToolSearchError(
        'NO_STRATEGIES',
        available.length === 0
          ? `toolsearch: every strategy is switched off; enable at least one of ${STRATEGY_NAMES.join(', ')}`
          : `toolsearch: this search switches off every strategy; enable at least one of ${available.join(', ')}`,
      );
    }
    return enabled;
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    if (typeof query !== 'string') {
      throw new ToolSearchError('INVALID_QUERY', `toolsearch: query must be a string, got ${typeof query}`);
    }
    if (query.trim() === '') throw new ToolSearchError('EMPTY_QUERY', 'toolsearch: query is empty');
    if (options === null || typeof options !== 'object') {
      throw new ToolSearchError('INVALID_OPTION', 'toolsearch: search options must be an object');
    }
    const limit = integerInRange(options.limit, 'limit', DEFAULTS.search.limit, DEFAULTS.search.maxLimit);
    const toolsetFilter = stringList(options.toolsets, 'toolsets');
    const only =
      options.strategies === undefined ? undefined : new Set(strategyList(options.strategies, 'strategies'));
    const off = options.disable === undefined ? NONE : new Set(strategyList(options.disable, 'disable'));
    // The constructor checked that some strategy is on; only a search's own switches can undo that.
    if (off.size > 0 || only) this.enabledStrategies(off, only);
    if (this.docs.size === 0) {
      throw new ToolSearchError(
        'EMPTY_INDEX',
        'toolsearch: the index holds no tools; add tools before searching',
      );
    }
    const unknownToolsets = toolsetFilter?.filter((name) => !this.toolsetTable.has(name)) ?? [];
    if (unknownToolsets.length > 0) {
      const known = this.toolsetTable.known();
      throw new ToolSearchError(
        'UNKNOWN_TOOLSET',
        `toolsearch: unknown toolset ${unknownToolsets.map((n) => `"${n}"`).join(', ')}; known: ${choices(known, unknownToolsets[0]!)}`,
      );
    }

    // Idioms are part of the synonyms strategy: switching it off (ablation) keeps them literal.
    const synonymsOn =
      !this.disabled.has('synonyms') && !off.has('synonyms') && (!only || only.has('synonyms'));
    // The query's work budget: from here on, every stage sees at most maxQueryChars.
    const bounded = analyzeQuery(query, this.limits.maxQueryChars);
    const analyzed = synonymsOn ? rewriteIdioms(bounded, this.synonyms) : bounded;
    const baseWeights = this.baseWeights[shapeNumber(analyzed.shape)]!;
    const allowed = toolsetFilter ? new Set(toolsetFilter) : undefined;
    const accept = allowed ? (id: number) => allowed.has(this.docs.get(id)?.toolset ?? '') : undefined;
    const depth = Math.max(DEFAULTS.fusion.depth, limit);

    let degraded: Degraded | undefined;
    // The strategies that run (their places in this.retrievers) and their fusion weights.
    const running: number[] = [];
    const weights: number[] = [];
    for (let i = 0; i < this.retrievers.length; i++) {
      const base = baseWeights[i]!;
      if (base === 0) continue; // off, or no weight for this shape: weightFor is not asked
      const retriever = this.retrievers[i]!;
      const name = retriever.name;
      if ((off !== NONE && off.has(name)) || (only && !only.has(name))) continue;
      const weight = base * (retriever.weightFor?.(analyzed) ?? 1);
      if (weight <= 0) continue;
      const status = retriever.status?.() ?? 'ready';
      if (status !== 'ready') {
        if (name === 'embedding')
          degraded = status === 'loading' ? 'embedding-loading' : 'embedding-unavailable';
        continue;
      }
      running.push(i);
      weights.push(weight);
    }

    // Model-backed retrievers (those with a status) start first: their inference runs on
    // ONNX Runtime's threads while the lexical retrievers compute on this one. Rankings are
    // still fused in the retrievers' own order, so the result does not depend on timing.
    // A retriever that answers synchronously (every lexical one) is called directly: a
    // promise and a microtask per strategy per search cost more than category's retrieval.
    // Plain loops, no closure or record per strategy: this runs once per search, so it stays
    // unoptimised for the first thousand or so searches (compare.ts's window).
    const answers = new Array<RetrievalHit[] | undefined>(running.length);
    let failures: Map<number, unknown> | undefined;
    let waiting: Promise<void>[] | undefined;
    for (let pass = 0; pass < 2; pass++) {
      for (let r = 0; r < running.length; r++) {
        const retriever = this.retrievers[running[r]!]!;
        if ((retriever.status !== undefined) !== (pass === 0)) continue;
        try {
          const answer = retriever.retrieve(analyzed, depth, accept);
          if (Array.isArray(answer)) answers[r] = answer as RetrievalHit[];
          else {
            failures ??= new Map();
            waiting ??= [];
            waiting.push(settle(answer, r, answers, failures));
          }
        } catch (reason) {
          failures ??= new Map();
          failures.set(r, reason);
        }
      }
    }
    if (waiting) await Promise.all(waiting);
    const rankings: StrategyRanking[] = [];
    const ran: StrategyName[] = [];
    for (let r = 0; r < running.length; r++) {
      const retriever = this.retrievers[running[r]!]!;
      if (failures?.has(r)) {
        if (retriever.name !== 'embedding') throw failures.get(r);
        degraded = 'embedding-unavailable'; // a failing model degrades search, it never breaks it
        continue;
      }
      // Only tools still indexed: one may have been removed while a model was answering.
      rankings.push({ strategy: retriever.name, weight: weights[r]!, hits: this.liveHits(answers[r]!) });
      ran.push(retriever.name);
    }

    // Fused only as deep as the response reads: its results and the toolset evidence; only
    // the results carry which strategies matched them.
    const fused = fuse(rankings, this.rrfK, Math.max(limit, DEFAULTS.fusion.toolsetEvidenceDepth), limit);
    const results: SearchResult[] = [];
    for (let i = 0; i < fused.length && i < limit; i++) {
      const hit = fused[i]!;
      const doc = this.docs.get(hit.id)!;
      results.push({
        name: doc.name,
        toolset: doc.toolset,
        score: hit.score,
        summary: this.summaryOf(doc),
        matchedBy: hit.matchedBy,
        tool: doc.tool,
      });
    }
    const response: SearchResponse = {
      query: analyzed.raw,
      results,
      toolsets: this.suggestToolsets(fused),
      strategies: ran,
    };
    if (degraded) response.degraded = degraded;
    if (options.explain) response.explain = this.explain(analyzed, rankings, results);
    return response;
  }

  toJSON(): object {
    return serializeIndex({
      docs: [...this.docs.values()],
      options: this.savedOptions(),
      learned: this.learned(),
    });
  }

  private savedOptions(): SerializedOptions {
    return {
      disable: [...this.disabled],
      weights: this.weights,
      rrfK: this.rrfK,
      synonyms: this.synonymOption,
      pack: this.pack === false ? false : { exclude: [...this.pack.exclude].sort() },
    };
  }

  /**
   * The index as bytes (saved-index.ts): the posting lists, the strategies' indexes and
   * each tool's JSON, so ToolSearch.load() starts without analysing or inserting a tool
   * again. Embedding vectors are included once computed (after ready()).
   */
  toBytes(): Uint8Array {
    const docs = [...this.docs.values()].sort((a, b) => a.id - b.id);
    // Ids are renumbered densely in insertion order: tie order, and so rankings, are kept.
    const dense = new Int32Array(this.nextId).fill(-1);
    docs.forEach((doc, i) => {
      dense[doc.id] = i;
    });
    const retrievers: [string, NonNullable<ReturnType<NonNullable<Retriever['exportState']>>>][] = [];
    for (const retriever of this.retrievers) {
      const state = retriever.exportState?.(dense);
      if (state) retrievers.push([retriever.name, state]);
    }
    return writeSavedIndex({
      options: this.savedOptions(),
      learned: this.learned(),
      docs,
      corpus: this.corpus.exportPostings(dense),
      retrievers,
    });
  }

  /**
   * Rebuild an engine from toBytes() or toJSON() output without re-analysing the tools.
   * Pack phrasings are kept as saved, unless `options.pack` is given: then the tools are
   * re-analysed with that pack setting (their own and added phrasings kept). Throws
   * INVALID_INDEX. From toBytes(), a tool is parsed and validated when first returned
   * (get(), a search result), and one that fails then throws INVALID_INDEX naming it. From
   * a SavedFile (internals: openCachedIndex), the tools' texts are read when first needed,
   * each checked then (saved-index.ts); the file is closed when the load fails.
   */
  static load(input: unknown, options: Omit<ToolSearchOptions, 'tools'> = {}): ToolSearch {
    if (input instanceof Uint8Array) return ToolSearch.loadSaved(new SavedIndex(input), options);
    if (input instanceof SavedFile) {
      try {
        return ToolSearch.loadSaved(new SavedIndex(input), options);
      } catch (error) {
        input.close();
        throw error;
      }
    }
    const index = deserializeIndex(input);
    const engine = new ToolSearch({ ...index.options, ...options, tools: undefined });
    // A saved file is input like any other: its tools are checked (and copied) exactly as
    // add() checks them, whether or not their analysis is reused. Written by another
    // analyser version, or loaded for another pack setting: re-analysed.
    const tools = engine.validateSaved(index.tools, 'docs', '.tool');
    engine.restoreUses(index.learned);
    if (index.docs && options.pack === undefined) {
      engine.insertSerialized(index.docs.map((doc, i) => ({ ...doc, tool: tools[i]! })));
    } else engine.addWith(tools, index.added);
    return engine;
  }

  private static loadSaved(file: SavedIndex, options: Omit<ToolSearchOptions, 'tools'>): ToolSearch {
    const engine = new ToolSearch({ ...file.options, ...options, tools: undefined });
    engine.restoreUses(file.learned);
    if (file.analyzer !== ANALYZER_VERSION || options.pack !== undefined) {
      // Another analyser, or another pack setting: every tool is read and analysed again.
      const tools = engine.validateSaved(
        file.names.map((_, i) => file.toolData(i)),
        'tools',
        '',
      );
      const added = file.names.map((_, i) =>
        file
          .phrasings(i)
          .filter((phrasing) => phrasing.source === 'added')
          .map((phrasing) => phrasing.text),
      );
      engine.addWith(tools, added);
      return engine;
    }
    engine.adopt(file);
    return engine;
  }

  /** Take over a saved index's documents, postings and strategy indexes (ids 0..count-1). */
  private adopt(file: SavedIndex): void {
    const toolsets = file.toolsets();
    const validate = (tool: unknown, i: number): ToolDefinition => {
      const [valid] = this.validateSaved([tool], 'tools', '', i);
      if (valid!.name !== file.names[i])
        invalidIndex(`tools[${i}] is named "${valid!.name}", not "${file.names[i]}"`);
      return valid!;
    };
    const { names } = file;
    const docs = new Array<SavedDoc>(names.length);
    for (let i = 0; i < names.length; i++) docs[i] = new SavedDoc(i, names[i]!, toolsets[i]!, file, validate);
    const { postings, lengths } = file.postings();
    this.corpus.importPostings(postings, lengths, docs.length);
    this.nextId = docs.length;
    this.register(docs);
    if (this.idByName.size !== docs.length) file.duplicateName();
    this.retrievers.forEach((retriever, i) => {
      const state = file.retrieverState(retriever.name);
      if (!state || !retriever.importState?.(state, docs.length)) {
        const done = retriever.add(docs);
        if (done instanceof Promise) this.track(done);
      }
      this.progress('index', i + 1, this.retrievers.length);
    });
  }

  /** Adds one use to its tool's aggregate and moves the newest-use clock (learn and load share it). */
  private mergeUse(use: ToolUse): void {
    let toolUses = this.uses.get(use.tool);
    if (!toolUses) {
      toolUses = new Map();
      this.uses.set(use.tool, toolUses);
    }
    mergeUse(toolUses, use);
    if (use.lastSeen !== undefined) this.newestUse = Math.max(this.newestUse ?? use.lastSeen, use.lastSeen);
  }

  /** Learned uses from a saved index, before its documents are inserted (they already hold the terms). */
  private restoreUses(uses: readonly LearnedUse[]): void {
    for (const use of uses) {
      this.mergeUse(use);
    }
  }

  /**
   * validateTools for a saved index: its INVALID_TOOL / DUPLICATE_TOOL become INVALID_INDEX
   * naming `${list}[i]${suffix}` (docs[i].tool in JSON, tools[i] in bytes); `first` is the
   * index of tools[0] in the file.
   */
  private validateSaved(
    tools: readonly unknown[],
    list: string,
    suffix: string,
    first = 0,
  ): ToolDefinition[] {
    try {
      return validateTools(tools, () => false, this.limits.maxToolChars);
    } catch (error) {
      if (!(error instanceof ToolSearchError)) throw error;
      const at = (issue: { index?: number; field?: string }) =>
        `${list}[${(issue.index ?? 0) + first}]${suffix}${issue.field ? `.${issue.field}` : ''}`;
      const issue = error.issues[0];
      const where = issue ? at(issue) : list;
      const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more issue(s))` : '';
      throw new ToolSearchError(
        'INVALID_INDEX',
        `toolsearch: invalid index: ${where}: ${issue?.message ?? error.message}${more}`,
        error.issues.map((i) => ({ ...i, index: (i.index ?? 0) + first, field: at(i) })),
      );
    }
  }

  private insertSerialized(docs: readonly SerializedDoc[]): void {
    this.insert(docs.map((doc, i) => ({ ...doc, id: this.nextId + i, name: doc.tool.name })));
  }

  /** `named`: idByName already maps each document's name to its id (addWith's first add). */
  private insert(docs: readonly IndexedDoc[], named = false): void {
    if (docs.length === 0) return;
    this.nextId += docs.length;
    this.register(docs, named);
    this.corpus.add(docs);
    this.retrievers.forEach((retriever, i) => {
      const done = retriever.add(docs);
      if (done instanceof Promise) this.track(done);
      this.progress('index', i + 1, this.retrievers.length);
    });
  }

  /**
   * New documents enter the engine's books: the one rule for insert() and adopt() (a second
   * copy of these lines once forgot to mark them live, and a loaded index answered nothing).
   * The live flags grow once for the batch, and a run of documents of one toolset (a server's
   * tools come together) finds its toolset's number and counts into it once. `named`: the
   * names are in idByName already (insert).
   */
  private register(docs: readonly IndexedDoc[], named = false): void {
    const top = highestId(docs);
    if (top >= this.live.length) {
      const grown = new Uint8Array(Math.max(top + 1, this.live.length * 2));
      grown.set(this.live);
      this.live = grown;
    }
    this.enter(docs, named);
  }

  /**
   * register()'s loop, in a method of its own with nothing after it (as highestId's): V8
   * optimises a loop while a build runs it, and the code after it in its method, not run yet,
   * had no type feedback then, so every later add() left that optimised code through a deopt
   * (Corpus.append splits its passes for the same reason). A run's count goes into its
   * toolset as the run ends.
   */
  private enter(docs: readonly IndexedDoc[], named: boolean): void {
    const { live, toolsetTable: toolsets } = this;
    let number = -1;
    let run = 0;
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      this.docs.set(doc.id, doc);
      live[doc.id] = 1;
      if (!named) this.idByName.set(doc.name, doc.id);
      if (run === 0) number = toolsets.numberOf(doc.toolset);
      toolsets.assign(doc.id, number);
      run++;
      if (i + 1 === docs.length || docs[i + 1]!.toolset !== doc.toolset) {
        toolsets.add(number, run);
        run = 0;
      }
    }
  }

  /** The hits whose tools are indexed; the same array when all are. */
  private liveHits(hits: RetrievalHit[]): RetrievalHit[] {
    const live = this.live;
    for (let i = 0; i < hits.length; i++) {
      // A non-integer id reads undefined: never indexed.
      if (live[hits[i]!.id] !== 1) return hits.filter((h) => live[h.id] === 1);
    }
    return hits;
  }

  private summaryOf(doc: IndexedDoc): string {
    let summary = this.summaries.get(doc.id);
    if (summary === undefined) {
      summary = summarize(doc.tool.description) || summarize(doc.tool.title) || doc.nameWords.join(' ');
      this.summaries.set(doc.id, summary);
    }
    return summary;
  }

  private progress(phase: string, done: number, total: number): void {
    this.onProgress?.({ phase, done, total });
  }

  /**
   * The toolsets of the best fused hits, by summed score (then name). Parallel arrays and
   * a selection of the few wanted: a Map entry per toolset, then sorting its entries with a
   * destructuring comparator, cost 18 us a search at 10k tools, as much as a strategy.
   * Toolsets by number (ToolsetTable): by name, finding a hit's toolset among those seen
   * compared strings, and each suggestion's size was a lookup in a Map of every toolset.
   */
  private suggestToolsets(fused: ReturnType<typeof fuse>): ToolsetSuggestion[] {
    const { toolsetTable: toolsets } = this;
    const numbers: number[] = [];
    const scores: number[] = [];
    const hits: number[] = [];
    const depth = Math.min(fused.length, DEFAULTS.fusion.toolsetEvidenceDepth);
    for (let i = 0; i < depth; i++) {
      const hit = fused[i]!;
      const number = toolsets.of(hit.id);
      let at = 0;
      while (at < numbers.length && numbers[at] !== number) at++;
      if (at === numbers.length) {
        numbers.push(number);
        scores.push(hit.score);
        hits.push(1);
      } else {
        scores[at]! += hit.score;
        hits[at]!++;
      }
    }
    // Insertion into the best few, highest score first, equal scores by name.
    const best: number[] = [];
    const max = DEFAULTS.fusion.maxToolsetSuggestions;
    for (let i = 0; i < numbers.length; i++) {
      let at = best.length;
      while (at > 0 && ranksBefore(i, best[at - 1]!, scores, numbers, toolsets)) at--;
      if (at >= max) continue;
      best.splice(at, 0, i);
      if (best.length > max) best.pop();
    }
    const suggestions: ToolsetSuggestion[] = [];
    for (let k = 0; k < best.length; k++) {
      const i = best[k]!;
      suggestions.push({
        toolset: toolsets.name(numbers[i]!),
        score: scores[i]!,
        hits: hits[i]!,
        toolCount: toolsets.size(numbers[i]!),
      });
    }
    return suggestions;
  }

  private explain(
    analyzed: ReturnType<typeof analyzeQuery>,
    rankings: StrategyRanking[],
    results: readonly SearchResult[],
  ): SearchExplanation {
    const perStrategy: SearchExplanation['perStrategy'] = {};
    for (const { strategy, hits } of rankings) {
      perStrategy[strategy] = fuse([{ strategy, weight: 1, hits }], this.rrfK, 20).map((hit) => ({
        name: this.docs.get(hit.id)!.name,
        score: hit.matchedBy[0]!.score ?? 0,
        rank: hit.matchedBy[0]!.rank,
      }));
    }
    return {
      analysis: {
        shape: analyzed.shape,
        terms: [...analyzed.terms],
        expansions: expandTerms(analyzed.terms, this.synonyms),
      },
      perStrategy,
      phrasings: this.matchedPhrasings(analyzed.terms, results),
    };
  }

  /** Per result, the phrasings that share an analysed term with the query, with their source. */
  private matchedPhrasings(
    terms: readonly string[],
    results: readonly SearchResult[],
  ): Record<string, { text: string; source: PhrasingSource }[]> {
    const wanted = new Set(terms);
    const matched: Record<string, { text: string; source: PhrasingSource }[]> = {};
    for (const result of results) {
      const doc = this.docs.get(this.idByName.get(result.name)!)!;
      const learned = [...(this.uses.get(doc.name)?.values() ?? [])]
        .map((use) => ({ text: use.query, source: 'learned' as const }))
        .sort((a, b) => (a.text < b.text ? -1 : 1));
      const hits = [...doc.phrasings, ...learned]
        .filter((phrasing) => analyze(phrasing.text).some((term) => wanted.has(term)))
        .map(({ text, source }) => ({ text, source }));
      if (hits.length > 0) matched[result.name] = hits;
    }
    return matched;
  }
}

/** The largest id of the documents (-1 for none); a loop alone in its function (ToolSearch.enter). */
function highestId(docs: readonly IndexedDoc[]): number {
  let top = -1;
  for (let i = 0; i < docs.length; i++) top = Math.max(top, docs[i]!.id);
  return top;
}

/** Records an asynchronous strategy's hits, or why it failed, at its place `r` (ToolSearch.search). */
function settle(
  answer: RetrievalHit[] | Promise<RetrievalHit[]>,
  r: number,
  answers: (RetrievalHit[] | undefined)[],
  failures: Map<number, unknown>,
): Promise<void> {
  return Promise.resolve(answer).then(
    (hits) => {
      answers[r] = hits;
    },
    (reason: unknown) => {
      failures.set(r, reason);
    },
  );
}

/** Does toolset a rank before toolset b: a higher summed score, then the lower name? */
function ranksBefore(
  a: number,
  b: number,
  scores: readonly number[],
  numbers: readonly number[],
  toolsets: ToolsetTable,
): boolean {
  const x = scores[a]!;
  const y = scores[b]!;
  return x > y || (x === y && toolsets.name(numbers[a]!) < toolsets.name(numbers[b]!));
}

/** A tool's own analysed words (every field but `learned`): what learned uses are attributed by. */
function ownTerms(doc: IndexedDoc): Set<string> {
  const own = new Set<string>();
  for (const field of FIELD_NAMES) {
    if (field === 'learned') continue;
    for (const term of doc.fields[field]) own.add(term);
  }
  return own;
}

function sameTerms(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((term, i) => term === b[i]);
}

/** The phrasings of one source a document holds. */
function sourced(doc: IndexedDoc, source: PhrasingSource): string[] {
  return doc.phrasings.filter((phrasing) => phrasing.source === source).map((phrasing) => phrasing.text);
}

function packOption(
  value: unknown,
): { exclude: ReadonlySet<string>; source: PhrasingPack | undefined } | false {
  if (value === undefined || value === true) return { exclude: new Set(), source: undefined };
  if (value === false) return false;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolSearchError(
      'INVALID_OPTION',
      'toolsearch: option "pack" must be true, false or { exclude?: string[], source?: PhrasingPack }',
    );
  }
  const { exclude, source } = value as PackOptions;
  if (source !== undefined && !(source instanceof PhrasingPack)) {
    throw new ToolSearchError('INVALID_OPTION', 'toolsearch: option "pack.source" must be a PhrasingPack');
  }
  return { exclude: new Set(stringList(exclude, 'pack.exclude') ?? []), source };
}

function describeToolset(docs: readonly IndexedDoc[]): string {
  const names = docs.map((doc) => bareName(doc.name)).join(', ');
  return summarize(`${docs.length} tool${docs.length === 1 ? '' : 's'}: ${names}`);
}

/**
 * Names to offer when a toolset was not found: all of them when they are few, else the
 * did-you-mean rule's close spellings of `wanted` (closestNames, the adapter's rule too; a
 * dataset can have thousands of toolsets, and unrelated names are no help).
 */
function choices(known: string[], wanted: string, max: number = DEFAULTS.search.maxChoicesListed): string {
  const sorted = [...known].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (sorted.length <= max) return sorted.join(', ');
  const near = closestNames(wanted, sorted, max);
  return near.length > 0
    ? `${near.join(', ')} (the closest in spelling of ${sorted.length} toolsets)`
    : `${sorted.length} toolsets, none spelled like it`;
}
