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

export const PAGE_BYTES = 65536;

/** The functions of dot-scan.wat (addresses are byte offsets into `memory`). */
export interface DotScan {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  scan(matrix: number, query: number, out: number, rows: number, stride: number): void;
  gather(matrix: number, query: number, slots: number, count: number, stride: number, out: number): void;
  kth(scores: number, rows: number, k: number, heap: number): number;
  atLeast(scores: number, rows: number, min: number, out: number): number;
  bounds(
    values: number,
    dims: number,
    params: number,
    plane: number,
    query: number,
    lo: number,
    hi: number,
    rows: number,
    stride16: number,
    qs: number,
    qe: number,
    qn: number,
  ): void;
}

/**
 * A fresh instance of the dot-scan module (its own memory), or undefined where
 * WebAssembly or its SIMD proposal is unavailable (or `simd` is false).
 */
export function dotScanInstance(simd = true): DotScan | undefined {
  const module = simd ? dotScanModule() : null;
  return module ? (new WebAssembly.Instance(module).exports as unknown as DotScan) : undefined;
}

/** Grows `memory` to at least `bytes` (memory.grow keeps the contents). */
export function growTo(memory: DotScan['memory'], bytes: number): void {
  const pages = Math.ceil(bytes / PAGE_BYTES) - memory.buffer.byteLength / PAGE_BYTES;
  if (pages > 0) memory.grow(pages);
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
  /**
   * The scores of the rows listed in `slots` only (each bit-identical to its score in
   * scan()), in that order. Scratch space, valid until the next call.
   */
  gather(query: Float32Array, slots: Int32Array): Float32Array;
}

export interface RowMatrixOptions {
  /** false forces the JavaScript scan (tests compare the two). Default: WebAssembly SIMD when available. */
  simd?: boolean;
}

export function createRowMatrix(dims: number, options: RowMatrixOptions = {}): RowMatrix {
  const stride = Math.ceil(dims / 4) * 4;
  const wasm = dotScanInstance(options.simd !== false);
  return wasm ? new WasmRowMatrix(stride, wasm) : new JsRowMatrix(stride);
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

/**
 * Rows live at the start of the module's memory; the query and the scores follow
 * them, so growing moves only scratch space (memory.grow keeps the contents).
 */
export class WasmRowMatrix implements RowMatrix {
  readonly kind = 'wasm-simd';
  capacity = 0;
  private view = new Float32Array(0);
  private slotView = new Int32Array(0);

  constructor(
    readonly stride: number,
    private readonly wasm: DotScan,
  ) {}

  get data(): Float32Array {
    return this.floats().subarray(0, this.capacity * this.stride);
  }

  /** All of memory as floats; a new view only after the memory grew. */
  private floats(): Float32Array {
    if (this.view.buffer !== this.wasm.memory.buffer) this.view = new Float32Array(this.wasm.memory.buffer);
    return this.view;
  }

  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    // Rows, then one query, then one score per row (scanTop's heap and slots follow on demand).
    growTo(this.wasm.memory, (rows * this.stride + this.stride + rows) * 4);
    // The new rows overlap the old query and scores: zero them, as padding lanes must be
    // (0 x a stale NaN score would be NaN).
    this.floats().fill(0, this.capacity * this.stride, rows * this.stride);
    this.capacity = rows;
  }

  scan(query: Float32Array, rows: number): Float32Array {
    const floats = this.floats();
    const count = Math.min(rows, this.capacity);
    const queryAt = this.capacity * this.stride;
    const outAt = queryAt + this.stride;
    floats.fill(0, queryAt, outAt);
    floats.set(query.subarray(0, this.stride), queryAt);
    this.wasm.scan(0, queryAt * 4, outAt * 4, count, this.stride);
    return floats.subarray(outAt, outAt + count);
  }

  scanTop(query: Float32Array, rows: number, k: number): { scores: Float32Array; slots: Int32Array } {
    const count = Math.min(rows, this.capacity);
    // After the scores: the heap of k scores, then one slot index per row. Grown before any
    // view is taken, since growing replaces the buffer.
    const outAt = this.capacity * this.stride + this.stride;
    const heapAt = outAt + this.capacity;
    const slotsAt = heapAt + Math.max(0, k);
    growTo(this.wasm.memory, (slotsAt + count) * 4);
    const scores = this.scan(query, count);
    const min = k > 0 ? this.wasm.kth(outAt * 4, count, k, heapAt * 4) : Number.POSITIVE_INFINITY;
    const found = this.wasm.atLeast(outAt * 4, count, min, slotsAt * 4);
    return { scores, slots: this.slots().subarray(slotsAt, slotsAt + found) };
  }

  gather(query: Float32Array, slots: Int32Array): Float32Array {
    const queryAt = this.capacity * this.stride;
    const outAt = queryAt + this.stride;
    const slotsAt = outAt + slots.length;
    growTo(this.wasm.memory, (slotsAt + slots.length) * 4);
    const floats = this.floats();
    floats.fill(0, queryAt, outAt);
    floats.set(query.subarray(0, this.stride), queryAt);
    this.slots().set(slots, slotsAt);
    this.wasm.gather(0, queryAt * 4, slotsAt * 4, slots.length, this.stride, outAt * 4);
    return this.floats().subarray(outAt, outAt + slots.length);
  }

  private slots(): Int32Array {
    if (this.slotView.buffer !== this.wasm.memory.buffer)
      this.slotView = new Int32Array(this.wasm.memory.buffer);
    return this.slotView;
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
    this.setQuery(query);
    const count = Math.min(rows, this.capacity);
    for (let row = 0; row < count; row++) this.scores[row] = this.dot(row);
    return this.scores.subarray(0, count);
  }

  gather(query: Float32Array, slots: Int32Array): Float32Array {
    this.setQuery(query);
    const out = new Float32Array(slots.length);
    slots.forEach((slot, i) => {
      out[i] = this.dot(slot);
    });
    return out;
  }

  private setQuery(query: Float32Array): void {
    this.query.fill(0);
    this.query.set(query.subarray(0, this.stride));
  }

  /**
   * The WebAssembly lanes: lane j sums elements j, j+4, ...; float32 rounding after
   * every operation (fround of a float64 product or sum of float32s is exact float32).
   */
  private dot(row: number): number {
    const { data, stride, query: q } = this;
    const fround = Math.fround;
    const base = row * stride;
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
    return fround(fround(a + b) + fround(c + d));
  }

  /** Without WebAssembly every row is a candidate: the vector store's heap picks the best, as it always did. */
  scanTop(query: Float32Array, rows: number, k: number): { scores: Float32Array; slots: Int32Array } {
    const scores = this.scan(query, rows);
    if (this.allSlots.length < scores.length) this.allSlots = Int32Array.from(this.scores.keys());
    return { scores, slots: this.allSlots.subarray(0, k > 0 ? scores.length : 0) };
  }

  private allSlots = new Int32Array(0);
}
