import { describe, expect, it } from 'vitest';
import { fuse } from '../src/internals.js';

describe('fuse (weighted reciprocal-rank fusion)', () => {
  it('sums w / (k + rank) over strategies', () => {
    const fused = fuse(
      [
        {
          strategy: 'keyword',
          weight: 1,
          hits: [
            { id: 1, score: 9 },
            { id: 2, score: 5 },
          ],
        },
        { strategy: 'tfidf', weight: 0.5, hits: [{ id: 2, score: 0.9 }] },
      ],
      60,
    );
    expect(fused.map((hit) => hit.id)).toEqual([2, 1]);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 0.5 / 61, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 61, 12);
  });

  it('lists each strategy that found a hit, best rank first', () => {
    const [hit] = fuse(
      [
        {
          strategy: 'keyword',
          weight: 1,
          hits: [
            { id: 9, score: 1 },
            { id: 3, score: 0.5 },
          ],
        },
        { strategy: 'fuzzy', weight: 1, hits: [{ id: 3, score: 2, matched: ['calendar'] }] },
      ],
      60,
    ).filter((h) => h.id === 3);
    expect(hit!.matchedBy).toEqual([
      { strategy: 'fuzzy', rank: 1, score: 2, matched: ['calendar'] },
      { strategy: 'keyword', rank: 2, score: 0.5 },
    ]);
  });

  it('gives tied scores the same rank', () => {
    const fused = fuse(
      [
        {
          strategy: 'category',
          weight: 1,
          hits: [
            { id: 4, score: 2 },
            { id: 5, score: 2 },
            { id: 6, score: 1 },
          ],
        },
      ],
      60,
    );
    expect(fused.map((hit) => hit.matchedBy[0]!.rank)).toEqual([1, 1, 3]);
    expect(fused[0]!.score).toBe(fused[1]!.score);
  });

  it('breaks equal fused scores by ascending id, whatever the input order', () => {
    const a = fuse(
      [
        { strategy: 'keyword', weight: 1, hits: [{ id: 8, score: 1 }] },
        { strategy: 'tfidf', weight: 1, hits: [{ id: 3, score: 1 }] },
      ],
      60,
    );
    const b = fuse(
      [
        { strategy: 'tfidf', weight: 1, hits: [{ id: 3, score: 1 }] },
        { strategy: 'keyword', weight: 1, hits: [{ id: 8, score: 1 }] },
      ],
      60,
    );
    expect(a.map((hit) => hit.id)).toEqual([3, 8]);
    expect(b.map((hit) => hit.id)).toEqual([3, 8]);
  });

  it('puts pinned hits first even with a lower fused score', () => {
    const fused = fuse(
      [
        { strategy: 'keyword', weight: 5, hits: [{ id: 1, score: 9 }] },
        { strategy: 'exact', weight: 0.01, hits: [{ id: 2, score: 1, pinned: true }] },
      ],
      60,
    );
    expect(fused.map((hit) => [hit.id, hit.pinned])).toEqual([
      [2, true],
      [1, false],
    ]);
  });

  it('k flattens or sharpens the rank curve', () => {
    const rankings = [
      {
        strategy: 'keyword' as const,
        weight: 1,
        hits: [
          { id: 1, score: 2 },
          { id: 2, score: 1 },
        ],
      },
    ];
    const gap = (k: number) => {
      const [first, second] = fuse(rankings, k);
      return first!.score - second!.score;
    };
    expect(gap(1)).toBeGreaterThan(gap(60));
  });
});
