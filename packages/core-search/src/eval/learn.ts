/**
 * Learning from a labelled dataset, as `toolsearch eval --learn-from` and the benchmarks do
 * it: each query stands for a use that led to each of its relevant tools, fed through the
 * engine's own `learn` API (the one the gateway feeds), in batches within its per-call bound.
 */
import type { LabelledQuery } from '../dataset.js';
import { DEFAULTS } from '../defaults.js';
import type { ToolUse } from '../learning.js';

/** The part of ToolSearch that learning needs. */
export interface LearningEngine {
  learn(uses: readonly ToolUse[]): { learned: number; unknown: number };
}

/** One use per (query, relevant tool): what a user searched for, then used. */
export function usesOfQueries(queries: readonly Pick<LabelledQuery, 'query' | 'relevant'>[]): ToolUse[] {
  return queries.flatMap((q) => q.relevant.map((tool) => ({ query: q.query, tool })));
}

/** engine.learn in batches of at most DEFAULTS.learning.maxUsesPerCall; totals of learned and unknown uses. */
export function learnUses(
  engine: LearningEngine,
  uses: readonly ToolUse[],
): { learned: number; unknown: number } {
  let learned = 0;
  let unknown = 0;
  for (let start = 0; start < uses.length; start += DEFAULTS.learning.maxUsesPerCall) {
    const result = engine.learn(uses.slice(start, start + DEFAULTS.learning.maxUsesPerCall));
    learned += result.learned;
    unknown += result.unknown;
  }
  return { learned, unknown };
}
