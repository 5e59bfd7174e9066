import { describe, expect, it } from 'vitest';
import { fuse, type StrategyRanking } from '../src/internals.js';

/** The definition, written plainly: every candidate an entry, every match listed, all sorted. */
function naiveFuse(rankings: readonly StrategyRanking[], k: number) {
  const entries = new Map<number, ReturnType<typeof fuse>[number]>();
  for (const { strategy, weight, hits } of rankings) {
    hits.forEach((hit) => {
      const rank = hits.findIndex((other) => other.score === hit.score) + 1;
      const entry = entries.get(hit.id) ?? { id: hit.id, score: 0, pinned: false, matchedBy: [] };
      entries.set(hit.id, entry);
      entry.score += weight / (k + rank);
      entry.pinned ||= hit.pinned === true;
      entry.matchedBy.push({
        strategy,
        rank,
        score: hit.score,
        ...(hit.matched ? { matched: hit.matched } : {}),
      });
    });
  }
  const list = [...entries.values()];
  for (const entry of list) entry.matchedBy.sort((a, b) => a.rank - b.rank);
  return list.sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.score - a.score || a.id - b.id);
}

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

  it('gives only the best `detail` fused hits their matchedBy, ranking them all alike', () => {
    const rankings = [
      { strategy: 'keyword' as const, weight: 1, hits: [1, 2, 3, 4].map((id) => ({ id, score: 5 - id })) },
      { strategy: 'tfidf' as const, weight: 1, hits: [4, 3, 2].map((id) => ({ id, score: id })) },
    ];
    const full = fuse(rankings, 60, 4);
    const brief = fuse(rankings, 60, 4, 2);
    expect(brief.map(({ id, score }) => [id, score])).toEqual(full.map(({ id, score }) => [id, score]));
    expect(brief.slice(0, 2)).toEqual(full.slice(0, 2));
    expect(brief.slice(2).map((hit) => hit.matchedBy)).toEqual([[], []]);
    expect(full[2]!.matchedBy.length).toBeGreaterThan(0);
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

  it('returns the best `limit` of the full fusion, with the same matches, whatever the ids', () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const strategies = ['keyword', 'tfidf', 'synonyms', 'fuzzy', 'exact'] as const;
    // Dense doc ids; ids whose hashes all collide in fusion's id table (multiples of 2^20),
    // and 2^31 - 1, which the table cannot hold; and ids no engine makes (fuse is exported):
    // huge, negative, fractional. Each fusion runs after others, on a table they cleared.
    for (const idOf of [
      (i: number) => i,
      (i: number) => (i === 0 ? 2 ** 31 - 1 : i * 2 ** 20),
      (i: number) => (i % 3 === 0 ? 2 ** 40 + i : i % 3 === 1 ? -i : i + 0.5),
    ]) {
      const rankings = strategies.map((strategy, s) => ({
        strategy,
        weight: 1 + s / 2,
        hits: Array.from({ length: 60 }, (_, position) => ({
          id: idOf(Math.floor(random() * 150)),
          score: 100 - Math.floor(position / 3), // ties share a rank
          pinned: strategy === 'exact' && position < 2 ? true : undefined,
          matched: s === 3 ? ['calendar'] : undefined,
        })).filter((hit, i, all) => all.findIndex((other) => other.id === hit.id) === i),
      }));
      const all = fuse(rankings, 60);
      expect(all).toEqual(naiveFuse(rankings, 60));
      // The same ids met in another order take other slots: nothing of the last call may linger.
      const reversed = [...rankings].reverse();
      expect(fuse(reversed, 60)).toEqual(naiveFuse(reversed, 60));
      for (const limit of [0, 1, 10, 30, all.length, all.length + 5]) {
        expect(fuse(rankings, 60, limit)).toEqual(all.slice(0, limit));
      }
      expect(all.some((hit) => hit.matchedBy.length > 2)).toBe(true);
      expect(all.filter((hit) => hit.pinned).length).toBeGreaterThan(0);
    }
  });

  it('lists equal ranks of a hit in ranking order', () => {
    const [hit] = fuse(
      [
        { strategy: 'tfidf', weight: 1, hits: [{ id: 1, score: 3 }] },
        { strategy: 'keyword', weight: 1, hits: [{ id: 1, score: 2 }] },
        { strategy: 'fuzzy', weight: 1, hits: [{ id: 1, score: 1 }] },
      ],
      60,
      1,
    );
    expect(hit!.matchedBy.map((match) => match.strategy)).toEqual(['tfidf', 'keyword', 'fuzzy']);
  });
});
