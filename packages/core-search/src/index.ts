// The public API of @toolsearch/core-search. Everything a user may import is
// exported here by name; anything not exported here is internal.
export { ToolSearchError, isToolSearchError } from './errors.js';
export type { ToolSearchErrorCode, ToolSearchIssue } from './errors.js';
export type { AnalyzedQuery, IndexedDoc, RetrievalHit, Retriever, RetrieverStatus } from './retriever.js';
export { STRATEGY_NAMES } from './types.js';
export type {
  Degraded,
  JsonSchemaObject,
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
