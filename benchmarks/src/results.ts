/**
 * The shape of benchmarks/results/ablation*.json. Report writers (report/*.ts)
 * are pure functions of these types, so they can be tested without an engine.
 */
import type { StrategyName } from '@toolsearch/core-search';
import type { ConfigKind } from './configs.js';
import type { Impact } from './impact.js';

/** How a large query set was cut down (see core-search's selectQueries). */
export interface SubsampleInfo {
  /** How many queries the dataset holds. */
  of: number;
  /** How many were kept. */
  size: number;
  method: string;
}

/** Quality of one configuration on one segment, each in 0..1. */
export interface SegmentMetrics {
  queries: number;
  r1: number;
  r3: number;
  r5: number;
  r10: number;
  mrr: number;
  ndcg10: number;
  /** Share of queries whose top suggested toolset is one of the relevant toolsets; null when none are labelled. */
  toolsetAccuracy: number | null;
}

export interface SegmentDelta {
  r5: number;
  mrr: number;
  ndcg10: number;
  impact: Impact;
}

export interface LatencyStats {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  samples: number;
}

export interface ConfigResult {
  id: string;
  label: string;
  /**
   * "baseline" is the MiniSearch alternative, measured on the same queries; "component" a
   * row of components.ts (pack, leave-one-server-out pack, learned phrasings: engines of their own).
   */
  kind: ConfigKind | 'baseline' | 'component';
  strategy?: StrategyName;
  /** Strategies that ran for at least one query (from the engine's responses); absent for the baseline. */
  strategiesRan?: StrategyName[];
  /** Embedding was wanted but not available: the numbers are those of the configuration without it. */
  embeddingUnavailable: boolean;
  metrics: Record<string, SegmentMetrics>;
  /** Against "all strategies" on the same segment (absent for "all" itself). */
  delta?: Record<string, SegmentDelta>;
  latency: LatencyStats | null;
}

/** One of the worst queries under "all": what went wrong. */
export interface QueryFailure {
  id: string;
  query: string;
  relevant: string[];
  /** 1-based rank of the first relevant tool in the engine's list, null when not in it. */
  firstRelevantRank: number | null;
  /** What ranked first instead. */
  top: { name: string; toolset: string } | null;
  /** Top suggested toolset, and whether it was right. */
  topToolset: string | null;
  toolsetCorrect: boolean;
  r5: number;
}

export interface EmbeddingStatus {
  /** ready: the semantic strategy ran; unavailable: the model could not load; disabled: switched off by flag. */
  status: 'ready' | 'unavailable' | 'disabled';
  detail: string;
}

export interface DatasetResult {
  name: string;
  /** Path relative to the repository root. */
  file: string;
  tools: number;
  queries: number;
  sampled: SubsampleInfo | null;
  /** "labelled": queries name their relevant toolsets; "derived": taken from the relevant tools' toolsets. */
  toolsetLabels: 'labelled' | 'derived';
  /** Segment columns, "overall" last. */
  segments: string[];
  embedding: EmbeddingStatus;
  /** How many results each search asked for; ranks beyond it count as "not found". */
  searchLimit: number;
  configs: ConfigResult[];
  baselines: ConfigResult[];
  /** The pack, leave-one-server-out pack and learned phrasings, each with and without the embedding (components.ts). */
  components?: ConfigResult[];
  worst: Record<string, QueryFailure[]>;
  /** Wall time of each phase: index (construction + ready), quality and latency over all configs, the baseline (both). */
  timingsMs: { index: number; ready: number; quality: number; latency: number; baseline: number };
}

export interface RunMeta {
  commit: string;
  dirty: boolean;
  date: string;
  machine: { cpu: string; cores: number; node: string; platform: string };
  /** Filled in by the runner once everything is written. */
  wallTimeMs?: number;
}

export interface StudyResult {
  study: 'ablation' | 'ablation-external';
  meta: RunMeta;
  /** How the impact labels are assigned. */
  impactRule: string;
  datasets: DatasetResult[];
  /** Datasets that were looked at and not run, with the reason. */
  skipped: { file: string; reason: string }[];
}
