/**
 * Public data types of core-search. This file is the contract between the
 * engine, its retrievers, the benchmarks and the MCP adapter: change it with care.
 */

/** A JSON Schema object as MCP puts it in `inputSchema`. Only what we index is typed. */
export interface JsonSchemaObject {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchemaObject>;
  items?: JsonSchemaObject | JsonSchemaObject[];
  required?: string[];
  enum?: unknown[];
  [key: string]: unknown;
}

/**
 * A tool as MCP `tools/list` returns it, plus optional retrieval extras.
 * Unknown extra fields are kept untouched and handed back in results.
 */
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: JsonSchemaObject;
  annotations?: Record<string, unknown>;
  /** Server or group. Default: the `server` part of a `server__tool` name, else "default". */
  toolset?: string;
  /** Dataset files call the toolset `category`; it is read as the toolset when `toolset` is absent. */
  category?: string | null;
  tags?: string[];
  /**
   * Example user requests this tool answers. Indexed as phrasings (below), in their own
   * field, not as part of the description.
   */
  examples?: string[];
  /**
   * Everyday requests for this tool, as people say them ("show me what's in notes.txt").
   * Their own BM25F field, weighted by query shape, and part of the embedding text.
   * With `examples`, bounded per tool (DEFAULTS.phrasings) and de-duplicated.
   */
  phrasings?: string[];
  [key: string]: unknown;
}

/** Every retrieval strategy, by the name used to switch it off. */
export const STRATEGY_NAMES = [
  'keyword',
  'tfidf',
  'synonyms',
  'fuzzy',
  'prefix',
  'ngram',
  'category',
  'exact',
  'embedding',
] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

/** Where one strategy ranked a result (1-based). */
export interface StrategyMatch {
  strategy: StrategyName;
  rank: number;
  /** The strategy's own raw score (BM25, cosine, ...), for explain output. */
  score?: number;
  /** Terms or fields that matched, when the strategy knows them (explain only). */
  matched?: string[];
}

export interface SearchResult {
  name: string;
  toolset: string;
  /** Fused RRF score; higher is better. */
  score: number;
  /** At most 80 characters, derived from the description. */
  summary: string;
  /** Each strategy that found this tool, with its rank, best rank first. */
  matchedBy: StrategyMatch[];
  /**
   * The tool as it was added: the engine's own copy (made at add(), so later changes to the
   * caller's object do not reach the index), shared with the engine, not copied per search.
   * Treat it as read-only: a change made to it changes what later searches return and what
   * toJSON()/toBytes() save. Copy it (structuredClone) before changing it.
   */
  tool: ToolDefinition;
}

export interface ToolsetSuggestion {
  toolset: string;
  /** Summed fused evidence of this toolset's tools in the candidate list. */
  score: number;
  /** How many of the returned candidates belong to it. */
  hits: number;
  toolCount: number;
}

export interface ToolsetInfo {
  name: string;
  toolCount: number;
  /** Short description, derived from its tools when none was given. */
  description: string;
}

/** Why a response is not the full hybrid result. */
export type Degraded = 'embedding-loading' | 'embedding-unavailable';

export interface SearchOptions {
  /** How many results; default 10, max 1000. */
  limit?: number;
  /** Only tools of these toolsets. */
  toolsets?: string[];
  /** Restrict to these strategies (after the engine's own disabled list). */
  strategies?: StrategyName[];
  /** Additionally switch these strategies off for this query. */
  disable?: StrategyName[];
  /** Include per-strategy detail (query analysis, each strategy's ranking). */
  explain?: boolean;
}

export interface SearchResponse {
  /** The query as searched: leading spaces dropped, truncated to limits.maxQueryChars. */
  query: string;
  results: SearchResult[];
  toolsets: ToolsetSuggestion[];
  /** Strategies that actually ran for this query. */
  strategies: StrategyName[];
  degraded?: Degraded;
  explain?: SearchExplanation;
}

export interface SearchExplanation {
  /** How the query was analysed: its shape and terms. */
  analysis: { shape: QueryShape; terms: string[]; expansions: string[] };
  /** Each strategy's top hits, by name, before fusion. */
  perStrategy: Partial<Record<StrategyName, { name: string; score: number; rank: number }[]>>;
  /**
   * Per returned tool, its phrasings that share a word with the query, and where each came
   * from: the tool definition, addPhrasings, the shipped pack, or learning from use.
   */
  phrasings: Record<string, { text: string; source: PhrasingSource }[]>;
}

/**
 * Where a phrasing came from: the tool definition (`examples`, `phrasings`), the API
 * (`engine.addPhrasings`), the shipped phrasing pack (pack.ts), or learning from use (`engine.learn`).
 */
export type PhrasingSource = 'tool' | 'added' | 'pack' | 'learned';

/**
 * The shape of a query decides which strategies fit it: fuzzy/prefix help
 * identifiers ("takeScreenshot") and hurt long natural-language requests.
 */
export type QueryShape = 'identifier' | 'keywords' | 'natural';
