// '@toolsearch/core-search/eval': labelled datasets, ranking metrics, evaluate() and its
// splits (query subsets, leave one server out), for benchmarks and model scripts. See
// ../index.ts for the tiers.

export type { Dataset, LabelledQuery } from '../dataset.js';
export { parseDataset, readDataset, readTools } from '../dataset.js';
export type { EvaluableEngine, EvaluateOptions, EvaluationResult, QueryOutcome } from './evaluate.js';
export { evaluate, evaluateLeaveOneServerOut, fnv1a, percentile, selectQueries } from './evaluate.js';
export type { LearningEngine } from './learn.js';
export { learnUses, usesOfQueries } from './learn.js';
export type { AggregatedMetrics, MetricSummary, QueryMetrics, ToolsetJudgement } from './metrics.js';
export { aggregateMetrics, averageMetrics, RECALL_CUTOFFS, scoreRanking } from './metrics.js';
export { mulberry32 } from './random.js';
