// The README's generated tables must be exactly what benchmarks/results/*.json say
// (regenerate with `pnpm bench:readme`, or everything with `pnpm bench:quality`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fusedLosses } from '../src/fused-lexical.js';
import { alignTables, blockOf, README, readResults, renderBlocks, replaceBlocks } from '../src/readme.js';

describe('README tables generated from benchmarks/results', () => {
  it('every generated block matches the results it is rendered from', () => {
    const readme = readFileSync(README, 'utf8');
    const blocks = renderBlocks(readResults());
    expect(Object.keys(blocks).sort()).toEqual([
      'fused-losses',
      'fuzz-table',
      'learning-table',
      'quality-table',
      'release-table',
      'strategy-table',
    ]);
    for (const [name, text] of Object.entries(blocks)) {
      expect(blockOf(readme, name), `README block ${name}: run pnpm bench:readme`).toBe(text);
    }
  });

  it('replaces only the text between markers, and names a missing block', () => {
    const text = [
      'before',
      '<!-- generated:x: pnpm bench:readme -->',
      'old',
      '<!-- /generated:x -->',
      'after',
    ].join('\n');
    const out = replaceBlocks(text, { x: '| a |\n| b |' });
    expect(out).toBe(
      [
        'before',
        '<!-- generated:x: pnpm bench:readme -->',
        '| a |',
        '| b |',
        '<!-- /generated:x -->',
        'after',
      ].join('\n'),
    );
    expect(blockOf(out, 'x')).toBe('| a |\n| b |');
    expect(replaceBlocks(out, { x: '| a |\n| b |' })).toBe(out);
    expect(() => replaceBlocks(text, { y: 'z' })).toThrow('generated:y');
  });

  it('pads table cells, right-aligning the numeric columns', () => {
    expect(alignTables('intro\n| name | R@5 |\n| --- | ---: |\n| a | 0.5 |\n| longer | 1 |')).toBe(
      ['intro', '| name   | R@5 |', '| ------ | --: |', '| a      | 0.5 |', '| longer |   1 |'].join('\n'),
    );
  });
});

describe('fusedLosses', () => {
  const m = (r5: number, mrr: number) => ({
    queries: 1,
    r1: 0,
    r3: 0,
    r5,
    r10: 0,
    mrr,
    ndcg10: 0,
    toolsetAccuracy: null,
  });
  it('names each dataset, segment and metric where all defaults fall below lexical-only', () => {
    const datasets = [
      {
        key: 'a',
        segments: ['new', 'overall'],
        rows: [
          { id: 'pack', metrics: { new: m(0.5, 0.4), overall: m(0.9, 0.8) } },
          { id: 'pack-lexical', metrics: { new: m(0.6, 0.4), overall: m(0.9, 0.81) } },
        ],
      },
      { key: 'b', segments: ['overall'], rows: [{ id: 'pack', metrics: { overall: m(1, 1) } }] },
    ];
    expect(fusedLosses(datasets)).toEqual(['a/new: R@5 0.5000 < 0.6000', 'a/overall: MRR 0.8000 < 0.8100']);
    expect(fusedLosses(datasets, 'learned')).toEqual([]);
  });
});
