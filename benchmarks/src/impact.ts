/**
 * How much a configuration changes recall against "all strategies", in words.
 * The label depends on |ΔR@5| only; the sign says the direction.
 */
export type Impact = 'critical' | 'high' | 'medium' | 'low';

/** Lower bounds of |ΔR@5| (absolute recall points, 0..1) for each label. */
export const IMPACT_THRESHOLDS: Readonly<Record<Exclude<Impact, 'low'>, number>> = {
  critical: 0.1,
  high: 0.05,
  medium: 0.02,
};

/** Rounds away float noise (0.1 - 0.05 = 0.05000000000000001) before comparing to a threshold. */
function roundDelta(delta: number): number {
  return Math.round(delta * 1e9) / 1e9;
}

export function impactOf(deltaR5: number): Impact {
  const size = Math.abs(roundDelta(deltaR5));
  if (size >= IMPACT_THRESHOLDS.critical) return 'critical';
  if (size >= IMPACT_THRESHOLDS.high) return 'high';
  if (size >= IMPACT_THRESHOLDS.medium) return 'medium';
  return 'low';
}

export const IMPACT_DOC =
  `|ΔR@5| ≥ ${IMPACT_THRESHOLDS.critical} critical, ≥ ${IMPACT_THRESHOLDS.high} high, ` +
  `≥ ${IMPACT_THRESHOLDS.medium} medium, else low`;
