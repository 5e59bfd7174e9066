import { describe, expect, it } from 'vitest';
import type { Dataset } from '../src/dataset.js';
import { ToolSearchError } from '../src/errors.js';
import { type EvaluableEngine, evaluate, percentile, selectQueries } from '../src/eval/evaluate.js';
import type { SearchOptions, SearchResponse, StrategyName, ToolDefinition } from '../src/types.js';

/**
 * A tiny word-overlap ranker standing in for ToolSearch: evaluate() only needs
 * size/add/search/ready, and a predictable ranking lets us check the metrics.
 */
class OverlapEngine implements EvaluableEngine {
  tools: ToolDefinition[] = [];
  readied = 0;
  seenOptions: SearchOptions[] = [];
  get size() {
    return this.tools.length;
  }
  add(tools: ToolDefinition[]) {
    this.tools.push(...tools);
  }
  async ready() {
    this.readied += 1;
  }
  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    this.seenOptions.push(options);
    const words = new Set(query.toLowerCase().split(/\W+/));
    const scored = this.tools
      .map((tool, id) => ({
        tool,
        id,
        score: (tool.description ?? '').split(' ').filter((w) => words.has(w)).length,
      }))
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, options.limit ?? 10);
    const strategies: StrategyName[] = query.includes('fuzzy') ? ['fuzzy', 'keyword'] : ['keyword'];
    return {
      query,
      strategies,
      results: scored.map((s) => ({
        name: s.tool.name,
        toolset: String(s.tool.toolset),
        score: s.score,
        summary: '',
        matchedBy: [],
        tool: s.tool,
      })),
      toolsets: scored
        .slice(0, 1)
        .map((s) => ({ toolset: String(s.tool.toolset), score: 1, hits: 1, toolCount: 1 })),
    };
  }
}

const dataset: Dataset = {
  name: 'tiny',
  origin: 'tiny.json',
  tools: [
    { name: 'commit', description: 'commit staged changes', toolset: 'git' },
    { name: 'push', description: 'push commits to remote', toolset: 'git' },
    { name: 'read', description: 'read a file', toolset: 'fs' },
  ],
  queries: [
    { id: 'q1', query: 'commit changes', relevant: ['commit'], segment: 'new' }, // rank 1
    { id: 'q2', query: 'file read', relevant: ['read'], segment: 'power', relevantToolsets: ['fs'] }, // rank 1
    { id: 'q3', query: 'push to remote fuzzy', relevant: ['commit'], segment: 'new' }, // not found
  ],
};

describe('evaluate', () => {
  it('indexes an empty engine, searches every query and averages the metrics', async () => {
    const engine = new OverlapEngine();
    const progress: string[] = [];
    const result = await evaluate(engine, dataset, {
      disable: ['fuzzy'],
      perQuery: true,
      onProgress: (p) => progress.push(`${p.phase}:${p.done}/${p.total}`),
    });
    expect(engine.size).toBe(3);
    expect(engine.readied).toBe(1);
    expect(engine.seenOptions[0]).toEqual({ limit: 20, disable: ['fuzzy'] });
    expect(result.dataset).toBe('tiny');
    expect(result.queries).toBe(3);
    expect(result.strategies).toEqual(['keyword', 'fuzzy']); // STRATEGY_NAMES order
    expect(result.metrics.mrr).toBeCloseTo(2 / 3, 12);
    expect(result.metrics['recall@1']).toBeCloseTo(2 / 3, 12);
    expect(result.metrics.toolsetAccuracy).toBe(1);
    expect(result.metrics.toolsetQueries).toBe(1);
    expect(result.segments.new?.mrr).toBe(0.5);
    expect(result.segments.power?.mrr).toBe(1);
    expect(typeof result.indexMs).toBe('number');
    expect(result.p95Ms).toBeGreaterThanOrEqual(result.p50Ms);
    expect(result.perQuery?.map((q) => q.top[0])).toEqual(['commit', 'read', 'push']);
    expect(progress).toEqual(['index:0/3', 'index:3/3', 'search:1/3', 'search:2/3', 'search:3/3']);
  });

  it('does not re-index an engine that already holds tools', async () => {
    const engine = new OverlapEngine();
    engine.add(dataset.tools);
    const result = await evaluate(engine, dataset);
    expect(engine.size).toBe(3);
    expect(result.indexMs).toBeNull();
    expect(result.perQuery).toBeUndefined();
  });

  it('waits for an engine that already holds tools to be ready before the first search', async () => {
    // An engine handed over after learn(): its model may still be loading.
    const order: string[] = [];
    const engine = new OverlapEngine();
    engine.add(dataset.tools);
    engine.ready = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      order.push('ready');
    };
    const search = engine.search.bind(engine);
    engine.search = (query, options) => {
      order.push('search');
      return search(query, options);
    };
    await evaluate(engine, dataset);
    expect(order[0]).toBe('ready');
    expect(order.filter((step) => step === 'search')).toHaveLength(dataset.queries.length);
  });

  it('subsamples deterministically with maxQueries', async () => {
    const a = await evaluate(new OverlapEngine(), dataset, { maxQueries: 2, perQuery: true });
    const b = await evaluate(new OverlapEngine(), dataset, { maxQueries: 2, perQuery: true });
    expect(a.queries).toBe(2);
    expect(a.perQuery?.map((q) => q.id)).toEqual(b.perQuery?.map((q) => q.id));
  });

  it('rejects a dataset without queries and a bad maxQueries', async () => {
    await expect(evaluate(new OverlapEngine(), { ...dataset, queries: [] })).rejects.toThrow(ToolSearchError);
    await expect(evaluate(new OverlapEngine(), dataset, { maxQueries: 0 })).rejects.toThrow(/maxQueries/);
  });
});

describe('selectQueries', () => {
  const queries = Array.from({ length: 100 }, (_, i) => ({ id: `q${i}` }));

  it('keeps dataset order, ignores input order, and is stable when the set grows', () => {
    const picked = selectQueries(queries, 10);
    expect(picked).toHaveLength(10);
    const indexes = picked.map((q) => Number(q.id.slice(1)));
    expect(indexes).toEqual([...indexes].sort((x, y) => x - y));
    expect(
      selectQueries([...queries].reverse(), 10)
        .map((q) => q.id)
        .sort(),
    ).toEqual(picked.map((q) => q.id).sort());
    // Not simply the first ten.
    expect(picked.map((q) => q.id)).not.toEqual(queries.slice(0, 10).map((q) => q.id));
    // Adding queries can only displace a pick with a smaller-hash newcomer: the
    // original queries still kept are a subset of the first pick.
    const grown = selectQueries(
      [...queries, ...Array.from({ length: 50 }, (_, i) => ({ id: `extra${i}` }))],
      10,
    );
    const first = new Set(picked.map((q) => q.id));
    expect(grown).toHaveLength(10);
    expect(grown.filter((q) => !q.id.startsWith('extra')).every((q) => first.has(q.id))).toBe(true);
  });

  it('returns everything when maxQueries is absent or large', () => {
    expect(selectQueries(queries)).toHaveLength(100);
    expect(selectQueries(queries, 500)).toHaveLength(100);
  });
});

describe('percentile', () => {
  it('uses the nearest rank', () => {
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile(values, 10)).toBe(1);
    expect(percentile([], 50)).toBe(0);
  });
});
