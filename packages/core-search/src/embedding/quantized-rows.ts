/**
 * An int8 copy of the vector store's rows, to find the few rows worth scoring exactly.
 * At 10.5k tools x 100 dims the float rows are 4.2 MB, more than the CPU caches keep
 * between searches, and the exact scan waited on memory; at 100k (42 MB) it was nothing
 * but memory traffic. The int8 rows are a quarter of that, their dot products exact
 * integers (WebAssembly SIMD), and each gives a lower and an upper bound on the row's
 * float32 score. Only rows whose upper bound reaches the k-th best lower bound can be
 * among the k best; those (about 150 for k = 100 at 10.5k tools) are scored exactly by
 * the row matrix, so the ranking is the one the full scan gives, bit for bit.
 *
 * Each row v is stored as q = round(v / s), s = max|v| / 127, with a = |s q| and
 * b = |v - s q| (rounded up); the query u likewise, as (qs, qu). The score of the
 * quantised pair, qs s (q . qu), is within a |u - qs qu| + b |u| of v . u (Cauchy-
 * Schwarz, twice), and float32 rounding (of the exact scan, and of this arithmetic) is
 * covered by a relative slack. A row with a value that is not a finite number gets an
 * infinite margin: always a candidate, never raising the bar. The vector store checks
 * that at least k of the rows it keeps cleared the bar (removed or rejected rows may
 * not); when not, it falls back to scoring every row.
 */
import { type DotScan, growTo } from './row-matrix.js';

/** Room for float32 rounding in the bounds (the float scan's own error is ~(dims/4) x 2^-24 of |v||u|). */
const BASE_SLACK = 1e-4;

export interface Candidates {
  /** Row indices (ascending) whose upper bound reaches `min`. Scratch: valid until the next call. */
  slots: Int32Array;
  /** Each row's lower bound (by row index). Scratch, like `slots`. */
  lower: Float32Array;
  /** The k-th largest lower bound (-Infinity when fewer than k rows have one). */
  min: number;
}

export class QuantizedRows {
  /** The query's int8 values, read sixteen at a time: the dimension count rounded up to a multiple of 16. */
  readonly stride16: number;
  private readonly slack: number;
  capacity = 0;
  /** Where the scale, a and b arrays start (a and b one `plane` after another), and the scratch after them. */
  private params = 0;
  private plane = 0;
  /** The query's int8 values (as i16, the width the dot product reads). */
  private readonly quantized: Int16Array;

  /**
   * @param wasm an instance of its own. The rows' values sit at the start of its memory,
   * packed (`dims` bytes a row: at 100 dims a row and its three floats are 112 bytes, where
   * a record padded to 16 bytes with its floats after it took 128, and the scan of a 10k-tool
   * store reads its rows from memory whenever other work ran in between); the floats follow
   * in three arrays, so four rows' bounds are computed with one vector load of each.
   */
  constructor(
    readonly dims: number,
    private readonly wasm: DotScan,
  ) {
    this.stride16 = align16(dims);
    this.slack = BASE_SLACK + (this.stride16 / 4 + 4) * 2 ** -24;
    this.quantized = new Int16Array(this.stride16);
  }

