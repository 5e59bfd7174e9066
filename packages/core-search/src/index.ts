// The public API of @toolsearch/core-search, in three tiers (as Orama does):
// - this root: what an application embedding the engine needs (the engine, its options and
//   result types, errors, the Embedder plug-in interface, the phrasing pack an option takes)
//   and the few shared rules @toolsearch/mcp-adapter builds on (a name's toolset, how answers
//   quote a query and count, the cache folder, enrichment). Nothing else;
// - '@toolsearch/core-search/eval' (src/eval/index.ts): labelled datasets, metrics, evaluate()
//   and its splits, for benchmarks and model scripts;
// - '@toolsearch/core-search/internals' (src/internals.ts): the engine's building blocks
//   (analysis, fusion, retrievers, concrete embedders, defaults), with no compatibility promise.
// test/exports.test.ts lists every value each tier exports, so a change here is deliberate.

export type { Searchable } from './alternatives.js';
export { searchAlternatives } from './alternatives.js';
// For the adapter: the toolset of a tool name is one rule, the engine's.
export { toolsetOf } from './analysis/document.js';
// For the adapter: untrusted search text is cut where the engine would cut it, before it travels further.
export { boundQuery } from './analysis/query.js';
// For the adapter: answers quote a query and count things as the CLI's do.
export { countOf, quoteQuery, summarize } from './analysis/summarize.js';
export type { Embedder, EmbeddingProgress, EmbedKind, ModelSource } from './embedding/index.js';
// For the adapter: learned uses live beside the engine's vector cache.
export { defaultCacheDir } from './embedding/index.js';
export type { EmbeddingOptions, PackOptions, Progress, ToolSearchOptions } from './engine.js';
export { ToolSearch } from './engine.js';
export type { EnrichFailure, EnrichOptions, EnrichProgress, EnrichReport } from './enrich.js';
// For the adapter: mcp.json's enrich.endpoint is checked with the library's rule.
export { chatCompletionsUrl, enrichTools } from './enrich.js';
export type { ToolSearchErrorCode, ToolSearchIssue } from './errors.js';
export { isToolSearchError, ToolSearchError } from './errors.js';
export type { LearnedUse, ToolUse } from './learning.js';
export type { Limits } from './options.js';
// The `pack.source` option: a phrasing pack over your own registry and pack files.
export type { PackFile, PackMatch, PackRegistryTool } from './pack.js';
export { PhrasingPack, parsePackFile, readPackFile } from './pack.js';
// The types of the `retrievers` option (DEFAULT_RETRIEVERS itself is in /internals).
export type { RetrieverContext, RetrieverFactory } from './retrieval/registry.js';
export type {
  AnalyzedQuery,
  IndexedDoc,
  RetrievalHit,
  Retriever,
  RetrieverStatus,
  SavedState,
} from './retriever.js';
// For the adapter: did-you-mean for an unknown name is one rule, the engine's.
export { closestNames } from './suggest.js';
export type {
  Degraded,
  JsonSchemaObject,
  PhrasingSource,
  QueryShape,
  SearchExplanation,
  SearchOptions,
  SearchResponse,
  SearchResult,
  StrategyMatch,
  StrategyName,
  ToolDefinition,
  ToolsetInfo,
  ToolsetSuggestion,
} from './types.js';
// The values of the `disable`, `strategies` and `weights` options.
export { STRATEGY_NAMES } from './types.js';
