/**
 * ablation.md: pure function of the study result. Per dataset: the headline
 * table (R@5, its delta and impact label, MRR per segment, latency), what the
 * numbers say, the full metrics per segment, and the worst queries under
 * "all strategies" with what ranked first instead.
 */

import { IMPACT_THRESHOLDS } from '../impact.js';
import type { ConfigResult, DatasetResult, QueryFailure, StudyResult } from '../results.js';
import { cell, metric, ms, signed, truncate } from './format.js';

export function renderMarkdown(study: StudyResult, svgFile: string): string {
  const { meta } = study;
  const lines: string[] = [
    `# ${study.study === 'ablation' ? 'Ablation study' : 'Ablation study on external datasets'}: which strategy matters for whom`,
    '',
    `Commit \`${meta.commit}\`${meta.dirty ? ' (working tree dirty)' : ''}, run ${meta.date}, on ${meta.machine.cpu} ` +
      `(${meta.machine.cores} cores, ${meta.machine.platform}), Node ${meta.machine.node}` +
      (meta.wallTimeMs === undefined ? '.' : `; wall time ${(meta.wallTimeMs / 1000).toFixed(1)} s.`),
    '',
    `Heat map: [${svgFile}](${svgFile}) (rows: configurations; columns: segments; colour: R@5 change against all strategies).`,
    '',
    `![R@5 delta heat map](${svgFile})`,
    '',
    `Deltas are against "all strategies" on the same queries. Impact labels: ${study.impactRule}. ` +
      'A negative delta for "without X" means X helps; for "X only" it is how far X alone falls short. ' +
      'Quality numbers are deterministic; latency (tinybench, p50/p99 per search in ms) is not.',
    '',
  ];
  for (const skipped of study.skipped) lines.push(`- skipped \`${skipped.file}\`: ${skipped.reason}`);
  if (study.skipped.length > 0) lines.push('');
  if (study.datasets.length > 1) lines.push(...acrossDatasets(study.datasets));
  for (const dataset of study.datasets) lines.push(...datasetSection(dataset));
  return lines.join('\n');
}

/** Overall R@5 and its delta per dataset, one column each: the heat map in numbers. */
export function acrossDatasets(datasets: readonly DatasetResult[]): string[] {
  const first = datasets[0]!;
  const lines = [
    '## Across datasets (overall R@5, ΔR@5 vs all strategies)',
    '',
    `| configuration | ${datasets.map((d) => `${d.name} (${d.queries} q)`).join(' | ')} |`,
    `| --- | ${datasets.map(() => '---:').join(' | ')} |`,
  ];
  for (const config of [...first.configs, ...first.baselines]) {
    const cells = datasets.map((d) => {
      const mine = [...d.configs, ...d.baselines].find((c) => c.id === config.id);
      const r5 = mine?.metrics.overall?.r5;
      const delta = mine?.delta?.overall;
      return r5 === undefined ? '–' : delta ? `${metric(r5)} (${signed(delta.r5)})` : metric(r5);
    });
    lines.push(`| ${[config.label, ...cells].map(cell).join(' | ')} |`);
  }
  lines.push('');
  return lines;
}

function datasetSection(d: DatasetResult): string[] {
  const lines: string[] = [
    `## ${d.name}`,
    '',
    `\`${d.file}\`: ${d.tools} tools, ${d.queries} queries` +
      (d.sampled ? ` (deterministic subsample of ${d.sampled.of}: ${d.sampled.method})` : '') +
      `. Each search returns ${d.searchLimit} results. Toolset accuracy uses ` +
      (d.toolsetLabels === 'labelled'
        ? 'the labelled relevant toolsets.'
        : "the relevant tools' toolsets (none labelled)."),
    '',
    `Embedding: **${d.embedding.status}** (${d.embedding.detail}).` +
      (d.embedding.status === 'ready'
        ? ''
        : ' Configurations marked † include the embedding strategy; their numbers are those of the engine without it.'),
    '',
    '### Who needs which strategy',
    '',
    'ΔR@5 when the strategy is removed from all the others (negative: the segment needs it).',
    '',
    ...whoNeedsWhat(d),
    '',
    ...componentTables(d),
    '### All configurations',
    '',
    ...headlineTable(d),
    '',
    '### What the numbers say',
    '',
    ...findings(d),
    '',
    ...fullMetrics(d),
    '### Worst queries under "all strategies"',
    '',
    'Worst first: no relevant tool in the list, then the lowest first relevant rank.',
    '',
  ];
  for (const segment of d.segments) lines.push(...worstTable(segment, d.worst[segment] ?? [], d.searchLimit));
  return lines;
}

