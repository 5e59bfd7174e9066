/** The console summary: one compact table per dataset (overall and per-segment R@5, latency). */
import type { StudyResult } from '../results.js';
import { metric, ms, signed } from './format.js';

export function renderConsoleSummary(study: StudyResult): string {
  const lines: string[] = [];
  for (const d of study.datasets) {
    lines.push(
      '',
      `${d.name}: ${d.tools} tools, ${d.queries} queries${d.sampled ? ` (subsample of ${d.sampled.of})` : ''}, embedding ${d.embedding.status}`,
    );
    const header = [
      'configuration'.padEnd(34),
      ...d.segments.map((s) => `${s} R@5`.padStart(15)),
      'ΔR@5 overall'.padStart(20),
      'p50 ms'.padStart(8),
      'p99 ms'.padStart(8),
    ];
    lines.push(header.join(' '));
    for (const c of [...d.configs, ...d.baselines]) {
      const overall = c.delta?.overall;
      lines.push(
        [
          (c.label + (c.embeddingUnavailable ? ' †' : '')).padEnd(34),
          ...d.segments.map((s) => metric(c.metrics[s]?.r5).padStart(15)),
          (overall ? `${signed(overall.r5)} ${overall.impact}` : '').padStart(20),
          ms(c.latency?.p50Ms).padStart(8),
          ms(c.latency?.p99Ms).padStart(8),
        ].join(' '),
      );
    }
  }
  for (const s of study.skipped) lines.push(`skipped ${s.file}: ${s.reason}`);
  return lines.join('\n');
}
