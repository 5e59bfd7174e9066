/**
 * A frozen table from strings to their numbers 0..count-1, read straight from a saved
 * index's bytes: the keys as UTF-8 back to back, their starts, and an open-addressing
 * table of key numbers by hash. Looking a key up hashes and compares its bytes; nothing is
 * decoded or inserted when the table is loaded.
 *
 * The exact retriever's keys (~340k for the ~100k-tool corpus) were saved as a JSON list
 * and loaded into a Map: parse and insert were the largest part of a gateway's start from
 * its cache, ~0.2 s CPU of ~0.85 s (load ~4.5, per-phase CPU of ToolSearch.load), to answer
 * a first search that looks up one key. The table costs ~4 bytes a key more on disk.
 */
import { invalidIndex } from '../serialize.js';

/** The table's arrays, as saved. */
export interface KeyTableArrays {
  /** Every key's UTF-8 bytes, key after key. */
  keys: Uint8Array;
  /** Key k spans [starts[k], starts[k + 1]) of `keys`. */
  starts: Int32Array;
  /** A power of two of slots, at least one more than keys: a key number, or -1 for none. */
  slots: Int32Array;
}

const encoder = new TextEncoder();
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** FNV-1a over bytes [from, to). */
function hashOf(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

/** The table of `keys` (distinct), key k numbered k. */
export function buildKeyTable(keys: readonly string[]): KeyTableArrays {
  const numbered = numberKeys(
    keys,
    keys.map(() => ''),
  );
  return orderedKeyTable(numbered, Int32Array.from(numbered.firsts.keys()));
}

/**
 * Keys given in two parts, key i being `heads[i] + tails[i]`, written as UTF-8 part by part
 * and numbered, each distinct key once, in order of first appearance. Why: the exact
 * retriever holds most of its keys as a server's key and a bare name's key, and joining each
 * pair as a string to save it cost more than the rest of its save. Ordered by
 * `compareNumberedKeys`, made a table by `orderedKeyTable`.
 */
export interface NumberedKeys {
  /** The given keys' bytes, key after key; given key i spans [starts[i], starts[i + 1]). */
  bytes: Uint8Array;
  starts: Int32Array;
  /** Given key i's hash, and its number (the same for equal keys). */
  hashes: Int32Array;
  numbers: Int32Array;
  /** firsts[n]: the first given key numbered n (so the count of distinct keys is its length). */
  firsts: Int32Array;
}

export function numberKeys(heads: readonly string[], tails: readonly string[]): NumberedKeys {
  const { bytes, starts } = writeKeys(heads, tails);
  const count = heads.length;
  const hashes = new Int32Array(count);
  const numbers = new Int32Array(count);
  const firsts: number[] = [];
  // Given keys by hash, each slot the first given key of its bytes: equal bytes, one number.
  const slots = new Int32Array(tableSize(count)).fill(-1);
  const mask = slots.length - 1;
  for (let i = 0; i < count; i++) {
    const hash = hashOf(bytes, starts[i]!, starts[i + 1]!) | 0;
    hashes[i] = hash;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const first = slots[at]!;
      if (first === -1) {
        slots[at] = i;
        numbers[i] = firsts.length;
        firsts.push(i);
        break;
      }
      if (hashes[first] === hash && compareGiven(bytes, starts, first, i) === 0) {
        numbers[i] = numbers[first]!;
        break;
      }
    }
  }
  return { bytes, starts, hashes, numbers, firsts: Int32Array.from(firsts) };
}

/** Distinct keys a and b (numbers) compared by their bytes (UTF-8 order is code point order). */
export function compareNumberedKeys(keys: NumberedKeys, a: number, b: number): number {
  return compareGiven(keys.bytes, keys.starts, keys.firsts[a]!, keys.firsts[b]!);
}

function compareGiven(bytes: Uint8Array, starts: Int32Array, a: number, b: number): number {
  const fromA = starts[a]!;
  const lengthA = starts[a + 1]! - fromA;
  const fromB = starts[b]!;
  const lengthB = starts[b + 1]! - fromB;
  for (let i = 0; i < lengthA && i < lengthB; i++) {
    const diff = bytes[fromA + i]! - bytes[fromB + i]!;
    if (diff !== 0) return diff;
  }
  return lengthA - lengthB;
}

/** The table of the distinct keys, key k being the one numbered `order[k]`. */
export function orderedKeyTable(numbered: NumberedKeys, order: Int32Array): KeyTableArrays {
  const { bytes, starts: given, hashes: givenHashes, firsts } = numbered;
  let total = 0;
  for (const n of order) total += given[firsts[n]! + 1]! - given[firsts[n]!]!;
  const keys = new Uint8Array(total);
  const starts = new Int32Array(order.length + 1);
  const hashes = new Int32Array(order.length);
  for (let k = 0; k < order.length; k++) {
    const i = firsts[order[k]!]!;
    keys.set(bytes.subarray(given[i]!, given[i + 1]!), starts[k]!);
    starts[k + 1] = starts[k]! + given[i + 1]! - given[i]!;
    hashes[k] = givenHashes[i]!;
  }
  return { keys, starts, slots: slotsOf(hashes) };
}

/**
 * Keys (`heads[i] + tails[i]`) as UTF-8 back to back, with their starts,
 * written into one buffer as large as the keys could be (3 bytes a UTF-16 unit at most), then
 * copied to its size: an encode() per key made ~340k arrays for the ~100k-tool index. ASCII
 * is copied by a loop, a call to Buffer.write per string cost more than the loop over its
 * characters.
 */