/**
 * The issue 13 rows (components.ts): pack, no pack, leave-one-server-out pack and learned
 * phrasings, each with and without the embedding, one table per segment. Empty when the run had none.
 */
export function componentTables(d: DatasetResult): string[] {
  if (d.components === undefined || d.components.length === 0) return [];
  const lines = [
    '### Phrasings, learned phrasings and the embedding',
    '',
    'Each with engines of its own (`benchmarks/src/components.ts`): the shipped phrasing pack (the default), no pack, ' +
      "a leave-one-server-out pack (each query without the pack entries of its relevant tools' servers), and " +
      'the pack plus learned phrasings (the queries cut into 5 folds by query, seeded; each query answered by an engine ' +
      "that learned the other folds' queries through `engine.learn`, never its own); " +
      '"no embedding" is the same engines with the embedding switched off.',
    '',
  ];
  for (const segment of d.segments) {
    const n = d.components.find((c) => c.metrics[segment] !== undefined)?.metrics[segment]?.queries ?? 0;
    lines.push(
      `#### ${segment} (${n} queries)`,
      '',
      '| configuration | R@1 | R@5 | R@10 | MRR | nDCG@10 |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const config of d.components) {
      const m = config.metrics[segment];
      const cells = [metric(m?.r1), metric(m?.r5), metric(m?.r10), metric(m?.mrr), metric(m?.ndcg10)];
      lines.push(`| ${cell(rowLabel(config))} | ${cells.join(' | ')} |`);
    }
    lines.push('');
  }
  return lines;
}

function rowLabel(c: ConfigResult): string {
  return c.label + (c.embeddingUnavailable ? ' †' : '');
}

/** The "without X" rows alone, as strategy × segment: the short answer to "which strategy matters for whom". */
export function whoNeedsWhat(d: DatasetResult): string[] {
  const lines = [
    `| strategy | ${d.segments.join(' | ')} |`,
    `| --- | ${d.segments.map(() => '---').join(' | ')} |`,
  ];
  for (const config of d.configs.filter((c) => c.kind === 'minus')) {
    const cells = d.segments.map((segment) => {
      const delta = config.delta?.[segment];
      if (delta === undefined) return '';
      const text = `${signed(delta.r5)} ${delta.impact}`;
      return delta.impact === 'critical' || delta.impact === 'high' ? `**${text}**` : text;
    });
    lines.push(
      `| ${[`${config.strategy ?? config.id}${config.embeddingUnavailable ? ' †' : ''}`, ...cells].map(cell).join(' | ')} |`,
    );
  }
  return lines;
}

export function headlineTable(d: DatasetResult): string[] {
  const header = ['configuration'];
  const rule = ['---'];
  for (const segment of d.segments) {
    header.push(`${segment} R@5`, `${segment} ΔR@5`, `${segment} MRR`);
    rule.push('---:', '---', '---:');
  }
  header.push('p50 ms', 'p99 ms');
  rule.push('---:', '---:');
  const lines = [`| ${header.join(' | ')} |`, `| ${rule.join(' | ')} |`];
  for (const config of [...d.configs, ...d.baselines]) {
    const row = [config.kind === 'baseline' ? `*${rowLabel(config)}*` : rowLabel(config)];
    for (const segment of d.segments) {
      const m = config.metrics[segment];
      const delta = config.delta?.[segment];
      row.push(metric(m?.r5), delta ? `${signed(delta.r5)} ${delta.impact}` : '', metric(m?.mrr));
    }
    row.push(ms(config.latency?.p50Ms), ms(config.latency?.p99Ms));
    lines.push(`| ${row.map(cell).join(' | ')} |`);
  }
  return lines;
}

