import { describe, expect, it } from 'vitest';
import { FIELD_RADIX } from '../src/corpus.js';
import { PackedMemo } from '../src/retrieval/packed-memo.js';
import { random } from './helpers.js';

/** Packed field counts across the whole range: small ones, and ones of the high fields (above 2^32). */
function packedCounts(count: number): number[] {
  const next = random(5);
  const values = new Set<number>([FIELD_RADIX ** 8 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 31]);
  while (values.size < count) {
    let packed = 0;
    for (let f = 0; f < 8; f++)
      if (next() < 0.4) packed += Math.floor(next() * FIELD_RADIX) * FIELD_RADIX ** f;
    if (packed > 0) values.add(packed);
  }
  return [...values];
}

describe('PackedMemo', () => {
  const derive = (packed: number) => Math.log1p(packed) * 3;

  it('answers what compute answers, computing each packed count once while there is room', () => {
    const values = packedCounts(5000); // grows the table several times
    let calls = 0;
    const memo = new PackedMemo((packed) => {
      calls++;
      return derive(packed);
    }, 100_000);
    for (const packed of values) expect(memo.get(packed)).toBe(derive(packed));
    expect(calls).toBe(values.length);
    for (const packed of [...values].reverse()) expect(memo.get(packed)).toBe(derive(packed));
    expect(calls).toBe(values.length);
  });

  it('keeps at most maxEntries and computes the rest every time', () => {
    const values = packedCounts(300);
    let calls = 0;
    const memo = new PackedMemo((packed) => {
      calls++;
      return derive(packed);
    }, 100);
    for (const packed of values) memo.get(packed);
    for (const packed of values) expect(memo.get(packed)).toBe(derive(packed));
    // The first 100 stay memoised; each of the others is computed on both reads.
    expect(calls).toBe(values.length + (values.length - 100));
  });
});
