// The public API of @toolsearch/core-search. Everything a user may import is
// exported here by name; anything not exported here is internal.

export type { Searchable } from './alternatives.js';
export { fuseResponses, searchAlternatives } from './alternatives.js';
export { analyze, analyzeWords } from './analysis/analyze.js';
export { analyzeTool, toolsetOf } from './analysis/document.js';
export { bareName, compactKey, serverPrefix, splitIdentifier } from './analysis/identifier.js';
export { analyzeQuery, boundQuery, detectShape } from './analysis/query.js';
export { countOf, QUOTED_QUERY_CHARS, quoteQuery, summarize } from './analysis/summarize.js';
export type { Dataset, LabelledQuery } from './dataset.js';
export { parseDataset, readDataset, readTools } from './dataset.js';
export { DEFAULTS } from './defaults.js';
export type { Embedder, EmbeddingProgress, EmbedKind, ModelSource } from './embedding/index.js';
export {
  createEmbeddingRetriever,
  DEFAULT_MODEL_NAME,
  DEFAULT_MODEL_PATH,
  defaultCacheDir,
  ModelEmbedder,
  StaticEmbedder,
  TransformersEmbedder,
} from './embedding/index.js';
export type { EmbeddingOptions, PackOptions, Progress, ToolSearchOptions } from './engine.js';
export { ToolSearch } from './engine.js';
export type { EnrichFailure, EnrichOptions, EnrichProgress, EnrichReport } from './enrich.js';
export {
  chatCompletionsUrl,
  ENRICH_DEFAULTS,
  enrichKey,
  enrichMessages,
  enrichTools,
  parseAnswer,
} from './enrich.js';
export type { ToolSearchErrorCode, ToolSearchIssue } from './errors.js';
export { isToolSearchError, ToolSearchError } from './errors.js';
export type { EvaluableEngine, EvaluateOptions, EvaluationResult, QueryOutcome } from './eval/evaluate.js';
export { evaluate, evaluateLeaveOneServerOut, percentile, selectQueries } from './eval/evaluate.js';
export type { AggregatedMetrics, MetricSummary, QueryMetrics, ToolsetJudgement } from './eval/metrics.js';
export { aggregateMetrics, averageMetrics, RECALL_CUTOFFS, scoreRanking } from './eval/metrics.js';
export type { FusedHit, StrategyRanking } from './fusion.js';
export { fuse } from './fusion.js';
export type { LearnedUse, ToolUse } from './learning.js';
export type { Limits } from './options.js';
export type { PackFile, PackMatch, PackRegistryTool } from './pack.js';
export { PhrasingPack, parsePackFile, readPackFile, shippedPackDir } from './pack.js';
export type { RetrieverContext, RetrieverFactory } from './retrieval/registry.js';
export { DEFAULT_RETRIEVERS } from './retrieval/registry.js';
export type { AnalyzedQuery, IndexedDoc, RetrievalHit, Retriever, RetrieverStatus } from './retriever.js';
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
export { STRATEGY_NAMES } from './types.js';