/** Sentences derived from the deltas: which removals cost recall per segment, and the baseline comparison. */
export function findings(d: DatasetResult): string[] {
  const counts = d.segments
    .map((segment) => d.configs[0]?.metrics[segment]?.queries ?? 0)
    .filter((n) => n > 0);
  const smallest = Math.min(...counts);
  const lines: string[] = [
    `One query moves a segment's R@5 by up to 1/n (the smallest segment here has ${smallest} queries: ` +
      `${(1 / smallest).toFixed(3)}), so read "low" deltas as noise.`,
    '',
  ];
  const minus = d.configs.filter((c) => c.kind === 'minus');
  for (const segment of d.segments) {
    const hurt = minus
      .map((c) => ({ c, delta: c.delta?.[segment] }))
      .filter((x) => x.delta !== undefined && x.delta.impact !== 'low')
      .sort((a, b) => a.delta!.r5 - b.delta!.r5 || (a.c.id < b.c.id ? -1 : 1));
    const needed = hurt
      .filter((x) => x.delta!.r5 < 0)
      .map((x) => `${x.c.strategy} ${signed(x.delta!.r5)} (${x.delta!.impact})`);
    const harmful = hurt.filter((x) => x.delta!.r5 > 0).map((x) => `${x.c.strategy} ${signed(x.delta!.r5)}`);
    const alone = d.configs
      .filter((c) => c.kind === 'only')
      .map((c) => ({ c, r5: c.metrics[segment]?.r5 ?? 0 }))
      .sort((a, b) => b.r5 - a.r5 || (a.c.id < b.c.id ? -1 : 1))[0];
    const all = d.configs[0]?.metrics[segment];
    let sentence = `- **${segment}**`;
    sentence += all ? ` (R@5 ${metric(all.r5)} with all strategies): ` : ': ';
    sentence +=
      needed.length > 0
        ? `removing ${needed.join(', ')} costs recall`
        : `removing any single strategy costs less than ${IMPACT_THRESHOLDS.medium} R@5`;
    if (harmful.length > 0)
      sentence += `; removing ${harmful.join(', ')} *raises* R@5 (the strategy hurts here)`;
    if (alone) {
      sentence += `; the best single strategy is ${alone.c.strategy} (R@5 ${metric(alone.r5)})`;
      if (all && alone.r5 > all.r5)
        sentence += `, **better than all strategies together** (${signed(alone.r5 - all.r5)})`;
    }
    const baseline = d.baselines[0]?.metrics[segment];
    if (baseline && all)
      sentence += `; MiniSearch gets ${metric(baseline.r5)} (${signed(baseline.r5 - all.r5)})`;
    lines.push(`${sentence}.`);
  }
  const silent = d.configs.filter(
    (c) => c.kind === 'only' && c.strategiesRan !== undefined && c.strategiesRan.length === 0,
  );
  if (silent.length > 0) {
    lines.push(
      `- Never ran on any query when alone: ${silent.map((c) => c.strategy).join(', ')} ` +
        '(the engine does not use them for these query shapes, or they are unavailable), so their "only" rows are empty.',
    );
  }
  return lines;
}

function fullMetrics(d: DatasetResult): string[] {
  const lines: string[] = [];
  for (const segment of d.segments) {
    const queries = d.configs[0]?.metrics[segment]?.queries ?? 0;
    lines.push(
      `<details><summary>All metrics, ${segment} (${queries} queries)</summary>`,
      '',
      '| configuration | R@1 | R@3 | R@5 | R@10 | MRR | nDCG@10 | toolset acc. |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const config of [...d.configs, ...d.baselines]) {
      const m = config.metrics[segment];
      const values = m ? [m.r1, m.r3, m.r5, m.r10, m.mrr, m.ndcg10, m.toolsetAccuracy].map(metric) : [];
      lines.push(`| ${[rowLabel(config), ...values].map(cell).join(' | ')} |`);
    }
    lines.push('', '</details>', '');
  }
  return lines;
}

export function worstTable(segment: string, failures: readonly QueryFailure[], limit: number): string[] {
  const lines = [`#### ${segment}`, ''];
  if (failures.length === 0) return [...lines, 'No queries.', ''];
  lines.push(
    '| id | query | relevant | first relevant rank | ranked first instead | top toolset |',
    '| --- | --- | --- | ---: | --- | --- |',
  );
  for (const f of failures) {
    const rank = f.firstRelevantRank === null ? `not in top ${limit}` : String(f.firstRelevantRank);
    const top =
      f.top === null
        ? 'nothing'
        : `${f.top.name} (${f.top.toolset})${f.relevant.includes(f.top.name) ? ', relevant: another relevant tool is missing' : ''}`;
    const toolset = f.topToolset === null ? '–' : `${f.topToolset} ${f.toolsetCorrect ? '✓' : '✗'}`;
    lines.push(
      `| ${[f.id, truncate(f.query, 90), f.relevant.join(', '), rank, top, toolset].map(cell).join(' | ')} |`,
    );
  }
  lines.push('');
  return lines;
}
