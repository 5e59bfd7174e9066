// The vector store's dot-product scan: WebAssembly SIMD and the JavaScript fallback.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import wabtModule from 'wabt';
import { DOT_SCAN_WASM_BASE64 } from '../src/embedding/dot-scan-wasm.js';
import { createRowMatrix } from '../src/embedding/row-matrix.js';
import { VectorStore } from '../src/embedding/vector-store.js';
import { random } from './helpers.js';

/** Vectors with components in [-1, 1). */
function vectors(count: number, dims: number, seed: number): Float32Array[] {
  const next = random(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dims }, () => next() * 2 - 1));
}

function fill(simd: boolean, rows: Float32Array[], dims: number) {
  const matrix = createRowMatrix(dims, { simd });
  matrix.reserve(rows.length);
  rows.forEach((row, i) => {
    matrix.data.set(row, i * matrix.stride);
  });
  return matrix;
}

describe('dot-scan WebAssembly module', () => {
  it('is the compiled dot-scan.wat (rebuild with scripts/build-dot-scan.ts)', async () => {
    const wabt = await wabtModule();
    const source = readFileSync(new URL('../src/embedding/dot-scan.wat', import.meta.url), 'utf8');
    const { buffer } = wabt.parseWat('dot-scan.wat', source, { simd: true }).toBinary({});
    expect(Buffer.from(buffer).toString('base64')).toBe(DOT_SCAN_WASM_BASE64);
  });

  it('runs as WebAssembly SIMD on this Node', () => {
    expect(createRowMatrix(100).kind).toBe('wasm-simd');
    expect(createRowMatrix(100, { simd: false }).kind).toBe('js');
  });
});

describe('row matrix scan', () => {
  for (const dims of [1, 3, 8, 100, 384]) {
    it(`gives bit-identical float32 scores in WebAssembly and JavaScript (${dims} dims)`, () => {
      const rows = vectors(257, dims, dims);
      const [query] = vectors(1, dims, 1000 + dims);
      const wasm = [...fill(true, rows, dims).scan(query!, rows.length)];
      const js = [...fill(false, rows, dims).scan(query!, rows.length)];
      expect(wasm).toHaveLength(rows.length);
      expect(wasm).toEqual(js);
      // ...and both are the dot product (float32 rounding aside).
      rows.forEach((row, i) => {
        const exact = row.reduce((sum, value, d) => sum + value * query![d]!, 0);
        expect(wasm[i]).toBeCloseTo(exact, 4);
      });
    });
  }

  it('keeps its rows when the storage grows past a WebAssembly page', () => {
    const dims = 100;
    const rows = vectors(300, dims, 5);
    const matrix = fill(true, rows.slice(0, 10), dims);
    const [query] = vectors(1, dims, 6);
    const before = [...matrix.scan(query!, 10)];
    matrix.reserve(300); // 120 KB of rows: the memory grows and its buffer is replaced
    rows.slice(10).forEach((row, i) => {
      matrix.data.set(row, (i + 10) * matrix.stride);
    });
    const after = [...matrix.scan(query!, 300)];
    expect(after.slice(0, 10)).toEqual(before);
    expect(after).toEqual([...fill(false, rows, dims).scan(query!, 300)]);
  });

  it('hands out zeroed rows after growing, even over old scratch space', () => {
    const matrix = fill(true, vectors(4, 3, 21), 3); // stride 4: one padding lane per row
    matrix.scan(Float32Array.of(Number.NaN, 1, 1), 4); // leaves NaN scores in scratch memory
    matrix.reserve(64);
    expect(matrix.data.subarray(4 * matrix.stride).every((value) => value === 0)).toBe(true);
    matrix.data.set(Float32Array.of(1, 0, 0), 10 * matrix.stride);
    expect(matrix.scan(Float32Array.of(1, 0, 0), 11)[10]).toBe(1);
  });

  it('scores only the rows asked for', () => {
    const matrix = fill(true, vectors(20, 4, 9), 4);
    expect(matrix.scan(new Float32Array(4).fill(1), 7)).toHaveLength(7);
  });
});

