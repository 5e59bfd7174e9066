/**
 * A hand-made study result for the report tests: two segments plus overall,
 * "all", two ablations with known deltas and the MiniSearch baseline.
 */
import { deltas } from '../src/ablation.js';
import type { ConfigResult, SegmentMetrics, StudyResult } from '../src/results.js';

function metrics(r5: number, mrr = r5 - 0.1): SegmentMetrics {
  return {
    queries: 10,
    r1: r5 - 0.2,
    r3: r5 - 0.1,
    r5,
    r10: Math.min(1, r5 + 0.05),
    mrr,
    ndcg10: r5 - 0.05,
    toolsetAccuracy: 0.9,
  };
}

export const SEGMENTS = ['new', 'power', 'overall'];

export function sampleStudy(): StudyResult {
  const all: ConfigResult = {
    id: 'all',
    label: 'all strategies',
    kind: 'all',
    embeddingUnavailable: false,
    metrics: { new: metrics(0.8), power: metrics(0.9), overall: metrics(0.85) },
    latency: { p50Ms: 1.2, p99Ms: 3.4, meanMs: 1.5, samples: 100 },
  };
  const minusSynonyms: ConfigResult = {
    id: 'minus-synonyms',
    label: 'without synonyms',
    kind: 'minus',
    strategy: 'synonyms',
    embeddingUnavailable: false,
    // new loses .12 (critical), power loses .03 (medium), overall loses .075 (high)
    metrics: { new: metrics(0.68), power: metrics(0.87), overall: metrics(0.775) },
    latency: { p50Ms: 1.1, p99Ms: 3.0, meanMs: 1.4, samples: 100 },
  };
  const minusFuzzy: ConfigResult = {
    id: 'minus-fuzzy',
    label: 'without fuzzy',
    kind: 'minus',
    strategy: 'fuzzy',
    embeddingUnavailable: true,
    // removing fuzzy helps power users: +.06 (high)
    metrics: { new: metrics(0.79), power: metrics(0.96), overall: metrics(0.875) },
    latency: null,
  };
  const baseline: ConfigResult = {
    id: 'minisearch',
    label: 'MiniSearch (BM25+, fuzzy, prefix)',
    kind: 'baseline',
    embeddingUnavailable: false,
    metrics: { new: metrics(0.5), power: metrics(0.85), overall: metrics(0.675) },
    latency: { p50Ms: 0.3, p99Ms: 0.9, meanMs: 0.4, samples: 200 },
  };
  const onlyExact: ConfigResult = {
    id: 'only-exact',
    label: 'exact only',
    kind: 'only',
    strategy: 'exact',
    strategiesRan: [],
    embeddingUnavailable: false,
    metrics: { new: metrics(0.2), power: metrics(0.2), overall: metrics(0.2) },
    latency: null,
  };
  for (const c of [minusSynonyms, minusFuzzy, onlyExact, baseline]) c.delta = deltas(c, all, SEGMENTS);
  return {
    study: 'ablation',
    meta: {
      commit: 'abc1234',
      dirty: true,
      date: '2026-11-22T11:00:00.000Z',
      machine: { cpu: 'Test CPU', cores: 2, node: 'v20.0.0', platform: 'linux-x64' },
      wallTimeMs: 12_345,
    },
    impactRule: '|ΔR@5| ≥ 0.1 critical, ≥ 0.05 high, ≥ 0.02 medium, else low',
    datasets: [
      {
        name: 'sample',
        file: 'fixtures/queries/sample.json',
        tools: 5,
        queries: 20,
        sampled: null,
        toolsetLabels: 'labelled',
        segments: SEGMENTS,
        embedding: { status: 'ready', detail: 'test' },
        searchLimit: 20,
        configs: [all, minusSynonyms, minusFuzzy, onlyExact],
        baselines: [baseline],
        worst: {
          new: [
            {
              id: 'q7',
              query: 'make a picture of the | page',
              relevant: ['browser__screenshot'],
              firstRelevantRank: null,
              top: { name: 'fs__read_file', toolset: 'fs' },
              topToolset: 'fs',
              toolsetCorrect: false,
              r5: 0,
            },
            {
              id: 'q3',
              query: 'open a url',
              relevant: ['browser__navigate'],
              firstRelevantRank: 7,
              top: { name: 'browser__click', toolset: 'browser' },
              topToolset: 'browser',
              toolsetCorrect: true,
              r5: 0,
            },
          ],
          power: [],
          overall: [],
        },
        timingsMs: { index: 1, ready: 0, quality: 1, latency: 1, baseline: 1 },
      },
    ],
    skipped: [],
  };
}
