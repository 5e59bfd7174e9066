// The embedding disk cache's file format and lifetime (checks on what it reads: hardening.test.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddingDiskCache, textKey } from '../src/embedding/disk-cache.js';

const scratch = mkdtempSync(join(tmpdir(), 'toolsearch-disk-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const unit = (...values: number[]) => {
  const norm = Math.hypot(...values);
  return Float32Array.from(values, (v) => v / norm);
};

describe('EmbeddingDiskCache', () => {
  it('reads the file again after release(), seeing what another writer added', async () => {
    const dir = join(scratch, 'release');
    const cache = new EmbeddingDiskCache(dir, 'model-a');
    await cache.save(new Map([[textKey('send an email'), unit(1, 2, 3, 4)]]), new Set());
    expect((await cache.load(4)).size).toBe(1);
    // Another process (another instance) adds a vector to the same file.
    await new EmbeddingDiskCache(dir, 'model-a').save(
      new Map([[textKey('read a file'), unit(4, 3, 2, 1)]]),
      new Set(),
    );
    expect((await cache.load(4)).size).toBe(1); // still the vectors read before
    cache.release();
    const entries = await cache.load(4);
    expect([...entries.keys()].sort()).toEqual([textKey('send an email'), textKey('read a file')].sort());
    expect([...entries.get(textKey('read a file'))!]).toEqual([...unit(4, 3, 2, 1)]);
  });

  it('does not read a file of the first format (its keys hashed other text), and warns about none', async () => {
    const dir = join(scratch, 'old-format');
    const warnings: string[] = [];
    const cache = new EmbeddingDiskCache(dir, 'model-b', (w) => warnings.push(w));
    const old = Buffer.alloc(16 + 16 + 8);
    old.write('TSEMB001', 0, 'latin1');
    old.writeUInt32LE(2, 8);
    old.writeUInt32LE(1, 12);
    old.write(textKey('x'), 16, 16, 'hex');
    old.writeFloatLE(1, 32);
    mkdirSync(dirname(cache.file), { recursive: true });
    writeFileSync(cache.file, old);
    expect((await cache.load(2)).size).toBe(0);
    expect(warnings).toEqual([]);
  });
});
