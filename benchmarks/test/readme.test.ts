// The README's and DESIGN.md's generated blocks must be exactly what benchmarks/results/*.json say
// (regenerate with `pnpm bench:readme`, or everything with `pnpm bench:quality`).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fusedLosses } from '../src/fused-lexical.js';
import { REPO } from '../src/paths.js';
import { alignTables, blockOf, readResults, renderDocs, replaceBlocks } from '../src/readme.js';
import { compareRunsTable, pathRef } from '../src/speed-tables.js';

describe('README and DESIGN.md figures generated from benchmarks/results', () => {
  it('every generated block matches the results it is rendered from', () => {
    const docs = renderDocs(readResults());
    expect(docs.map((d) => [relative(REPO, d.file), Object.keys(d.blocks).sort()])).toEqual([
      [
        'README.md',
        [
          'compare-large',
          'compare-runs',
          'compare-table',
          'fused-losses',
          'fuzz-table',
          'learning-table',
          'quality-table',
          'release-table',
          'speed-table',
          'strategy-table',
          'tokens-table',
        ],
      ],
      [join('packages', 'core-search', 'DESIGN.md'), ['compare-large', 'compare-runs']],
      [
        join('packages', 'mcp-adapter', 'README.md'),
        ['adapter-tokens-table', 'gateway-start-table', 'meta-tools-tokens'],
      ],
    ]);
    for (const { file, blocks } of docs) {
      const text = readFileSync(file, 'utf8');
      for (const [name, block] of Object.entries(blocks))
        expect(blockOf(text, name), `${relative(REPO, file)} block ${name}: run pnpm bench:readme`).toBe(
          block,
        );
    }
  });

  it('the runs table holds every recorded compare run, the latest once, and DESIGN.md names files by path', () => {
    const results = readResults();
    const runs = results.compareHistory?.runs ?? [];
    const design = renderDocs(results)[1]!.blocks['compare-runs']!;
    for (const run of runs) expect(design).toContain(`\`${run.meta.commit}\``);
    const latest = results.compare!;
    const rows = (text: string) =>
      text.split('\n').filter((line) => line.includes(`\`${latest.meta.commit}\``));
    // One row per recorded run: a commit measured twice has two rows, and the latest run is
    // not added again when the history already holds it (same date).
    const recorded = runs.filter((r) => r.meta.commit === latest.meta.commit).length;
    const held = runs.some((r) => r.meta.date === latest.meta.date);
    expect(held).toBe(true);
    expect(rows(design)).toHaveLength(recorded);
    // A run the history does not hold yet (just recorded) is added as the last row.
    const fresh = {
      ...latest,
      meta: { ...latest.meta, commit: 'fffffff', date: '2099-01-01T00:00:00.000Z' },
    };
    const table = compareRunsTable(results.compareHistory, fresh, pathRef);
    expect(table.at(-1)).toContain('`fffffff`, 2099-01-01');
    expect(design).not.toContain('](benchmarks/results/');
    expect(renderDocs(results)[0]!.blocks['compare-runs']).toContain(
      '](benchmarks/results/compare-history.json)',
    );
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
