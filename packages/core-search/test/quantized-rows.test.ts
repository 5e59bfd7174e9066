// The int8 copy of the vector store's rows: its bounds hold the exact float32 scores, so
// the rows it keeps always include the exact top k.
import { describe, expect, it } from 'vitest';
import { QuantizedRows } from '../src/embedding/quantized-rows.js';
import { createRowMatrix, dotScanInstance } from '../src/embedding/row-matrix.js';
import { random } from './helpers.js';

function unitVectors(count: number, dims: number, seed: number): Float32Array[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    const v = Float32Array.from({ length: dims }, () => next() * 2 - 1);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

function build(rows: Float32Array[], dims: number) {
  const quantized = new QuantizedRows(dims, dotScanInstance()!);
  const exact = createRowMatrix(dims, { simd: true });
  quantized.reserve(rows.length);
  exact.reserve(rows.length);
  rows.forEach((row, i) => {
    quantized.write(i, row);
    exact.data.set(row, i * exact.stride);
  });
  return { quantized, exact };
}

describe('QuantizedRows', () => {
  for (const dims of [3, 16, 100, 384]) {
    it(`bounds every exact score and keeps every row of the exact top k (${dims} dims)`, () => {
      const rows = unitVectors(700, dims, dims);
      const { quantized, exact } = build(rows, dims);
      for (const query of unitVectors(4, dims, 100 + dims)) {
        const scores = [...exact.scan(query, rows.length)];
        const found = quantized.candidates(query, rows.length, 25)!;
        const kept = new Set(found.slots);
        // Every lower bound is at most the exact score...
        scores.forEach((score, i) => {
          expect(found.lower[i]!).toBeLessThanOrEqual(score);
        });
        // ...so every row at or above the 25th best exact score is kept, ties included.
        const kth = [...scores].sort((a, b) => b - a)[24]!;
        scores.forEach((score, i) => {
          if (score >= kth) expect(kept.has(i)).toBe(true);
        });
        // And it narrows: far fewer rows than the whole.
        expect(found.slots.length).toBeLessThan(rows.length / 2);
      }
    });
  }

  it('always keeps a row with a value that is not a number, and treats a cleared row as scoring 0', () => {
    const dims = 8;
    const rows = unitVectors(50, dims, 3);
    const { quantized } = build(rows, dims);
    quantized.write(
      10,
      Float32Array.from({ length: dims }, (_, i) => (i === 0 ? Number.NaN : 0)),
    );
    quantized.write(
      11,
      Float32Array.from({ length: dims }, (_, i) => (i === 0 ? Number.POSITIVE_INFINITY : 0)),
    );
    quantized.clear(12);
    const found = quantized.candidates(rows[0]!, 50, 1)!;
    expect([...found.slots]).toContain(0);
    expect([...found.slots]).toContain(10);
    expect([...found.slots]).toContain(11);
    expect([...found.slots]).not.toContain(12);
    expect(found.lower[10]).toBe(Number.NEGATIVE_INFINITY);
    expect(found.lower[12]).toBe(0);
  });

  it('declines a query it cannot bound: zero, or not finite', () => {
    const { quantized } = build(unitVectors(10, 4, 5), 4);
    expect(quantized.candidates(new Float32Array(4), 10, 3)).toBeUndefined();
    expect(quantized.candidates(Float32Array.of(Number.NaN, 1, 0, 0), 10, 3)).toBeUndefined();
    expect(quantized.candidates(Float32Array.of(1, 0, 0, 0), 10, 0)).toBeUndefined();
  });

  it('moves rows with copy() as compaction does', () => {
    const rows = unitVectors(20, 16, 9);
    const { quantized } = build(rows, 16);
    quantized.copy(19, 0);
    const found = quantized.candidates(rows[19]!, 20, 1)!;
    expect(found.slots[0]).toBe(0);
  });

  for (const dims of [3, 20, 100]) {
    it(`bounds a row the same whatever its neighbours and however it is grouped (${dims} dims)`, () => {
      // Rows are packed, so a row's last step reads its neighbour's values (times zero), and
      // rows are bounded four at a time with the last few one by one.
      const rows = unitVectors(23, dims, 40 + dims).map((row, i) => (i % 2 ? row.map((x) => -x) : row));
      const { quantized } = build(rows, dims);
      for (const query of unitVectors(3, dims, 60 + dims)) {
        const all = quantized.candidates(query, rows.length, 5)!.lower.slice();
        rows.forEach((row, i) => {
          const alone = build([row], dims).quantized.candidates(query, 1, 1)!;
          expect(all[i]).toBe(alone.lower[0]);
        });
      }
    });
  }

  it('keeps its rows when it grows after they were written', () => {
    const dims = 20;
    const rows = unitVectors(90, dims, 11);
    const grown = new QuantizedRows(dims, dotScanInstance()!);
    rows.forEach((row, i) => {
      grown.reserve(i + 1 + (i % 7)); // grows by one to seven rows at a time
      grown.write(i, row);
    });
    grown.reserve(1000);
    const { quantized: once } = build(rows, dims);
    for (const query of unitVectors(3, dims, 12)) {
      const a = grown.candidates(query, rows.length, 10)!;
      const lower = a.lower.slice();
      const slots = a.slots.slice();
      const b = once.candidates(query, rows.length, 10)!;
      expect(lower).toEqual(b.lower);
      expect(slots).toEqual(b.slots);
    }
  });
});
