import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const RUN = join(REPO, 'benchmarks/src/run.ts');

function bench(...args: string[]) {
  return spawnSync(process.execPath, ['--conditions=toolsearch-source', '--import', 'tsx', RUN, ...args], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('pnpm bench command line', () => {
  it('prints its usage with --help and runs nothing', () => {
    const result = bench('--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('--only ablation|scale|embedding');
    expect(result.stdout).not.toContain('wall time');
  });

  it('rejects an unknown part, naming the valid ones', () => {
    const result = bench('--only', 'ablation,nope');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'bench: --only takes ablation | scale | embedding | compare | tokens | gateway-start, got "nope"',
    );
  });

  it('rejects a bad --max-queries and unknown flags', () => {
    expect(bench('--external', '--max-queries', '0').stderr).toContain(
      '--max-queries must be a positive integer',
    );
    expect(bench('--fast').status).toBe(1);
  });
});
