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
