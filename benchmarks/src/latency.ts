/**
 * Search latency with tinybench. Each task cycles through the dataset's
 * queries so p50/p99 cover short and long queries alike. Bounded by a time
 * budget and an iteration minimum, so the whole study stays within its budget:
 * a task runs for max(timeMs, iterations × cost of one call).
 */
import { Bench } from 'tinybench';
import type { LatencyStats } from './results.js';

export interface LatencyBudget {
  /** Time budget per configuration in ms. */
  timeMs: number;
  /** Minimum measured calls per configuration. */
  iterations: number;
  warmupMs: number;
  warmupIterations: number;
}

export const DEFAULT_LATENCY_BUDGET: LatencyBudget = {
  timeMs: 400,
  iterations: 40,
  warmupMs: 60,
  warmupIterations: 8,
};

export async function measureLatency(
  queries: readonly string[],
  search: (query: string) => unknown | Promise<unknown>,
  budget: LatencyBudget = DEFAULT_LATENCY_BUDGET,
): Promise<LatencyStats | null> {
  if (queries.length === 0) return null;
  let next = 0;
  const bench = new Bench({
    time: budget.timeMs,
    iterations: budget.iterations,
    warmupTime: budget.warmupMs,
    warmupIterations: budget.warmupIterations,
    throws: true,
  });
  bench.add('search', async () => {
    const query = queries[next % queries.length]!;
    next++;
    await search(query);
  });
  await bench.run();
  const result = bench.tasks[0]?.result;
  if (!result || !('latency' in result)) return null;
  return {
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.mean,
    samples: result.latency.samplesCount,
  };
}
