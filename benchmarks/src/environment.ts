/** Where and from what a run was made, so a reader can reproduce or discount it. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import type { RunMeta } from './results.js';

function git(args: string[], cwd: string): string | null {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export function runMeta(repoRoot: string, now: Date = new Date()): RunMeta {
  const commit = git(['rev-parse', '--short', 'HEAD'], repoRoot) ?? 'unknown';
  // Results files are rewritten by the run itself; they do not make the tree "dirty" for this purpose.
  const status = git(['status', '--porcelain', '--', '.', ':!benchmarks/results'], repoRoot);
  const cpus = os.cpus();
  return {
    commit,
    dirty: status === null ? false : status !== '',
    date: now.toISOString(),
    machine: {
      cpu: cpus[0]?.model.trim() ?? 'unknown',
      cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
  };
}

/**
 * The machine's speed at this moment: the median time, after two rounds of warm-up, of a
 * fixed workload that does not run toolsearch (integers hashed into a Map and read back,
 * numbers sorted), in milliseconds. On a shared machine the same ~100k-tool build took 3.4 s
 * in one minute and 4.6 s a few minutes later (2026-11-24, alternating child processes of the
 * same sources): a run records this beside its times, so a reader can tell a slow moment from
 * a slow change. Only comparable between runs of the same Node version.
 */
export function calibrationMs(rounds = 5): number {
  const times: number[] = [];
  let sink = 0;
  for (let round = -2; round < rounds; round++) {
    const start = performance.now();
    const map = new Map<number, number>();
    const values = new Float64Array(100_000);
    let x = 2463534242;
    for (let i = 0; i < values.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      map.set(x, i);
      values[i] = x;
    }
    for (let i = 0; i < values.length; i++) sink += map.get(values[i]!)!;
    values.sort();
    sink += values[0]!;
    if (round >= 0) times.push(performance.now() - start);
  }
  if (sink === Number.NEGATIVE_INFINITY) throw new Error('unreachable'); // keeps the work observable
  times.sort((a, b) => a - b);
  return Math.round(times[times.length >> 1]! * 10) / 10;
}
