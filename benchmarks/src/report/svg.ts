/**
 * The heat map: one row per configuration, one column per (dataset, segment),
 * each cell coloured by its R@5 delta against "all strategies" on a diverging
 * scale (red: worse than all, blue: better, white: no change), with the value
 * written in the cell and a legend. The "all" row shows absolute R@5 in grey.
 * Pure function of the study result; opens in any browser.
 */
import type { ConfigResult, StudyResult } from '../results.js';
import { shortSigned } from './format.js';

/** |ΔR@5| at which the colour saturates; larger deltas share the darkest shade. */
export const COLOR_DOMAIN = 0.3;

const NEUTRAL = [247, 247, 247] as const;
const NEGATIVE = [178, 24, 43] as const; // red: the configuration loses recall
const POSITIVE = [33, 102, 172] as const; // blue: the configuration gains recall

function mix(from: readonly number[], to: readonly number[], t: number): string {
  const channel = (i: number) => Math.round(from[i]! + (to[i]! - from[i]!) * t);
  return `#${[0, 1, 2].map((i) => channel(i).toString(16).padStart(2, '0')).join('')}`;
}

/** Fill colour for a delta: white at 0, towards red below, towards blue above, clamped at ±COLOR_DOMAIN. */
export function deltaColor(delta: number): string {
  const t = Math.min(Math.abs(delta) / COLOR_DOMAIN, 1);
  if (Number(delta.toFixed(3)) === 0) return mix(NEUTRAL, NEUTRAL, 0);
  return mix(NEUTRAL, delta < 0 ? NEGATIVE : POSITIVE, t);
}

function truncateLabel(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

interface Column {
  dataset: string;
  segment: string;
}

/** Cell width; wider when columns carry dataset names (--external). */
const CELL_W = 74;
const CELL_W_DATASETS = 118;
const CELL_H = 24;
const LABEL_W = 250;
const TOP = 96;
const GROUP_GAP = 8;
const MIN_WIDTH = 760;

export function renderHeatmap(study: StudyResult): string {
  const columns: Column[] = study.datasets.flatMap((d) =>
    d.segments.map((segment) => ({ dataset: d.name, segment })),
  );
  const rowIds: { id: string; label: string; kind: string }[] = [];
  for (const dataset of study.datasets) {
    for (const config of [...dataset.configs, ...dataset.baselines]) {
      if (!rowIds.some((r) => r.id === config.id))
        rowIds.push({ id: config.id, label: config.label, kind: config.kind });
    }
  }
  // A small gap between groups (all / without X / X only / baseline) guides the eye.
  const rowY: number[] = [];
  let y = TOP;
  rowIds.forEach((row, r) => {
    if (r > 0 && row.kind !== rowIds[r - 1]!.kind) y += GROUP_GAP;
    rowY.push(y);
    y += CELL_H;
  });
  const cellW = study.datasets.length > 1 ? CELL_W_DATASETS : CELL_W;
  const width = Math.max(LABEL_W + columns.length * cellW + 20, MIN_WIDTH);
  const legendY = y + 34;
  const height = legendY + 56;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<title>toolsearch ablation: R@5 delta against all strategies, per segment</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="10" y="22" font-size="15" font-weight="600">R@5 change when a strategy is removed or kept alone (vs all strategies)</text>`,
    `<text x="10" y="40" fill="#555">${escapeXml(`commit ${study.meta.commit}${study.meta.dirty ? ' (dirty)' : ''}, ${study.meta.date.slice(0, 10)}; the "all strategies" row shows absolute R@5`)}</text>`,
  );
  columns.forEach((column, c) => {
    const x = LABEL_W + c * cellW + cellW / 2;
    if (study.datasets.length > 1) {
      out.push(
        `<text x="${x}" y="${TOP - 26}" text-anchor="middle" fill="#555" font-size="10">${escapeXml(truncateLabel(column.dataset, 20))}</text>`,
      );
    }
    out.push(
      `<text x="${x}" y="${TOP - 8}" text-anchor="middle" font-weight="600">${escapeXml(column.segment)}</text>`,
    );
  });
  rowIds.forEach((row, r) => {
    const y = rowY[r]!;
    out.push(
      `<text x="${LABEL_W - 8}" y="${y + CELL_H / 2 + 4}" text-anchor="end">${escapeXml(row.label)}</text>`,
    );
    columns.forEach((column, c) => {
      const dataset = study.datasets.find((d) => d.name === column.dataset)!;
      const config = [...dataset.configs, ...dataset.baselines].find((k) => k.id === row.id);
      out.push(cellSvg(config, column, LABEL_W + c * cellW, y, cellW));
    });
  });
  out.push(legend(10, legendY));
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function cellSvg(
  config: ConfigResult | undefined,
  column: Column,
  x: number,
  y: number,
  cellW: number,
): string {
  const attrs = `class="cell" data-config="${escapeXml(config?.id ?? 'missing')}" data-segment="${escapeXml(column.segment)}" data-dataset="${escapeXml(column.dataset)}"`;
  const box = (fill: string, extra = '') =>
    `<rect ${attrs} x="${x + 1}" y="${y + 1}" width="${cellW - 2}" height="${CELL_H - 2}" fill="${fill}"${extra}/>`;
  const text = (value: string, color: string) =>
    `<text x="${x + cellW / 2}" y="${y + CELL_H / 2 + 4}" text-anchor="middle" fill="${color}">${escapeXml(value)}</text>`;
  const metrics = config?.metrics[column.segment];
  if (config === undefined || metrics === undefined)
    return box('#ffffff', ' stroke="#ddd"') + text('–', '#999');
  const marker = config.embeddingUnavailable ? '†' : '';
  if (config.kind === 'all') {
    return box('#e0e0e0', ` data-delta="0"`) + text(metrics.r5.toFixed(2) + marker, '#222');
  }
  const delta = config.delta?.[column.segment]?.r5 ?? 0;
  const strong = Math.abs(delta) / COLOR_DOMAIN > 0.55;
  return (
    box(deltaColor(delta), ` data-delta="${delta.toFixed(4)}"`) +
    text(shortSigned(delta) + marker, strong ? '#fff' : '#222')
  );
}

function legend(x: number, y: number): string {
  const steps = 20;
  const w = 14;
  const parts = [`<text x="${x}" y="${y - 6}" font-weight="600">ΔR@5 vs all strategies</text>`];
  for (let i = 0; i <= steps; i++) {
    const delta = -COLOR_DOMAIN + (2 * COLOR_DOMAIN * i) / steps;
    parts.push(`<rect x="${x + i * w}" y="${y}" width="${w}" height="14" fill="${deltaColor(delta)}"/>`);
  }
  for (const tick of [-COLOR_DOMAIN, -COLOR_DOMAIN / 2, 0, COLOR_DOMAIN / 2, COLOR_DOMAIN]) {
    const tx = x + ((tick + COLOR_DOMAIN) / (2 * COLOR_DOMAIN)) * steps * w + w / 2;
    parts.push(
      `<text x="${tx}" y="${y + 28}" text-anchor="middle" font-size="10">${tick === 0 ? '0' : shortSigned(tick)}</text>`,
    );
  }
  parts.push(
    `<text x="${x}" y="${y + 46}" fill="#555">red: recall lost, blue: recall gained, saturating at ±${COLOR_DOMAIN}. † embedding unavailable in this run.</text>`,
  );
  return parts.join('\n');
}
