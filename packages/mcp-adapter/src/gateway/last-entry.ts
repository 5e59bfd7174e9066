/**
 * The per-configuration entry of the gateway's index cache (index-cache.ts): which index the
 * last start over a configuration stored, and the tool lists it was built from, so the next
 * start serves that index before its upstreams have listed anything.
 *
 * A start reads it before its first answer, so it is laid out to need no parse of the tool
 * definitions then: as one JSON text of every list, at ~100k tools (68 MB) its parse and the
 * garbage it left were about half of a 5 s start from the cache (`--cpu-prof`, load ~5).
 * Here each definition is its own record, parsed when the catalog first hands that tool out
 * (a search shows ten), and only the names the catalog needs at once are in the header.
 *
 * Layout: "TSLAST\0\0" | u32 header bytes | u32 crc32 of everything after these 16 bytes |
 * header (UTF-8 JSON: format, the index's key, per toolset its name, how many tools it listed
 * and how many of them the index holds, those tools' names, toolset after toolset) | padding
 * to 4 | u32 record starts (names + 1) | the records (each definition's JSON). The checksum is
 * checked when the entry is read (~30 ms for the 68 MB of 100k tools): a damaged entry is no
 * entry, never a wrong definition served later.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { ToolSearchError } from '@toolsearch/core-search';
import { crc32 } from '@toolsearch/core-search/internals';
import type { SavedToolsets } from '../catalog.js';

const MAGIC = 'TSLAST\0\0';
const PREAMBLE_BYTES = 16;
/** Bump when the layout changes: an entry of another format is ignored (the start waits for the listing). */
const FORMAT = 1;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const align4 = (n: number) => Math.ceil(n / 4) * 4;

interface Header {
  format: number;
  key: string;
  /** [name, tools listed, tools the index holds] per toolset, in config order. */
  toolsets: [string, number, number][];
  /** The names of the tools the index holds, toolset after toolset, each in listed order. */
  names: string[];
}

/** What the last start over a configuration stored: the key of its index and the tools it indexed. */
export class LastEntry implements SavedToolsets {
  readonly key: string;
  readonly toolsets: readonly { name: string; listed: number; names: readonly string[] }[];
  private readonly names: readonly string[];
  private readonly records: Uint8Array;
  private readonly starts: Uint32Array;

  private constructor(header: Header, records: Uint8Array, starts: Uint32Array) {
    this.key = header.key;
    this.names = header.names;
    let at = 0;
    this.toolsets = header.toolsets.map(([name, listed, indexed]) => {
      const names = header.names.slice(at, at + indexed);
      at += indexed;
      return { name, listed, names };
    });
    this.records = records;
    this.starts = starts;
  }

  /** The entry `bytes` hold, or undefined when they are none of this format or damaged. */
  static read(bytes: Uint8Array): LastEntry | undefined {
    if (bytes.length < PREAMBLE_BYTES || Buffer.from(bytes.subarray(0, 8)).toString('latin1') !== MAGIC)
      return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const headerBytes = view.getUint32(8, true);
    if (crc32(bytes.subarray(PREAMBLE_BYTES)) !== view.getUint32(12, true)) return undefined;
    if (PREAMBLE_BYTES + headerBytes > bytes.length) return undefined;
    let header: Header;
    try {
      header = JSON.parse(
        utf8.decode(bytes.subarray(PREAMBLE_BYTES, PREAMBLE_BYTES + headerBytes)),
      ) as Header;
    } catch {
      return undefined;
    }
    if (!validHeader(header)) return undefined;
    const count = header.names.length;
    const startsAt = align4(PREAMBLE_BYTES + headerBytes);
    const recordsAt = startsAt + 4 * (count + 1);
    if (recordsAt > bytes.length) return undefined;
    // Copied (400 KB at 100k tools): the entry's bytes need not sit at an offset a Uint32Array can view.
    const at = bytes.byteOffset + startsAt;
    const starts = new Uint32Array(bytes.buffer.slice(at, at + 4 * (count + 1)));
    const records = bytes.subarray(recordsAt);
    if (starts[0] !== 0 || starts[count] !== records.length) return undefined;
    for (let i = 1; i <= count; i++) if (starts[i]! < starts[i - 1]!) return undefined;
    return new LastEntry(header, records, starts);
  }

  /**
   * The definition of the tool at `position` of the names (toolset after toolset), as its
   * upstream listed it. A record that is no definition of that tool (only a file forged to
   * pass the checksum) is INVALID_INDEX naming the tool.
   */
  definition(position: number): Tool {
    const name = this.names[position];
    let value: unknown;
    try {
      value = JSON.parse(
        utf8.decode(this.records.subarray(this.starts[position], this.starts[position + 1])),
      );
    } catch {
      value = undefined;
    }
    if (value === null || typeof value !== 'object' || (value as { name?: unknown }).name !== name)
      throw new ToolSearchError(
        'INVALID_INDEX',
        `toolsearch: invalid index: the stored definition of ${String(name)} is not one`,
      );
    return value as Tool;
  }
}

function validHeader(header: unknown): header is Header {
  if (header === null || typeof header !== 'object') return false;
  const h = header as Partial<Header>;
  if (
    h.format !== FORMAT ||
    typeof h.key !== 'string' ||
    !Array.isArray(h.toolsets) ||
    !Array.isArray(h.names)
  )
    return false;
  let total = 0;
  for (const entry of h.toolsets) {
    if (
      !Array.isArray(entry) ||
      typeof entry[0] !== 'string' ||
      !Number.isInteger(entry[1]) ||
      !Number.isInteger(entry[2]) ||
      entry[2] < 0 ||
      entry[2] > entry[1]
    )
      return false;
    total += entry[2];
  }
  return total === h.names.length && h.names.every((name) => typeof name === 'string');
}

/**
 * The entry of an index stored under `key`, built from `lists` (toolset -> tools as listed,
 * config order); `indexed` tells the tools it holds (the engine may have refused some).
 */
export function encodeLastEntry(
  key: string,
  lists: ReadonlyMap<string, readonly Tool[]>,
  indexed: (name: string) => boolean,
): Uint8Array {
  const toolsets: Header['toolsets'] = [];
  const names: string[] = [];
  const records: Buffer[] = [];
  for (const [toolset, tools] of lists) {
    const kept = tools.filter((tool) => indexed(tool.name));
    toolsets.push([toolset, tools.length, kept.length]);
    for (const tool of kept) {
      names.push(tool.name);
      records.push(Buffer.from(JSON.stringify(tool)));
    }
  }
  const header = Buffer.from(JSON.stringify({ format: FORMAT, key, toolsets, names } satisfies Header));
  const startsAt = align4(PREAMBLE_BYTES + header.length);
  const starts = new Uint32Array(names.length + 1);
  let total = 0;
  records.forEach((record, i) => {
    total += record.length;
    starts[i + 1] = total;
  });
  const recordsAt = startsAt + starts.byteLength;
  const out = Buffer.alloc(recordsAt + total);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(header.length, 8);
  header.copy(out, PREAMBLE_BYTES);
  out.set(new Uint8Array(starts.buffer), startsAt);
  let at = recordsAt;
  for (const record of records) {
    record.copy(out, at);
    at += record.length;
  }
  out.writeUInt32LE(crc32(out.subarray(PREAMBLE_BYTES)), 12);
  return out;
}
