import type { ToolDefinition } from '@toolsearch/core-search';
import type { Dataset } from '@toolsearch/core-search/eval';
import { describe, expect, it } from 'vitest';
import { OVERALL, rankWorst, runAblation, segmentsOf } from '../src/ablation.js';
import { ablationConfigs } from '../src/configs.js';
import { measureLatency } from '../src/latency.js';

const tools: ToolDefinition[] = [
  { name: 'browser__take_screenshot', description: 'Capture a PNG image of the current web page' },
  { name: 'browser__navigate', description: 'Open a URL in the browser tab' },
  { name: 'browser__click', description: 'Click an element on the page' },
  { name: 'fs__read_file', description: 'Read the contents of a file from disk' },
  { name: 'fs__write_file', description: 'Write text content to a file on disk' },
  { name: 'fs__list_directory', description: 'List the files and folders in a directory' },
  { name: 'git__commit', description: 'Record staged changes to the repository with a message' },
  { name: 'git__log', description: 'Show the commit history of the repository' },
  { name: 'mail__send_email', description: 'Send an email message to a recipient' },
];

const dataset: Dataset = {
  name: 'synthetic',
  origin: 'synthetic',
  tools,
  queries: [
    {
      id: 'n1',
      segment: 'new',
      query: 'save a picture of the website',
      relevant: ['browser__take_screenshot'],
      relevantToolsets: ['browser'],
    },
    {
      id: 'n2',
      segment: 'new',
      query: 'what is inside this document',
      relevant: ['fs__read_file'],
      relevantToolsets: ['fs'],
    },
    {
      id: 'n3',
      segment: 'new',
      query: 'write a letter to my boss',
      relevant: ['mail__send_email'],
      relevantToolsets: ['mail'],
    },
    {
      id: 'e1',
      segment: 'experienced',
      query: 'screenshot of the page',
      relevant: ['browser__take_screenshot'],
      relevantToolsets: ['browser'],
    },
    {
      id: 'e2',
      segment: 'experienced',
      query: 'show commit history',
      relevant: ['git__log'],
      relevantToolsets: ['git'],
    },
    {
      id: 'e3',
      segment: 'experienced',
      query: 'list files in a folder',
      relevant: ['fs__list_directory'],
      relevantToolsets: ['fs'],
    },
    {
      id: 'p1',
      segment: 'power',
      query: 'git__commit',
      relevant: ['git__commit'],
      relevantToolsets: ['git'],
    },
    {
      id: 'p2',
      segment: 'power',
      query: 'write_file',
      relevant: ['fs__write_file'],
      relevantToolsets: ['fs'],
    },
    {
      id: 'p3',
      segment: 'power',
      query: 'navigate url',
      relevant: ['browser__navigate'],
      relevantToolsets: ['browser'],
    },
  ],
};

const quick = { file: 'synthetic.json', embedding: false, latency: false } as const;

