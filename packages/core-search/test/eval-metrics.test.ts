import { describe, expect, it } from 'vitest';
import { ToolSearchError } from '../src/errors.js';
import { aggregateMetrics, averageMetrics, scoreRanking } from '../src/eval/metrics.js';

const log2 = Math.log2;

describe('scoreRanking', () => {
  it('scores a single relevant tool at rank 2', () => {
    const m = scoreRanking(['a', 'b', 'c'], ['b']);
    expect(m['recall@1']).toBe(0);
    expect(m['recall@3']).toBe(1);
    expect(m['recall@5']).toBe(1);
    expect(m['recall@10']).toBe(1);
    expect(m['hit@5']).toBe(1);
    expect(m.mrr).toBe(0.5);
    // DCG = 1/log2(3), ideal = 1/log2(2) = 1
    expect(m['ndcg@10']).toBeCloseTo(1 / log2(3), 12);
    expect(m.toolsetAccuracy).toBeUndefined();
  });

  it('scores two relevant tools at ranks 1 and 4', () => {
    const m = scoreRanking(['x', 'p', 'q', 'y', 'r'], ['x', 'y']);
    expect(m['recall@1']).toBe(0.5);
    expect(m['recall@3']).toBe(0.5);
    expect(m['recall@5']).toBe(1);
    expect(m.mrr).toBe(1);
    const dcg = 1 + 1 / log2(5);
    const ideal = 1 + 1 / log2(3);
    expect(m['ndcg@10']).toBeCloseTo(dcg / ideal, 12);
  });

  it('gives zeros when nothing relevant is returned', () => {
    const m = scoreRanking(['a', 'b'], ['z']);
    expect(m).toMatchObject({ 'recall@10': 0, 'hit@5': 0, mrr: 0, 'ndcg@10': 0 });
  });

  it('counts only the top 10 for ndcg and recall@10, but the whole list for mrr', () => {
    const ranked = Array.from({ length: 12 }, (_, i) => `t${i + 1}`);
    const m = scoreRanking(ranked, ['t11']);
    expect(m['recall@10']).toBe(0);
    expect(m['ndcg@10']).toBe(0);
    expect(m.mrr).toBeCloseTo(1 / 11, 12);
  });

  it('caps the ideal DCG at 10 relevant tools', () => {
    const relevant = Array.from({ length: 12 }, (_, i) => `t${i + 1}`);
    const m = scoreRanking(relevant, relevant);
    expect(m['ndcg@10']).toBeCloseTo(1, 12);
    expect(m['recall@10']).toBeCloseTo(10 / 12, 12);
  });

  it('does not let a repeated name take a rank twice or count twice', () => {
    const m = scoreRanking(['a', 'a', 'b'], ['a', 'b']);
    expect(m['recall@1']).toBe(0.5);
    expect(m['recall@3']).toBe(1);
    expect(m['ndcg@10']).toBeCloseTo(1, 12);
  });

  it('measures toolset accuracy only when relevant toolsets are given', () => {
    expect(
      scoreRanking(['a'], ['a'], { topToolset: 'git', relevantToolsets: ['git', 'github'] }).toolsetAccuracy,
    ).toBe(1);
    expect(scoreRanking(['a'], ['a'], { topToolset: 'fs', relevantToolsets: ['git'] }).toolsetAccuracy).toBe(
      0,
    );
    expect(scoreRanking(['a'], ['a'], { relevantToolsets: ['git'] }).toolsetAccuracy).toBe(0);
    expect(scoreRanking(['a'], ['a'], { topToolset: 'git' }).toolsetAccuracy).toBeUndefined();
  });

  it('rejects an empty relevant set', () => {
    expect(() => scoreRanking(['a'], [])).toThrow(ToolSearchError);
  });
});

describe('averageMetrics / aggregateMetrics', () => {
  it('averages overall and per segment', () => {
    const first = scoreRanking(['a', 'b'], ['a']); // mrr 1
    const second = scoreRanking(['a', 'b'], ['b']); // mrr 0.5
    const third = scoreRanking(['a', 'b'], ['z']); // mrr 0
    const { metrics, segments } = aggregateMetrics([
      { metrics: first, segment: 'new' },
      { metrics: second, segment: 'power' },
      { metrics: third, segment: 'new' },
    ]);
    expect(metrics.queries).toBe(3);
    expect(metrics.mrr).toBeCloseTo(0.5, 12);
    expect(metrics['recall@1']).toBeCloseTo(1 / 3, 12);
    expect(Object.keys(segments)).toEqual(['new', 'power']);
    expect(segments.new?.queries).toBe(2);
    expect(segments.new?.mrr).toBeCloseTo(0.5, 12);
    expect(segments.power?.mrr).toBeCloseTo(0.5, 12);
    expect(segments.power?.['recall@3']).toBe(1);
  });

  it('averages toolset accuracy over the judged queries only', () => {
    const summary = averageMetrics([
      scoreRanking(['a'], ['a'], { topToolset: 'x', relevantToolsets: ['x'] }),
      scoreRanking(['a'], ['a'], { topToolset: 'y', relevantToolsets: ['x'] }),
      scoreRanking(['a'], ['a']),
    ]);
    expect(summary.toolsetAccuracy).toBe(0.5);
    expect(summary.toolsetQueries).toBe(2);
    expect(summary.queries).toBe(3);
  });

  it('has no segments when no query has one, and zeros for no queries', () => {
    expect(aggregateMetrics([{ metrics: scoreRanking(['a'], ['a']) }]).segments).toEqual({});
    expect(averageMetrics([])).toMatchObject({ queries: 0, mrr: 0 });
  });
});
