import type { Dataset } from '@toolsearch/core-search/eval';
import { describe, expect, it } from 'vitest';
import {
  foldsByQuery,
  historyPrefix,
  learningCurve,
  renderLearningMarkdown,
  splitByQuery,
} from '../src/learning.js';

const queries = Array.from({ length: 50 }, (_, i) => ({
  id: `q${i}`,
  query: `query ${i}`,
  relevant: [`t${i % 7}`],
}));

describe('learning-curve splits', () => {
  it('split by query, seeded: disjoint, complete, 80/20, the same on every run and not in file order', () => {
    const { train, test } = splitByQuery(queries, 13);
    expect(train).toHaveLength(40);
    expect(test).toHaveLength(10);
    expect(new Set([...train, ...test].map((q) => q.id)).size).toBe(50);
    expect(splitByQuery(queries, 13)).toEqual({ train, test });
    expect(splitByQuery([...queries].reverse(), 13)).toEqual({ train, test });
    expect(train.map((q) => q.id)).not.toEqual(queries.slice(0, 40).map((q) => q.id));
    expect(splitByQuery(queries, 14).test).not.toEqual(test);
  });

  it('keep the same request (case and spacing aside) on one side', () => {
    const twins = queries.flatMap((q) => [
      q,
      { ...q, id: `${q.id}-twin`, query: `  ${q.query.toUpperCase()} ` },
    ]);
    const { train, test } = splitByQuery(twins, 13);
    const trainText = new Set(train.map((q) => q.query.trim().toLowerCase()));
    expect(test.length).toBeGreaterThan(0);
    for (const q of test) expect(trainText.has(q.query.trim().toLowerCase())).toBe(false);
    const folds = foldsByQuery(twins, 5);
    for (const q of queries) {
      const fold = folds.findIndex((f) => f.some((x) => x.id === q.id));
      expect(folds[fold]!.some((x) => x.id === `${q.id}-twin`)).toBe(true);
    }
  });

  it('history fractions are nested prefixes', () => {
    const { train } = splitByQuery(queries, 13);
    const ten = historyPrefix(train, 0.1);
    expect(ten).toHaveLength(4);
    expect(historyPrefix(train, 0.5).slice(0, 4)).toEqual(ten);
    expect(historyPrefix(train, 0)).toEqual([]);
    expect(historyPrefix(train, 1)).toEqual(train);
  });

  it('folds partition the queries, each in file order', () => {
    const folds = foldsByQuery(queries, 5);
    expect(folds.map((f) => f.length)).toEqual([10, 10, 10, 10, 10]);
    expect(new Set(folds.flat().map((q) => q.id)).size).toBe(50);
    for (const fold of folds) {
      const positions = fold.map((q) => queries.indexOf(q));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
  });
});

describe('learningCurve', () => {
  // Each tool is asked for in words its description lacks; the history teaches them.
  const needs = [
    { tool: 'mail__send', description: 'Send an email message', words: 'quillwort grandma' },
    { tool: 'git__log', description: 'Show the commit history', words: 'zymurgy ledger' },
    { tool: 'fs__read', description: 'Read a file from disk', words: 'snorkel parchment' },
  ];
  const dataset: Dataset = {
    name: 'curve',
    origin: 'curve',
    tools: needs.map((n) => ({ name: n.tool, description: n.description })),
    queries: Array.from({ length: 30 }, (_, i) => {
      const need = needs[i % 3]!;
      return { id: `c${i}`, query: `${need.words} ${i}`, relevant: [need.tool] };
    }),
  };

  it('learns nested shares of the history and evaluates on the test split only', async () => {
    const curve = await learningCurve('curve', 'curve.json', dataset, { engine: { embedding: false } });
    expect(curve.points.map((p) => p.fraction)).toEqual([0, 0.1, 0.5, 1]);
    expect(curve.points.map((p) => p.learnedQueries)).toEqual([0, 2, 12, 24]);
    expect(curve.test).toBe(6);
    const ndcg = curve.points.map((p) => p.lexical.overall!.ndcg10);
    expect(ndcg[3]).toBeGreaterThan(ndcg[0]!);
    // With the embedding off in the engine, the fused run is the lexical one.
    expect(curve.points[3]!.fused).toEqual(curve.points[3]!.lexical);
    const md = renderLearningMarkdown({
      study: 'learning',
      meta: {
        commit: 'abc1234',
        dirty: false,
        date: '2026-01-01T00:00:00Z',
        machine: { cpu: 'x', cores: 2, node: 'v20', platform: 'linux-x64' },
      },
      command: 'pnpm bench:learning',
      seed: 13,
      trainShare: 0.8,
      maxTest: 400,
      method: 'm',
      curves: [curve],
    });
    expect(md).toContain('| 100% | 24 | overall |');
  });
});
