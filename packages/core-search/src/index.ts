// The public API of @toolsearch/core-search. Everything a user may import is
// exported here by name; anything not exported here is internal.

export type { Dataset, LabelledQuery } from './dataset.js';
export { parseDataset, readDataset, readTools } from './dataset.js';
export type { ToolSearchErrorCode, ToolSearchIssue } from './errors.js';
export { isToolSearchError, ToolSearchError } from './errors.js';
export type { EvaluableEngine, EvaluateOptions, EvaluationResult, QueryOutcome } from './eval/evaluate.js';
export { evaluate, percentile, selectQueries } from './eval/evaluate.js';
export type { AggregatedMetrics, MetricSummary, QueryMetrics, ToolsetJudgement } from './eval/metrics.js';
export { aggregateMetrics, averageMetrics, RECALL_CUTOFFS, scoreRanking } from './eval/metrics.js';
export type { AnalyzedQuery, IndexedDoc, RetrievalHit, Retriever, RetrieverStatus } from './retriever.js';
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
export { STRATEGY_NAMES } from './types.js';
