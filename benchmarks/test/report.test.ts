import { describe, expect, it } from 'vitest';
import { renderConsoleSummary } from '../src/report/console.js';
import { shortSigned, signed } from '../src/report/format.js';
import {
  acrossDatasets,
  findings,
  headlineTable,
  renderMarkdown,
  whoNeedsWhat,
  worstTable,
} from '../src/report/markdown.js';
import { COLOR_DOMAIN, deltaColor, renderHeatmap } from '../src/report/svg.js';
import { SEGMENTS, sampleStudy } from './study-fixture.js';

function rgb(hex: string): [number, number, number] {
  return [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

describe('deltaColor', () => {
  it('is neutral at zero, red below, blue above, deeper with size, clamped at the domain', () => {
    const [r0, g0, b0] = rgb(deltaColor(0));
    expect(r0).toBe(g0);
    expect(g0).toBe(b0);
    const [rn, , bn] = rgb(deltaColor(-0.1));
    expect(rn).toBeGreaterThan(bn);
    const [rp, , bp] = rgb(deltaColor(0.1));
    expect(bp).toBeGreaterThan(rp);
    expect(rgb(deltaColor(-0.2))[1]).toBeLessThan(rgb(deltaColor(-0.05))[1]);
    expect(deltaColor(-COLOR_DOMAIN * 3)).toBe(deltaColor(-COLOR_DOMAIN));
  });
});

describe('renderHeatmap', () => {
  const study = sampleStudy();
  const svg = renderHeatmap(study);
  const cells = [...svg.matchAll(/<rect class="cell" ([^>]*)\/>/g)].map((m) => m[1]!);
  const attr = (c: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(c)?.[1];

  it('is a standalone SVG document with a legend', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('ΔR@5 vs all strategies');
  });

  it('has exactly one cell per segment × configuration (baseline included)', () => {
    const d = study.datasets[0]!;
    expect(cells).toHaveLength(SEGMENTS.length * (d.configs.length + d.baselines.length));
    const keys = new Set(cells.map((c) => `${attr(c, 'data-config')}/${attr(c, 'data-segment')}`));
    expect(keys.size).toBe(cells.length);
  });

  it('colours each cell by the sign of its R@5 delta', () => {
    for (const c of cells) {
      if (attr(c, 'data-config') === 'all') continue;
      const delta = Number(attr(c, 'data-delta'));
      const [r, , b] = rgb(attr(c, 'fill')!);
      if (delta < -0.001) expect(r, c).toBeGreaterThan(b);
      else if (delta > 0.001) expect(b, c).toBeGreaterThan(r);
    }
    const synonymsNew = cells.find(
      (c) => attr(c, 'data-config') === 'minus-synonyms' && attr(c, 'data-segment') === 'new',
    )!;
    expect(Number(attr(synonymsNew, 'data-delta'))).toBeCloseTo(-0.12, 6);
  });

  it('writes the values in the cells and marks embedding-unavailable configs', () => {
    expect(svg).toContain('>−.12<');
    expect(svg).toContain('>+.06†<');
    expect(svg).toContain('>0.80<'); // absolute R@5 of "all" on "new"
  });
});

describe('markdown report', () => {
  const study = sampleStudy();
  const d = study.datasets[0]!;

  it('labels deltas by the documented thresholds', () => {
    const table = headlineTable(d).join('\n');
    const row = (id: string) => headlineTable(d).find((l) => l.startsWith(`| ${id}`))!;
    expect(row('without synonyms')).toContain('−0.120 critical');
    expect(row('without synonyms')).toContain('−0.030 medium');
    expect(row('without synonyms')).toContain('−0.075 high');
    expect(row('without fuzzy †')).toContain('+0.060 high');
    expect(table).toContain('*MiniSearch (BM25+, fuzzy, prefix)*');
    // header + rule + one row per config and baseline
    expect(headlineTable(d)).toHaveLength(2 + d.configs.length + d.baselines.length);
  });

  it('summarises the removals as strategy × segment, bold when high or critical', () => {
    const table = whoNeedsWhat(d);
    expect(table[0]).toBe('| strategy | new | power | overall |');
    expect(table).toHaveLength(2 + 2); // header, rule, synonyms, fuzzy (the "only" row is not a removal)
    expect(table[2]).toBe('| synonyms | **−0.120 critical** | −0.030 medium | **−0.075 high** |');
    expect(table[3]).toContain('fuzzy †');
  });

  it('derives findings from the deltas, per segment', () => {
    const text = findings(d).join('\n');
    expect(text).toContain('**new** (R@5 0.800 with all strategies): removing synonyms −0.120 (critical)');
    expect(text).toMatch(/\*\*power\*\*.*removing fuzzy \+0\.060 \*raises\* R@5/);
    expect(text).toContain('MiniSearch gets 0.500 (−0.300)');
    expect(text).toContain('Never ran on any query when alone: exact');
    expect(text).toContain('smallest segment here has 10 queries: 0.100');
    expect(text).not.toContain('better than all strategies together');
  });

  it('says when a single strategy beats all of them together', () => {
    const study = sampleStudy();
    const dataset = study.datasets[0]!;
    dataset.configs.find((c) => c.id === 'only-exact')!.metrics.power!.r5 = 0.95;
    const text = findings(dataset).join('\n');
    expect(text).toMatch(
      /\*\*power\*\*.*best single strategy is exact \(R@5 0\.950\), \*\*better than all strategies together\*\* \(\+0\.050\)/,
    );
  });

  it('lists the worst queries with the first relevant rank and what ranked first', () => {
    const table = worstTable('new', d.worst.new!, 20).join('\n');
    expect(table).toContain('not in top 20');
    expect(table).toContain('fs__read_file (fs)');
    expect(table).toContain('make a picture of the \\| page');
    expect(table).toContain('browser ✓');
    expect(worstTable('power', [], 20).join('\n')).toContain('No queries.');
    const partial = worstTable(
      'power',
      [{ ...d.worst.new![1]!, firstRelevantRank: 1, relevant: ['browser__click', 'x'] }],
      20,
    );
    expect(partial.join('\n')).toContain(
      'browser__click (browser), relevant: another relevant tool is missing',
    );
  });

  it('states the commit, dirtiness, machine, wall time and links the heat map', () => {
    const md = renderMarkdown(study, 'ablation.svg');
    expect(md).toContain('Commit `abc1234` (working tree dirty)');
    expect(md).toContain('Test CPU (2 cores, linux-x64), Node v20.0.0; wall time 12.3 s');
    expect(md).toContain('[ablation.svg](ablation.svg)');
    expect(md).toContain('#### new');
  });

  it('compares datasets side by side when there are several', () => {
    const other = { ...sampleStudy().datasets[0]!, name: 'other', queries: 7 };
    const table = acrossDatasets([d, other]);
    expect(table[2]).toBe('| configuration | sample (20 q) | other (7 q) |');
    expect(table).toContain('| without synonyms | 0.775 (−0.075) | 0.775 (−0.075) |');
    expect(table).toContain('| all strategies | 0.850 | 0.850 |');
    expect(renderMarkdown(study, 'a.svg')).not.toContain('Across datasets');
  });

  it('is a pure function: the same study gives the same text', () => {
    expect(renderMarkdown(sampleStudy(), 'a.svg')).toBe(renderMarkdown(sampleStudy(), 'a.svg'));
    expect(renderHeatmap(sampleStudy())).toBe(renderHeatmap(sampleStudy()));
  });
});

describe('console summary and formatting', () => {
  it('prints one line per configuration', () => {
    const text = renderConsoleSummary(sampleStudy());
    expect(text).toContain('without synonyms');
    expect(text).toContain('−0.075 high');
  });

  it('formats signs with a real minus and no negative zero', () => {
    expect(signed(-0.0001)).toBe('±0.000');
    expect(signed(0.05)).toBe('+0.050');
    expect(shortSigned(-0.123)).toBe('−.12');
    expect(shortSigned(0.001)).toBe('0');
  });
});
