import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEARN_LIMITS } from '../src/defaults.js';
import { AdapterError } from '../src/errors.js';
import { defaultLearnedFile, FileUsageStore } from '../src/learn/file-store.js';

const WRITER = join(import.meta.dirname, 'fixtures', 'learn-writer.ts');
const DAY = 24 * 3600 * 1000;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolsearch-learn-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function writer(file: string, id: string, count: number | 'forever'): ChildProcess {
  // One process (tsx as a loader, not its CLI, which would run the script in a grandchild we could not kill).
  return spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=toolsearch-source', WRITER, file, id, String(count)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

function line(child: ChildProcess, wanted: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (d) => {
      out += d;
      if (out.split('\n').includes(wanted)) resolve();
    });
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.once('exit', (code) => reject(new Error(`writer exited ${code} before "${wanted}": ${err}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

describe('FileUsageStore', () => {
  it('lives in the cache directory by default', () => {
    expect(defaultLearnedFile({ XDG_CACHE_HOME: '/x/cache' })).toBe(
      join('/x/cache', 'toolsearch', 'learned.json'),
    );
  });

  it('adds counts per (query, tool), keeps the latest time, and survives a new instance', async () => {
    const file = join(dir, 'learned.json');
    let now = 1_000_000;
    const store = new FileUsageStore({ file, now: () => now });
    await store.record({ uses: [{ query: 'Open  the File', tool: 'fs__read' }] });
    now += 10;
    await store.record({
      uses: [
        { query: 'open the file', tool: 'fs__read' },
        { query: 'x', tool: 'b' },
      ],
    });
    await store.record({ together: [{ tools: ['b', 'a'] }, { tools: ['a', 'b'], count: 2 }] });
    const again = await new FileUsageStore({ file, now: () => now }).load();
    expect(again.uses).toEqual([
      { query: 'open the file', tool: 'fs__read', count: 2, lastSeen: 1_000_010 },
      { query: 'x', tool: 'b', count: 1, lastSeen: 1_000_010 },
    ]);
    expect(again.together).toEqual([{ tools: ['a', 'b'], count: 3, lastSeen: 1_000_010 }]);
  });

  it('refuses malformed events with a typed error naming the entry, and records nothing', async () => {
    const file = join(dir, 'learned.json');
    const store = new FileUsageStore({ file });
    const bad = [
      {
        uses: [
          { query: 'ok', tool: 'a' },
          { query: 3, tool: 'a' },
        ],
      },
      { uses: [{ query: 'ok', tool: '' }] },
      { uses: [{ query: 'ok', tool: 'a', count: 0 }] },
      { together: [{ tools: ['a'] }] },
      {
        uses: Array.from({ length: LEARN_LIMITS.maxEventsPerRecord + 1 }, () => ({ query: 'q', tool: 't' })),
      },
    ];
    for (const events of bad) {
      const error = await store.record(events as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AdapterError);
      expect((error as AdapterError).code).toBe('INVALID_ARGUMENTS');
    }
    expect(
      ((await store.record({ uses: [{ query: 3 as never, tool: 'a' }] }).catch((e) => e)) as Error).message,
    ).toMatch(/uses\[0\]\.query/);
    expect((await store.load()).uses).toEqual([]);
  });

  it('bounds queries per tool and ages entries out', async () => {
    const file = join(dir, 'learned.json');
    let now = 400 * DAY;
    const store = new FileUsageStore({ file, now: () => now });
    const many = Array.from({ length: LEARN_LIMITS.maxUsesPerTool + 10 }, (_, i) => ({
      query: `request ${i}`,
      tool: 'busy',
      count: i + 1,
    }));
    await store.record({ uses: many });
    await store.record({
      uses: [{ query: 'old one', tool: 'quiet', lastSeen: now - LEARN_LIMITS.maxAgeMs - 1 }],
    });
    const state = await store.load();
    const busy = state.uses.filter((u) => u.tool === 'busy');
    expect(busy).toHaveLength(LEARN_LIMITS.maxUsesPerTool);
    expect(busy.map((u) => u.count).at(-1)).toBe(11); // the 10 rarest went
    expect(state.uses.some((u) => u.tool === 'quiet')).toBe(false);
    now += LEARN_LIMITS.maxAgeMs + 1;
    expect((await store.load()).uses).toEqual([]);
  });

  it('sets a corrupt file aside, warns once, and goes on', async () => {
    const file = join(dir, 'learned.json');
    await writeFile(file, '{"format":"toolsearch-learned","version":1,"uses":[{"que');
    const lines: string[] = [];
    const store = new FileUsageStore({ file, log: (l) => lines.push(l) });
    expect((await store.load()).uses).toEqual([]);
    await store.record({ uses: [{ query: 'a', tool: 't' }] });
    await store.record({ uses: [{ query: 'b', tool: 't' }] });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/unreadable/);
    expect((await readdir(dir)).filter((n) => n.includes('.corrupt-'))).toHaveLength(1);
    expect((await store.load()).uses.map((u) => u.query).sort()).toEqual(['a', 'b']);
  });

  it('clear() empties the store', async () => {
    const file = join(dir, 'learned.json');
    const store = new FileUsageStore({ file });
    await store.record({ uses: [{ query: 'a', tool: 't' }] });
    await store.clear();
    expect(await store.load()).toEqual({ uses: [], together: [] });
  });

  it('recovers a lock left by a dead process at once, and waits for a live one', async () => {
    const file = join(dir, 'learned.json');
    // A pid that is surely gone: a child that already exited.
    const gone = spawn(process.execPath, ['-e', '']);
    await exited(gone);
    await writeFile(
      `${file}.lock`,
      JSON.stringify({
        pid: gone.pid,
        host: (await import('node:os')).hostname(),
        nonce: 'x',
        at: Date.now(),
      }),
    );
    const store = new FileUsageStore({ file, lockTimeoutMs: 5_000 });
    await store.record({ uses: [{ query: 'a', tool: 't' }] });
    expect((await store.load()).uses).toHaveLength(1);
    // A live holder (this very process, another nonce): the record gives up with a typed error.
    await writeFile(
      `${file}.lock`,
      JSON.stringify({
        pid: process.pid,
        host: (await import('node:os')).hostname(),
        nonce: 'y',
        at: Date.now(),
      }),
    );
    const blocked = new FileUsageStore({ file, lockTimeoutMs: 200 });
    const error = await blocked.record({ uses: [{ query: 'b', tool: 't' }] }).catch((e: unknown) => e);
    expect((error as AdapterError).code).toBe('STORE_ERROR');
    expect((await store.load()).uses).toHaveLength(1);
  });

  it('removes a lock set aside by a breaker that died before removing it, and keeps a live one', async () => {
    const file = join(dir, 'learned.json');
    const gone = spawn(process.execPath, ['-e', '']);
    await exited(gone);
    // Fresh files (far younger than the stale age): only their process decides.
    const deadAside = `${file}.lock.${gone.pid}.0badcafe.stale`;
    const liveAside = `${file}.lock.${process.pid}.0facade0.stale`;
    await writeFile(deadAside, JSON.stringify({ pid: 1, host: 'h', nonce: 'old', at: Date.now() }));
    await writeFile(liveAside, JSON.stringify({ pid: 1, host: 'h', nonce: 'old', at: Date.now() }));
    await new FileUsageStore({ file }).record({ uses: [{ query: 'a', tool: 't' }] });
    expect((await readdir(dir)).sort()).toEqual([
      'learned.json',
      `learned.json.lock.${process.pid}.0facade0.stale`,
    ]);
  });

  it('two processes recording at once lose no event', async () => {
    const file = join(dir, 'learned.json');
    const n = 60;
    const a = writer(file, 'a', n);
    const b = writer(file, 'b', n);
    const [ca, cb] = await Promise.all([exited(a), exited(b)]);
    expect([ca, cb]).toEqual([0, 0]);
    const state = await new FileUsageStore({ file }).load();
    expect(state.uses.find((u) => u.query === 'shared request')?.count).toBe(2 * n);
    for (const id of ['a', 'b'])
      for (let i = 0; i < n; i++)
        expect(
          state.uses.some((u) => u.query === `writer ${id} request ${i}`),
          `${id} ${i}`,
        ).toBe(true);
    const pairs = state.together.reduce((sum, p) => sum + p.count, 0);
    expect(pairs).toBe(2 * n);
    expect((await readdir(dir)).sort()).toEqual(['learned.json']);
  });

  it('a writer killed mid-write in a loop leaves the old file or the new one, never a corrupt one', async () => {
    const file = join(dir, 'learned.json');
    // A large file makes each write long enough for kills to land inside one.
    const seed = new FileUsageStore({ file });
    await seed.record({
      uses: Array.from({ length: 1000 }, (_, i) => ({
        query: `seed request number ${i} ${'x'.repeat(120)}`,
        tool: `seed_${i}`,
      })),
    });
    let previous = 0;
    for (let round = 0; round < 6; round++) {
      const child = writer(file, `r${round}`, 'forever');
      await line(child, 'ready');
      // Vary where the kill lands: after 0-7 writes' worth of time.
      await new Promise((resolve) => setTimeout(resolve, 40 + 37 * round));
      child.kill('SIGKILL');
      await exited(child);
      const text = await readFile(file, 'utf8');
      const json = JSON.parse(text) as { format: string; uses: { query: string; count: number }[] };
      expect(json.format).toBe('toolsearch-learned');
      const shared = json.uses.find((u) => u.query === 'shared request')?.count ?? 0;
      expect(shared).toBeGreaterThanOrEqual(previous); // never older than what a reader saw before
      previous = shared;
    }
    // The killed writers' locks and temp files do not stop the next writer, which cleans them up.
    const lines: string[] = [];
    const after = new FileUsageStore({ file, log: (l) => lines.push(l), lockTimeoutMs: 5_000 });
    await after.record({ uses: [{ query: 'after the crashes', tool: 't' }] });
    expect(lines).toEqual([]);
    expect((await after.load()).uses.some((u) => u.query === 'after the crashes')).toBe(true);
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp') || n.endsWith('.stale'))).toEqual([]);
  });
});
