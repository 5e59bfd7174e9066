/**
 * Row storage and the dot-product scan behind the vector store. Scoring every
 * stored vector against the query is the one hot loop of the embedding strategy
 * (about a million multiply-adds at 10k tools), so it runs as WebAssembly SIMD,
 * four lanes at a time, with the rows in the module's own memory so nothing is
 * copied per query. Where WebAssembly SIMD is missing, a JavaScript loop does
 * the same float32 operations in the same order, so both give bit-identical
 * scores and the same ranking on every machine.
 */
import { DOT_SCAN_WASM_BASE64 } from './dot-scan-wasm.js';

/**
 * The part of the WebAssembly JavaScript API used here. TypeScript declares it only
 * in lib.dom, which a Node library should not pull in.
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
  function validate(bytes: Uint8Array): boolean;
}

export interface RowMatrix {
  /** Floats per row: the dimension count rounded up to a multiple of 4, padded with zeros. */
  readonly stride: number;
  /** Rows the storage holds without growing. */
  readonly capacity: number;
  /** The rows (capacity × stride floats). Re-read after reserve(): growing may replace the buffer. */
  readonly data: Float32Array;
  /** 'wasm-simd' or 'js': which scan runs (reported by benchmarks). */
  readonly kind: 'wasm-simd' | 'js';
  /** Grows the storage to at least `rows` rows, keeping the contents. */
  reserve(rows: number): void;
  /**
   * Dot product of `query` (at most stride floats) with each of the first `rows` rows,
   * in float32. The result is scratch space, valid until the next call.
   */
  scan(query: Float32Array, rows: number): Float32Array;
  /**
   * scan(), then the rows that can be among the `k` best: the indices (ascending) of every
   * score at least the k-th largest, ties included (every row with a number when fewer
   * than k have one). Both results are scratch space, valid until the next call.
   */
  scanTop(query: Float32Array, rows: number, k: number): { scores: Float32Array; slots: Int32Array };
}

export interface RowMatrixOptions {
  /** false forces the JavaScript scan (tests compare the two). Default: WebAssembly SIMD when available. */
  simd?: boolean;
}

