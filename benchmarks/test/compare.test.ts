import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { afterAddRuns, type CompareResult, firstSearchAfterAdd, writeCompare } from '../src/compare.js';
import { calibrationMs } from '../src/environment.js';
import { mirrorCorpus } from '../src/scale/mirror.js';
import { WinkBaseline } from '../src/wink-baseline.js';

const real = [
  { name: 'take_screenshot', description: 'Capture the page as an image.' },
  { name: 'github__create_issue', description: 'Open a new issue in a repository.' },
  { name: 'send_email', description: 'Send an email message.', category: 'mail' },
];

describe('mirror corpus (the ~100k point)', () => {
  it('repeats the real tools under new server prefixes until the size, names unique', () => {
    const tools = mirrorCorpus(real, 8);
    expect(tools.map((t) => t.name)).toEqual([
      'take_screenshot',
      'github__create_issue',
      'send_email',
      'mirror-2__take_screenshot',
      'mirror-2__github__create_issue',
      'mirror-2__send_email',
      'mirror-3__take_screenshot',
      'mirror-3__github__create_issue',
    ]);
    expect(new Set(tools.map((t) => t.name)).size).toBe(8);
    // A mirror is its own toolset, named after the server it copies.
    expect(tools[4]!.category).toBe('github-mirror-2');
    expect(tools[5]!.category).toBe('mail-mirror-2');
    expect(tools[3]!.description).toBe(real[0]!.description);
  });

  it('is empty without real tools', () => {
    expect(mirrorCorpus([], 10)).toEqual([]);
  });
});

describe('wink-bm25-text-search baseline', () => {
  it('ranks by BM25 over the split name, description and toolset', () => {
    const wink = new WinkBaseline(real);
    expect(wink.search('send an email', 3)[0]).toBe('send_email');
    expect(wink.search('capture a screenshot of the page', 3)[0]).toBe('take_screenshot');
  });
});

describe('the first search after add()', () => {
  it('records the add() itself beside the first search and the normal one, as CPU times', async () => {
    const tools = mirrorCorpus(real, 120);
    const a = await firstSearchAfterAdd(tools);
    expect(a.adds).toBe(40);
    expect(a.baseline).toBe('steady');
    for (const value of [a.addCpuMedianMs, a.firstCpuMedianMs, a.normalCpuMedianMs, a.repeatCpuMedianMs])
      expect(value).toBeGreaterThanOrEqual(0);
    expect(a.firstCpuP90Ms).toBeGreaterThanOrEqual(a.firstCpuMedianMs);
  });

  it('over several runs, reports the run with the median ratio and keeps every ratio', async () => {
    const tools = mirrorCorpus(real, 120);
    const a = await afterAddRuns(tools, 3);
    expect(a.runRatios).toHaveLength(3);
    const sorted = [...a.runRatios!].sort((x, y) => x - y);
    expect(a.ratio).toBe(sorted[1]);
    // The figures are that run's own: its ratio is its first over its normal search.
    expect(a.ratio).toBeCloseTo(a.firstCpuMedianMs / a.normalCpuMedianMs, 1);
  });
});

describe("the machine's speed (calibrationMs)", () => {
  it('is the time of its fixed workload in milliseconds, to a tenth', () => {
    const start = performance.now();
    const ms = calibrationMs(3);
    const elapsed = performance.now() - start;
    expect(ms).toBeGreaterThan(0);
    expect(Math.round(ms * 10) / 10).toBe(ms);
    // The median of the timed rounds is one of them: no longer than the whole call.
    expect(ms).toBeLessThanOrEqual(elapsed);
  });
});

describe('writeCompare', () => {
  it('writes the latest run and appends each run once to compare-history.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'compare-'));
    try {
      const run = (date: string) =>
        ({
          study: 'compare',
          meta: { commit: 'abc1234', dirty: false, date },
          targets: {},
        }) as unknown as CompareResult;
      writeCompare(run('2026-01-01T00:00:00.000Z'), dir);
      writeCompare(run('2026-01-01T00:00:00.000Z'), dir);
      writeCompare(run('2026-01-02T00:00:00.000Z'), dir);
      const history = JSON.parse(readFileSync(join(dir, 'compare-history.json'), 'utf8'));
      expect(history.runs.map((r: CompareResult) => r.meta.date)).toEqual([
        '2026-01-01T00:00:00.000Z',
        '2026-01-02T00:00:00.000Z',
      ]);
      expect(JSON.parse(readFileSync(join(dir, 'compare.json'), 'utf8')).meta.date).toBe(
        '2026-01-02T00:00:00.000Z',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