function writeKeys(
  heads: readonly string[],
  tails: readonly string[],
): { bytes: Uint8Array; starts: Int32Array } {
  let most = 0;
  for (const key of heads) most += key.length * 3;
  for (const key of tails) most += key.length * 3;
  const scratch = Buffer.allocUnsafe(most);
  const starts = new Int32Array(heads.length + 1);
  let total = 0;
  for (let k = 0; k < heads.length; k++) {
    total = writeUtf8(scratch, heads[k]!, total);
    total = writeUtf8(scratch, tails[k]!, total);
    starts[k + 1] = total;
  }
  return { bytes: new Uint8Array(scratch.subarray(0, total)), starts };
}

/** Writes `text` as UTF-8 at `at` of `into`; where it ends. */
function writeUtf8(into: Buffer, text: string, at: number): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return at + into.write(text, at);
    into[at + i] = code;
  }
  return at + text.length;
}

/** At least twice the keys, a power of two: a missing key's probe ends within a slot or two. */
function tableSize(count: number): number {
  let size = 2;
  while (size < 2 * count + 1) size *= 2;
  return size;
}

/** The open-addressing slots of distinct keys by their hashes: key numbers, -1 for none. */
function slotsOf(hashes: Int32Array): Int32Array {
  const slots = new Int32Array(tableSize(hashes.length)).fill(-1);
  const mask = slots.length - 1;
  for (let k = 0; k < hashes.length; k++) {
    let at = hashes[k]! & mask;
    while (slots[at] !== -1) at = (at + 1) & mask;
    slots[at] = k;
  }
  return slots;
}

export class KeyTable {
  readonly size: number;
  private readonly keys: Uint8Array;
  private readonly starts: Int32Array;
  private readonly slots: Int32Array;
  private readonly what: string;

  private checked = false;

  /**
   * Checks at once what a lookup needs before it starts (starts running from 0 to the bytes'
   * end; slots a power of two, more than the keys); the rest a probe reads is checked as it
   * reads it (find()), and in full (check()) before every key is read: INVALID_INDEX naming
   * `what`. A forged table that passes can misnumber keys, not crash or loop. The full check
   * walked the ~520k slots and ~340k starts of the ~100k-tool index at every load, for a first
   * search that probes a slot or two (`--cpu-prof` of a gateway's start from its cache: ~47 ms
   * of self time, load ~4.7).
   */
  constructor(arrays: KeyTableArrays, what: string) {
    const { keys, starts, slots } = arrays;
    const count = starts.length - 1;
    if (count < 0 || starts[0] !== 0 || starts[count] !== keys.length)
      invalidIndex(`${what}: key starts must run from 0 to ${keys.length}`);
    if (slots.length <= count || (slots.length & (slots.length - 1)) !== 0)
      invalidIndex(`${what}: ${slots.length} slots for ${count} keys`);
    this.size = count;
    this.keys = keys;
    this.starts = starts;
    this.slots = slots;
    this.what = what;
  }

  /** Every start in order, every key in at most one slot (so one is empty and a probe ends). */
  private check(): void {
    if (this.checked) return;
    const { starts, slots, size: count, what } = this;
    for (let k = 0; k < count; k++)
      if (starts[k + 1]! < starts[k]!) invalidIndex(`${what}: key starts decrease at ${k + 1}`);
    const seen = new Uint8Array(count);
    for (let at = 0; at < slots.length; at++) {
      const k = slots[at]!;
      if (k === -1) continue;
      if (!(k >= 0 && k < count) || seen[k] === 1)
        invalidIndex(`${what}: slot ${at} names key ${k} (of ${count}) out of range or twice`);
      seen[k] = 1;
    }
    this.checked = true;
  }

  /** The number of `key`, or -1 when the table does not hold it. */
  find(key: string): number {
    const bytes = encoder.encode(key);
    const { keys, starts, slots, size: count, what } = this;
    const mask = slots.length - 1;
    let at = hashOf(bytes, 0, bytes.length) & mask;
    // At most every slot once: unchecked slots may hold no empty one.
    for (let probes = 0; probes < slots.length; probes++, at = (at + 1) & mask) {
      const k = slots[at]!;
      if (k === -1) return -1;
      if (!(k >= 0 && k < count))
        invalidIndex(`${what}: slot ${at} names key ${k} (of ${count}) out of range`);
      const from = starts[k]!;
      const to = starts[k + 1]!;
      if (!(from >= 0 && from <= to && to <= keys.length))
        invalidIndex(`${what}: key starts decrease at ${k + 1}`);
      if (to - from !== bytes.length) continue;
      let i = 0;
      while (i < bytes.length && keys[from + i] === bytes[i]) i++;
      if (i === bytes.length) return k;
    }
    this.check();
    return invalidIndex(`${what}: no empty slot`);
  }

  /** Key k as a string (INVALID_INDEX when its bytes are not UTF-8). */
  key(k: number): string {
    this.check();
    try {
      return utf8.decode(this.keys.subarray(this.starts[k]!, this.starts[k + 1]!));
    } catch {
      return invalidIndex(`key ${k} is not UTF-8`);
    }
  }

  /** Every key, in number order: the whole text decoded once, sliced when it is ASCII (then bytes are characters). */
  allKeys(): string[] {
    this.check();
    let text: string;
    try {
      text = utf8.decode(this.keys);
    } catch {
      return invalidIndex('keys are not UTF-8');
    }
    if (text.length !== this.keys.length) return Array.from({ length: this.size }, (_, k) => this.key(k));
    const keys = new Array<string>(this.size);
    for (let k = 0; k < this.size; k++) keys[k] = text.slice(this.starts[k]!, this.starts[k + 1]!);
    return keys;
  }

  /** The arrays it was read from, to save again as they are. */
  arrays(): KeyTableArrays {
    this.check();
    return { keys: this.keys, starts: this.starts, slots: this.slots };
  }
}