export function createRowMatrix(dims: number, options: RowMatrixOptions = {}): RowMatrix {
  const stride = Math.ceil(dims / 4) * 4;
  const module = options.simd === false ? undefined : dotScanModule();
  return module ? new WasmRowMatrix(stride, module) : new JsRowMatrix(stride);
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled scan, or null where WebAssembly or its SIMD proposal is unavailable. */
function dotScanModule(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = Buffer.from(DOT_SCAN_WASM_BASE64, 'base64');
    compiled = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

const PAGE_BYTES = 65536;

/**
 * Rows live at the start of the module's memory; the query and the scores follow
 * them, so growing moves only scratch space (memory.grow keeps the contents).
 */
class WasmRowMatrix implements RowMatrix {
  readonly kind = 'wasm-simd';
  capacity = 0;
  private readonly memory: WebAssembly.Memory;
  private readonly scanRows: (
    matrix: number,
    query: number,
    out: number,
    rows: number,
    stride: number,
  ) => void;
  private readonly kth: (scores: number, rows: number, k: number, heap: number) => number;
  private readonly atLeast: (scores: number, rows: number, min: number, out: number) => number;
  private view = new Float32Array(0);
  private slotView = new Int32Array(0);

  constructor(
    readonly stride: number,
    module: WebAssembly.Module,
  ) {
    const { exports } = new WebAssembly.Instance(module);
    this.memory = exports.memory as WebAssembly.Memory;
    this.scanRows = exports.scan as WasmRowMatrix['scanRows'];
    this.kth = exports.kth as WasmRowMatrix['kth'];
    this.atLeast = exports.atLeast as WasmRowMatrix['atLeast'];
  }

  get data(): Float32Array {
    return this.floats().subarray(0, this.capacity * this.stride);
  }

  /** All of memory as floats; a new view only after the memory grew. */
  private floats(): Float32Array {
    if (this.view.buffer !== this.memory.buffer) this.view = new Float32Array(this.memory.buffer);
    return this.view;
  }

  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    // Rows, then one query, then one score per row (scanTop's heap and slots follow on demand).
    this.grow((rows * this.stride + this.stride + rows) * 4);
    // The new rows overlap the old query and scores: zero them, as padding lanes must be
    // (0 x a stale NaN score would be NaN).
    this.floats().fill(0, this.capacity * this.stride, rows * this.stride);
    this.capacity = rows;
  }

  /** Grows the memory to at least `bytes` (memory.grow keeps the contents). */
  private grow(bytes: number): void {
    const pages = Math.ceil(bytes / PAGE_BYTES) - this.memory.buffer.byteLength / PAGE_BYTES;
    if (pages > 0) this.memory.grow(pages);
  }

  scan(query: Float32Array, rows: number): Float32Array {
    const floats = this.floats();
    const count = Math.min(rows, this.capacity);
    const queryAt = this.capacity * this.stride;
    const outAt = queryAt + this.stride;
    floats.fill(0, queryAt, outAt);
    floats.set(query.subarray(0, this.stride), queryAt);
    this.scanRows(0, queryAt * 4, outAt * 4, count, this.stride);
    return floats.subarray(outAt, outAt + count);
  }

  scanTop(query: Float32Array, rows: number, k: number): { scores: Float32Array; slots: Int32Array } {
    const count = Math.min(rows, this.capacity);
    // After the scores: the heap of k scores, then one slot index per row. Grown before any
    // view is taken, since growing replaces the buffer.
    const outAt = this.capacity * this.stride + this.stride;
    const heapAt = outAt + this.capacity;
    const slotsAt = heapAt + Math.max(0, k);
    this.grow((slotsAt + count) * 4);
    const scores = this.scan(query, count);
    const min = k > 0 ? this.kth(outAt * 4, count, k, heapAt * 4) : Number.POSITIVE_INFINITY;
    const found = this.atLeast(outAt * 4, count, min, slotsAt * 4);
    if (this.slotView.buffer !== this.memory.buffer) this.slotView = new Int32Array(this.memory.buffer);
    return { scores, slots: this.slotView.subarray(slotsAt, slotsAt + found) };
  }
}

class JsRowMatrix implements RowMatrix {
  readonly kind = 'js';
  data = new Float32Array(0);
  private scores = new Float32Array(0);
  private readonly query: Float32Array;

  constructor(readonly stride: number) {
    this.query = new Float32Array(stride);
  }

  get capacity(): number {
    return this.data.length / this.stride;
  }

  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const data = new Float32Array(rows * this.stride);
    data.set(this.data);
    this.data = data;
    this.scores = new Float32Array(rows);
  }

  scan(query: Float32Array, rows: number): Float32Array {
    const q = this.query;
    q.fill(0);
    q.set(query.subarray(0, this.stride));
    const data = this.data;
    const stride = this.stride;
    const fround = Math.fround;
    const count = Math.min(rows, this.capacity);
    // The WebAssembly lanes: lane j sums elements j, j+4, ...; float32 rounding after
    // every operation (fround of a float64 product or sum of float32s is exact float32).
    for (let row = 0, base = 0; row < count; row++, base += stride) {
      let a = 0;
      let b = 0;
      let c = 0;
      let d = 0;
      for (let i = 0; i < stride; i += 4) {
        a = fround(a + fround(data[base + i]! * q[i]!));
        b = fround(b + fround(data[base + i + 1]! * q[i + 1]!));
        c = fround(c + fround(data[base + i + 2]! * q[i + 2]!));
        d = fround(d + fround(data[base + i + 3]! * q[i + 3]!));
      }
      this.scores[row] = fround(a + b) + fround(c + d);
    }
    return this.scores.subarray(0, count);
  }

  /** Without WebAssembly every row is a candidate: the vector store's heap picks the best, as it always did. */
  scanTop(query: Float32Array, rows: number, k: number): { scores: Float32Array; slots: Int32Array } {
    const scores = this.scan(query, rows);
    if (this.allSlots.length < scores.length) this.allSlots = Int32Array.from(this.scores.keys());
    return { scores, slots: this.allSlots.subarray(0, k > 0 ? scores.length : 0) };
  }

  private allSlots = new Int32Array(0);
}
