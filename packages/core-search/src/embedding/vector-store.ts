/**
 * Document vectors in one contiguous Float32Array (row i = slot i), so a query
 * is a single linear scan of dot products (vectors are L2-normalised, so the dot
 * product is the cosine), run by the row matrix (WebAssembly SIMD where there is
 * one). Where it is WebAssembly, an int8 copy of the rows (quantized-rows.ts) first
 * narrows a query to the rows that can make the top k, and only those are scored
 * exactly. Removal marks a tombstone; the array is compacted once tombstones
 * outnumber live rows, keeping slot order (and so tie order) intact.
 */
import { bestOf, candidates, type ScoredId, TopK } from '../top-k.js';
import { QuantizedRows } from './quantized-rows.js';
import { createRowMatrix, dotScanInstance, type RowMatrix, type RowMatrixOptions } from './row-matrix.js';

const MIN_CAPACITY = 64;

export class VectorStore {
  /** Created at the first add, when the dimension count is known. */
  private rows: RowMatrix | undefined;
  /** The int8 copy, beside WebAssembly rows only. */
  private quantized: QuantizedRows | undefined;
  /** Doc id per slot; -1 marks a tombstone. */
  private slotIds = new Int32Array(0);
  private readonly slotOf = new Map<number, number>();
  private used = 0;
  private dimensions = 0;

  constructor(private readonly options: RowMatrixOptions = {}) {}

  /** Which dot-product scan runs: 'wasm-simd', 'js', or undefined before the first add. */
  get scanKind(): RowMatrix['kind'] | undefined {
    return this.rows?.kind;
  }

  get dims(): number {
    return this.dimensions;
  }

