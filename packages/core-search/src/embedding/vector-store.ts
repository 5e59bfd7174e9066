/**
 * Document vectors in one contiguous Float32Array (row i = slot i), so a query
 * is a single linear scan of dot products (vectors are L2-normalised, so the dot
 * product is the cosine). Removal marks a tombstone; the array is compacted once
 * tombstones outnumber live rows, keeping slot order (and so tie order) intact.
 */
import { type ScoredId, TopK } from '../top-k.js';

const MIN_CAPACITY = 64;

export class VectorStore {
  private data = new Float32Array(0);
  /** Doc id per slot; -1 marks a tombstone. */
  private slotIds = new Int32Array(0);
  private readonly slotOf = new Map<number, number>();
  private used = 0;
  private dimensions = 0;

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
    this.reserve(this.used + 1);
    this.data.set(vector, this.used * this.dimensions);
    this.slotIds[this.used] = id;
    this.slotOf.set(id, this.used);
    this.used++;
  }

  remove(ids: readonly number[]): void {
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined) continue;
      this.slotIds[slot] = -1;
      this.slotOf.delete(id);
    }
    const tombstones = this.used - this.slotOf.size;
    if (tombstones > MIN_CAPACITY && tombstones > this.slotOf.size) this.compact();
  }

  /** The `k` rows with the highest dot product with `query`, best first (ties: lower id first). */
  search(query: Float32Array, k: number, accept?: (id: number) => boolean): ScoredId[] {
    const top = new TopK(k);
    const dims = this.dimensions;
    if (query.length !== dims || k <= 0) return [];
    const data = this.data;
    const ids = this.slotIds;
    // Four accumulators let the JIT keep the hot loop in registers (about 2x faster).
    const tail = dims - (dims % 4);
    for (let slot = 0, base = 0; slot < this.used; slot++, base += dims) {
      const id = ids[slot]!;
      if (id < 0 || (accept && !accept(id))) continue;
      let a = 0;
      let b = 0;
      let c = 0;
      let d = 0;
      let i = 0;
      for (; i < tail; i += 4) {
        a += data[base + i]! * query[i]!;
        b += data[base + i + 1]! * query[i + 1]!;
        c += data[base + i + 2]! * query[i + 2]!;
        d += data[base + i + 3]! * query[i + 3]!;
      }
      for (; i < dims; i++) a += data[base + i]! * query[i]!;
      const score = a + b + c + d;
      if (top.accepts(id, score)) top.push(id, score);
    }
    return top.sorted();
  }

  private reserve(slots: number): void {
    if (slots <= this.slotIds.length) return;
    const capacity = Math.max(MIN_CAPACITY, slots, this.slotIds.length * 2);
    const data = new Float32Array(capacity * this.dimensions);
    data.set(this.data.subarray(0, this.used * this.dimensions));
    const slotIds = new Int32Array(capacity).fill(-1);
    slotIds.set(this.slotIds.subarray(0, this.used));
    this.data = data;
    this.slotIds = slotIds;
  }

  private compact(): void {
    const dims = this.dimensions;
    let next = 0;
    for (let slot = 0; slot < this.used; slot++) {
      const id = this.slotIds[slot]!;
      if (id < 0) continue;
      if (slot !== next) {
        this.data.copyWithin(next * dims, slot * dims, (slot + 1) * dims);
        this.slotIds[next] = id;
      }
      this.slotOf.set(id, next);
      next++;
    }
    this.slotIds.fill(-1, next, this.used);
    this.used = next;
  }
}