describe('runAblation', async () => {
  const result = await runAblation(dataset, quick);

  it('measures every configuration and the MiniSearch baseline on every segment', () => {
    expect(result.configs.map((c) => c.id)).toEqual(ablationConfigs().map((c) => c.id));
    expect(result.baselines.map((c) => c.id)).toEqual(['minisearch']);
    expect(result.segments).toEqual(['new', 'experienced', 'power', OVERALL]);
    for (const config of [...result.configs, ...result.baselines]) {
      expect(Object.keys(config.metrics)).toEqual(result.segments);
      expect(config.metrics.overall!.queries).toBe(9);
      expect(config.metrics.power!.queries).toBe(3);
    }
  });

  it('finds an exact tool name at rank 1 with all strategies', () => {
    const all = result.configs[0]!;
    expect(all.metrics.power!.r1).toBeGreaterThan(0);
    // A segment of 3 queries lists all 3 among its worst, so p1 is there.
    const exact = result.worst.power!.filter((f) => f.id === 'p1');
    expect(exact).toHaveLength(1);
    expect(exact[0]!.firstRelevantRank).toBe(1);
    expect(exact[0]!.top?.name).toBe('git__commit');
  });

  it('gives each configuration its delta against all strategies', () => {
    const all = result.configs[0]!;
    expect(all.delta).toBeUndefined();
    for (const config of [...result.configs.slice(1), ...result.baselines]) {
      for (const segment of result.segments) {
        expect(config.delta![segment]!.r5).toBeCloseTo(
          config.metrics[segment]!.r5 - all.metrics[segment]!.r5,
          12,
        );
      }
    }
  });

  it('marks configurations that need the embedding model when it is off', () => {
    expect(result.embedding.status).toBe('disabled');
    const marked = result.configs.filter((c) => c.embeddingUnavailable).map((c) => c.id);
    expect(marked).toContain('all');
    expect(marked).toContain('only-embedding');
    expect(marked).not.toContain('minus-embedding');
    const onlyEmbedding = result.configs.find((c) => c.id === 'only-embedding')!;
    expect(onlyEmbedding.metrics.overall!.r10).toBe(0);
    expect(onlyEmbedding.strategiesRan).toEqual([]);
    expect(result.configs.find((c) => c.id === 'only-keyword')!.strategiesRan).toEqual(['keyword']);
  });

  it('lists the worst queries per segment, worst first, with what ranked first', () => {
    for (const segment of result.segments) {
      const worst = result.worst[segment]!;
      expect(worst.length).toBe(segment === OVERALL ? 5 : 3);
      const ranks = worst.map((f) => f.firstRelevantRank ?? Number.POSITIVE_INFINITY);
      expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
      for (const f of worst) if (f.firstRelevantRank !== 1) expect(f.top?.name).not.toBe(f.relevant[0]);
    }
  });

  it('is deterministic: a second run gives the same numbers', async () => {
    const again = await runAblation(dataset, quick);
    const strip = (r: typeof result) => JSON.stringify({ ...r, timingsMs: null });
    expect(strip(again)).toBe(strip(result));
  });

  it('subsamples deterministically and says so', async () => {
    const sampled = await runAblation(dataset, { ...quick, maxQueries: 4 });
    expect(sampled.queries).toBe(4);
    expect(sampled.sampled).toMatchObject({ of: 9, size: 4 });
    expect(sampled.configs[0]!.metrics.overall!.queries).toBe(4);
  });
});

describe('segmentsOf', () => {
  it('orders known segments first, others alphabetically, overall last', () => {
    expect(
      segmentsOf([{ segment: 'power' }, { segment: 'zeta' }, { segment: 'new' }, {}, { segment: 'alpha' }]),
    ).toEqual(['new', 'power', 'alpha', 'zeta', OVERALL]);
    expect(segmentsOf([{}, {}])).toEqual([OVERALL]);
  });
});

describe('rankWorst', () => {
  it('puts misses first, then low reciprocal rank, then low nDCG, then id', () => {
    const m = (mrr: number, ndcg: number) => ({ mrr, 'ndcg@10': ndcg }) as never;
    const ranked = rankWorst([
      { id: 'b', metrics: m(1, 1) },
      { id: 'c', metrics: m(0, 0) },
      { id: 'a', metrics: m(0, 0) },
      { id: 'd', metrics: m(0.5, 0.3) },
      { id: 'e', metrics: m(0.5, 0.2) },
    ]);
    expect(ranked.map((o) => o.id)).toEqual(['a', 'c', 'e', 'd', 'b']);
  });
});

describe('measureLatency', () => {
  it('runs at least the minimum iterations and reports ordered percentiles', async () => {
    let calls = 0;
    const stats = await measureLatency(
      ['a', 'b'],
      () => {
        calls++;
      },
      { timeMs: 5, iterations: 20, warmupMs: 1, warmupIterations: 2 },
    );
    expect(stats!.samples).toBeGreaterThanOrEqual(20);
    expect(calls).toBeGreaterThanOrEqual(20);
    expect(stats!.p99Ms).toBeGreaterThanOrEqual(stats!.p50Ms);
    expect(await measureLatency([], () => {})).toBeNull();
  });
});