  /** Live vectors. */
  get size(): number {
    return this.slotOf.size;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  add(id: number, vector: Float32Array): void {
    if (this.dimensions === 0) this.dimensions = vector.length;
    if (vector.length !== this.dimensions) {
      throw new RangeError(`vector of ${vector.length} dims in a store of ${this.dimensions}`);
    }
    if (this.slotOf.has(id)) this.remove([id]);
    const rows = this.reserve(this.used + 1);
    rows.data.set(vector, this.used * rows.stride);
    this.quantized?.write(this.used, vector);
    this.slotIds[this.used] = id;
    this.slotOf.set(id, this.used);
    this.used++;
  }

  /**
   * add() for many vectors, the storage grown once to the exact size: growing by doubling
   * left up to half of it spare (52 MB of rows for 100k tools' 40 MB).
   */
  addAll(entries: readonly (readonly [number, Float32Array])[]): void {
    const first = entries[0];
    if (!first) return;
    if (this.dimensions === 0) this.dimensions = first[1].length;
    this.reserve(this.used + entries.length, true);
    for (const [id, vector] of entries) this.add(id, vector);
  }

  remove(ids: readonly number[]): void {
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined) continue;
      this.slotIds[slot] = -1;
      this.quantized?.clear(slot);
      this.slotOf.delete(id);
    }
    const tombstones = this.used - this.slotOf.size;
    if (tombstones > MIN_CAPACITY && tombstones > this.slotOf.size) this.compact();
  }

  /** The `k` rows with the highest dot product with `query`, best first (ties: lower id first). */
  search(query: Float32Array, k: number, accept?: (id: number) => boolean): ScoredId[] {
    if (!this.rows || query.length !== this.dimensions || k <= 0) return [];
    const narrowed = this.quantized && this.searchCandidates(this.quantized, this.rows, query, k, accept);
    if (narrowed) return narrowed;
    // The scan also picks the rows scoring at least its k-th best (WebAssembly): every row
    // of the top k is among them, unless tombstones or rejected rows took places there.
    const { scores, slots } = this.rows.scanTop(query, this.used, k);
    let top = new TopK(k);
    let offered = 0;
    for (const slot of slots) {
      const id = this.slotIds[slot]!;
      if (id < 0 || (accept && !accept(id))) continue;
      offered++;
      top.push(id, scores[slot]!);
    }
    if (offered < k && slots.length < scores.length) {
      // Fewer than k candidates survived: every row competes.
      top = new TopK(k);
      this.offerAll(top, scores, accept);
    }
    return top.sorted();
  }

  /**
   * The top k among the rows the int8 copy could not rule out, scored exactly; undefined
   * when fewer than k of the rows kept (live, accepted) are sure to beat the rest: then
   * removed or rejected rows set the bar, and every row must compete.
   */
  private searchCandidates(
    quantized: QuantizedRows,
    rows: RowMatrix,
    query: Float32Array,
    k: number,
    accept?: (id: number) => boolean,
  ): ScoredId[] | undefined {
    const found = quantized.candidates(query, this.used, k);
    if (!found || !rows.gather) return undefined;
    const { slots, lower, min } = found;
    const scores = rows.gather(query, slots);
    // The few candidates (about k) are selected among in scratch arrays, not pushed through
    // a heap made per search: with the caches cold (other work between two searches), the
    // heap's two arrays and its pushes cost about as much as scoring the candidates.
    const kept = candidates(slots.length);
    let n = 0;
    let sure = 0;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      const id = this.slotIds[slot]!;
      if (id < 0 || (accept && !accept(id))) continue;
      if (lower[slot]! >= min) sure++;
      const score = scores[i]!;
      if (Number.isNaN(score)) continue; // as TopK.push: no place in a ranking
      kept.ids[n] = id;
      kept.scores[n++] = score;
    }
    if (sure < k) return undefined;
    const { ids, scores: keptScores } = kept;
    return bestOf(ids, keptScores, n, k).map((i) => ({ id: ids[i]!, score: keptScores[i]! }));
  }

  private offerAll(top: TopK, scores: Float32Array, accept?: (id: number) => boolean): void {
    const ids = this.slotIds;
    // Most rows lose to the current k-th best; one comparison rejects them.
    let threshold = top.threshold;
    for (let slot = 0; slot < scores.length; slot++) {
      const score = scores[slot]!;
      if (score < threshold) continue;
      const id = ids[slot]!;
      if (id < 0 || (accept && !accept(id)) || !top.accepts(id, score)) continue;
      top.push(id, score);
      threshold = top.threshold;
    }
  }

  /** The live rows in slot order, ids renumbered by `dense` (for a saved index). */
  exportRows(dense: Int32Array): { ids: Int32Array; vectors: Float32Array } {
    const ids = new Int32Array(this.slotOf.size);
    const vectors = new Float32Array(this.slotOf.size * this.dimensions);
    if (!this.rows) return { ids, vectors };
    const { data, stride } = this.rows;
    let at = 0;
    for (let slot = 0; slot < this.used; slot++) {
      const id = this.slotIds[slot]!;
      if (id < 0) continue;
      ids[at] = dense[id]!;
      vectors.set(data.subarray(slot * stride, slot * stride + this.dimensions), at * this.dimensions);
      at++;
    }
    return { ids, vectors };
  }

  /** Room for `slots` rows: exactly that many when `exact`, else at least double the present. */
  private reserve(slots: number, exact = false): RowMatrix {
    if (!this.rows) {
      this.rows = createRowMatrix(this.dimensions, this.options);
      const wasm = this.rows.kind === 'wasm-simd' ? dotScanInstance() : undefined;
      if (wasm) this.quantized = new QuantizedRows(this.dimensions, wasm);
    }
    if (slots > this.rows.capacity) {
      const capacity = exact ? slots : Math.max(MIN_CAPACITY, slots, this.rows.capacity * 2);
      this.rows.reserve(capacity);
      this.quantized?.reserve(capacity);
      const slotIds = new Int32Array(capacity).fill(-1);
      slotIds.set(this.slotIds.subarray(0, this.used));
      this.slotIds = slotIds;
    }
    return this.rows;
  }

  private compact(): void {
    if (!this.rows) return;
    const { data, stride } = this.rows;
    let next = 0;
    for (let slot = 0; slot < this.used; slot++) {
      const id = this.slotIds[slot]!;
      if (id < 0) continue;
      if (slot !== next) {
        data.copyWithin(next * stride, slot * stride, (slot + 1) * stride);
        this.quantized?.copy(slot, next);
        this.slotIds[next] = id;
      }
      this.slotOf.set(id, next);
      next++;
    }
    this.slotIds.fill(-1, next, this.used);
    this.used = next;
  }
}