describe('row matrix scanTop', () => {
  /** One row per score, so that the query (1, 0, 0, 0) scores row i as scores[i]. */
  function scored(simd: boolean, scores: number[]) {
    return fill(
      simd,
      scores.map((score) => Float32Array.of(score, 0, 0, 0)),
      4,
    );
  }
  const query = Float32Array.of(1, 0, 0, 0);

  it('returns every row scoring at least the k-th best, ties and order kept, NaN left out', () => {
    const matrix = scored(true, [0.5, 0.9, 0.9, 0.1, Number.NaN, 0.9, 0.3, -2]);
    const top = (k: number) => [...matrix.scanTop(query, 8, k).slots];
    expect(top(1)).toEqual([1, 2, 5]);
    expect(top(3)).toEqual([1, 2, 5]);
    expect(top(4)).toEqual([0, 1, 2, 5]);
    // Fewer numbers than k: every row with a number.
    expect(top(20)).toEqual([0, 1, 2, 3, 5, 6, 7]);
    expect(top(0)).toEqual([]);
    expect([...matrix.scanTop(query, 8, 4).scores]).toEqual([...matrix.scan(query, 8)]);
  });

  it('keeps the candidate rows while its scratch space grows (large k)', () => {
    const scores = Array.from({ length: 5000 }, (_, i) => ((i * 7919) % 5000) / 5000);
    const matrix = scored(true, scores);
    const { slots } = matrix.scanTop(query, scores.length, 4000);
    expect(slots).toHaveLength(4000);
    expect([...slots].every((slot) => scores[slot]! >= 0.2)).toBe(true);
  });
});

describe('VectorStore on either scan', () => {
  it('finds the best live rows when removed rows held the best scores, ties by id', () => {
    const rows = [0.2, 0.95, 0.9, 0.5, 0.5, 0.5, 0.1, 0.99, 0.5].map((score) =>
      Float32Array.of(score, 0, 0, 0),
    );
    const stores = [new VectorStore({ simd: true }), new VectorStore({ simd: false })];
    for (const store of stores) {
      // Inserted in reverse: slot order is not id order.
      for (let id = rows.length - 1; id >= 0; id--) store.add(id, rows[id]!);
      store.remove([7, 1, 2]);
    }
    const query = Float32Array.of(1, 0, 0, 0);
    const [wasm, js] = stores.map((store) => store.search(query, 3));
    expect(wasm!.map((hit) => hit.id)).toEqual([3, 4, 5]);
    expect(wasm).toEqual(js);
    const [wasmOdd, jsOdd] = stores.map((store) => store.search(query, 2, (id) => id % 2 === 0));
    expect(wasmOdd!.map((hit) => hit.id)).toEqual([4, 8]);
    expect(wasmOdd).toEqual(jsOdd);
  });

  it('ranks the same through adds, removals and compaction', () => {
    const dims = 50;
    const data = vectors(600, dims, 11);
    const stores = [new VectorStore({ simd: true }), new VectorStore({ simd: false })];
    for (const store of stores) {
      for (const [id, vector] of data.entries()) store.add(id, vector);
      store.remove(Array.from({ length: 400 }, (_, i) => i + 100)); // forces a compaction
      store.add(7, data[8]!); // re-adding an id moves it to a new slot
    }
    expect(stores.map((store) => store.scanKind)).toEqual(['wasm-simd', 'js']);
    for (const query of vectors(5, dims, 12)) {
      const [wasm, js] = stores.map((store) => store.search(query, 25, (id) => id % 3 !== 0));
      expect(wasm).toEqual(js);
      expect(wasm!.some((hit) => hit.id >= 100 && hit.id < 500)).toBe(false);
      expect(wasm!.every((hit) => hit.id % 3 !== 0)).toBe(true);
    }
  });
});