  /** Grows to at least `rows` rows, keeping the contents (the float arrays move up, the values stay). */
  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    // The last row's last step reads up to 15 bytes past its values: they must be memory.
    const params = align16(rows * this.dims + 16);
    const plane = align16(rows * 4);
    growTo(this.wasm.memory, params + 3 * plane);
    const bytes = new Uint8Array(this.wasm.memory.buffer);
    const used = this.capacity * 4;
    // b, then a, then the scales: each moves up, over nothing not yet moved.
    for (let i = 2; i >= 0; i--)
      bytes.copyWithin(params + i * plane, this.params + i * this.plane, this.params + i * this.plane + used);
    this.params = params;
    this.plane = plane;
    this.capacity = rows;
  }

  /** Stores row `row` from `vector` (dims floats). */
  write(row: number, vector: Float32Array): void {
    const at = row * this.dims;
    const { bytes, floats } = this.views();
    const { scale, a, b } = quantize(vector, bytes.subarray(at, at + this.dims));
    const param = this.params / 4 + row;
    const plane = this.plane / 4;
    floats[param] = scale;
    floats[param + plane] = a;
    floats[param + 2 * plane] = b;
  }

  private bytesView = new Int8Array(0);
  private floatsView = new Float32Array(0);

  /** Views of all of memory, new only after it grew (one pair per write was most of writing). */
  private views(): { bytes: Int8Array; floats: Float32Array } {
    const { buffer } = this.wasm.memory;
    if (this.bytesView.buffer !== buffer) {
      this.bytesView = new Int8Array(buffer);
      this.floatsView = new Float32Array(buffer);
    }
    return { bytes: this.bytesView, floats: this.floatsView };
  }

  /** A removed row: bounds [0, 0], so it is a candidate only when scores are that low. */
  clear(row: number): void {
    const { bytes, floats } = this.views();
    bytes.fill(0, row * this.dims, (row + 1) * this.dims);
    for (let i = 0; i < 3; i++) floats[(this.params + i * this.plane) / 4 + row] = 0;
  }

  copy(from: number, to: number): void {
    const { bytes, floats } = this.views();
    bytes.copyWithin(to * this.dims, from * this.dims, (from + 1) * this.dims);
    for (let i = 0; i < 3; i++) {
      const plane = (this.params + i * this.plane) / 4;
      floats[plane + to] = floats[plane + from]!;
    }
  }

  /**
   * The rows of the first `rows` that can be among the k best for `query`, or undefined
   * when the query has no usable quantisation (zero, or a value that is not a number).
   */
  candidates(query: Float32Array, rows: number, k: number): Candidates | undefined {
    const count = Math.min(rows, this.capacity);
    const { scale, a, b } = quantize(query.subarray(0, this.dims), this.quantized);
    // a is |quantised query|, b its distance from the query; |u| <= a + b.
    let squares = 0;
    for (let i = 0; i < this.dims; i++) squares += query[i]! * query[i]!;
    const norm = Math.sqrt(squares);
    if (!(scale > 0) || !Number.isFinite(norm) || !Number.isFinite(a + b) || k <= 0) return undefined;
    const queryAt = this.params + 3 * this.plane;
    const loAt = queryAt + this.stride16 * 2;
    const hiAt = loAt + align16(count * 4);
    const heapAt = hiAt + align16(count * 4);
    const slotsAt = heapAt + k * 4;
    growTo(this.wasm.memory, slotsAt + count * 4);
    new Int16Array(this.wasm.memory.buffer, queryAt, this.stride16).set(this.quantized);
    const qe = b + this.slack * (norm + b);
    const qn = norm * (1 + this.slack);
    this.wasm.bounds(
      0,
      this.dims,
      this.params,
      this.plane,
      queryAt,
      loAt,
      hiAt,
      count,
      this.stride16,
      scale,
      up(qe),
      up(qn),
    );
    const min = this.wasm.kth(loAt, count, k, heapAt);
    const found = this.wasm.atLeast(hiAt, count, min, slotsAt);
    return {
      slots: new Int32Array(this.wasm.memory.buffer, slotsAt, found),
      lower: new Float32Array(this.wasm.memory.buffer, loAt, count),
      min,
    };
  }
}

function align16(bytes: number): number {
  return Math.ceil(bytes / 16) * 16;
}

/** A float64 rounded up to a float32 (the bounds must not shrink). */
function up(value: number): number {
  return Math.fround(value * (1 + 2 ** -20));
}

/**
 * Writes round(v / scale) into `out` (zeros beyond v) and returns the float32 scale, the
 * length a of the quantised vector and its distance b from v (rounded up). A vector with
 * a value that is not finite: scale 0, a 0, b infinite.
 */
function quantize(
  vector: Float32Array,
  out: Int8Array | Int16Array,
): { scale: number; a: number; b: number } {
  out.fill(0);
  let max = 0;
  for (const value of vector) max = Math.max(max, Math.abs(value));
  if (!Number.isFinite(max)) return { scale: 0, a: 0, b: Number.POSITIVE_INFINITY };
  const scale = Math.fround(max / 127);
  if (scale === 0) {
    // All zeros, or too small for a float32 scale: kept as zeros, and b is its whole length.
    let rest = 0;
    for (const value of vector) rest += value * value;
    return { scale: 0, a: 0, b: up(Math.sqrt(rest)) };
  }
  let a = 0;
  let b = 0;
  for (let i = 0; i < vector.length; i++) {
    const q = Math.max(-127, Math.min(127, Math.round(vector[i]! / scale)));
    out[i] = q;
    const kept = q * scale;
    a += kept * kept;
    b += (vector[i]! - kept) ** 2;
  }
  return { scale, a: up(Math.sqrt(a)), b: up(Math.sqrt(b)) };
}
