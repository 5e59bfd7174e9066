/**
 * The per-configuration entry of the gateway's index cache (index-cache.ts): which index the
 * last start over a configuration stored, and the tool lists it was built from, so the next
 * start serves that index before its upstreams have listed anything.
 *
 * A start reads it before its first answer, so it is laid out to need no parse of the tool
 * definitions then: as one JSON text of every list, at ~100k tools (68 MB) its parse and the
 * garbage it left were about half of a 5 s start from the cache (`--cpu-prof`, load ~5).
 * Here each definition is its own record, parsed when the catalog first hands that tool out
 * (a search shows ten); the names and toolsets come from the index, which holds the catalog's
 * tools (Catalog.restoreSaved), so the header holds counts, and the names of the records only.
 *
 * Layout: "TSLAST\0\0" | u32 header bytes | u32 crc32 of everything after these 16 bytes |
 * header (UTF-8 JSON: format, the index's key, per toolset its name, how many tools it listed,
 * how many of them the index holds, and the names of those stored as records) | padding to 4 |
 * u32 record starts (records + 1) | the records (the definitions of the tools the index does
 * not hold as listed, toolset after toolset, as JSON). A tool the index holds as listed
 * (Catalog's heldByIndex: most of them, so the entry of 100k tools is a few KB, not the 68 MB of
 * their definitions, which a start read and checked) has no record. Records are found by name,
 * not by position (format 2 had an empty record per such tool: the catalog then needed every
 * tool's position, 100k entries made at load). The checksum is checked when the entry is read:
 * a damaged entry is no entry; a record is checked to be its tool's when read, and the catalog
 * checks at load that each names a tool the index holds in that toolset: never a wrong
 * definition.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { ToolSearchError } from '@toolsearch/core-search';
import { crc32 } from '@toolsearch/core-search/internals';
import { heldByIndex, type SavedToolsets } from '../catalog.js';

const MAGIC = 'TSLAST\0\0';
const PREAMBLE_BYTES = 16;
/** Bump when the layout changes: an entry of another format is ignored (the start waits for the listing). */
const FORMAT = 3;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const align4 = (n: number) => Math.ceil(n / 4) * 4;

interface Header {
  format: number;
  key: string;
  /** [name, tools listed, tools the index holds, names of those stored as records] per toolset, in config order. */
  toolsets: [string, number, number, string[]][];
}

/** What the last start over a configuration stored: the key of its index and the tools it indexed. */
export class LastEntry implements SavedToolsets {
  readonly key: string;
  readonly toolsets: readonly { name: string; listed: number; indexed: number; stored: readonly string[] }[];
  private readonly records: Uint8Array;
  private readonly starts: Uint32Array;
  /** Record number by tool name. */
  private readonly recordOf = new Map<string, number>();

  private constructor(header: Header, records: Uint8Array, starts: Uint32Array) {
    this.key = header.key;
    this.toolsets = header.toolsets.map(([name, listed, indexed, stored]) => ({
      name,
      listed,
      indexed,
      stored,
    }));
    for (const [, , , stored] of header.toolsets)
      for (const name of stored) this.recordOf.set(name, this.recordOf.size);
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
    const count = header.toolsets.reduce((sum, [, , , stored]) => sum + stored.length, 0);
    const startsAt = align4(PREAMBLE_BYTES + headerBytes);
    const recordsAt = startsAt + 4 * (count + 1);
    if (recordsAt > bytes.length) return undefined;
    // Copied (4 bytes a record): the entry's bytes need not sit at an offset a Uint32Array can view.
    const at = bytes.byteOffset + startsAt;
    const starts = new Uint32Array(bytes.buffer.slice(at, at + 4 * (count + 1)));
    const records = bytes.subarray(recordsAt);
    if (starts[0] !== 0 || starts[count] !== records.length) return undefined;
    for (let i = 1; i <= count; i++) if (starts[i]! < starts[i - 1]!) return undefined;
    const entry = new LastEntry(header, records, starts);
    // A name stored twice would leave a record unread.
    return entry.recordOf.size === count ? entry : undefined;
  }

  /**
   * The definition of tool `name` as its upstream listed it; undefined when it is the one the
   * index holds (no record). A record that is not that tool's definition (a file forged to
   * pass the checksum) is INVALID_INDEX naming it.
   */
  definition(name: string): Tool | undefined {
    const record = this.recordOf.get(name);
    if (record === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(utf8.decode(this.records.subarray(this.starts[record], this.starts[record + 1])));
    } catch {
      value = undefined;
    }
    if (value === null || typeof value !== 'object' || (value as { name?: unknown }).name !== name)
      throw new ToolSearchError(
        'INVALID_INDEX',
        `toolsearch: invalid index: the stored definition of ${name} is not one`,
      );
    return value as Tool;
  }
}

function validHeader(header: unknown): header is Header {
  if (header === null || typeof header !== 'object') return false;
  const h = header as Partial<Header>;
  if (h.format !== FORMAT || typeof h.key !== 'string' || !Array.isArray(h.toolsets)) return false;
  return h.toolsets.every(
    (entry) =>
      Array.isArray(entry) &&
      typeof entry[0] === 'string' &&
      Number.isInteger(entry[1]) &&
      Number.isInteger(entry[2]) &&
      entry[2] >= 0 &&
      entry[2] <= entry[1] &&
      Array.isArray(entry[3]) &&
      entry[3].length <= entry[2] &&
      entry[3].every((name: unknown) => typeof name === 'string'),
  );
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
  const records: Buffer[] = [];
  for (const [toolset, tools] of lists) {
    const kept = tools.filter((tool) => indexed(tool.name));
    // Most definitions are what the index holds already (heldByIndex): no record.
    const stored = kept.filter((tool) => !heldByIndex(tool));
    toolsets.push([toolset, tools.length, kept.length, stored.map((tool) => tool.name)]);
    for (const tool of stored) records.push(Buffer.from(JSON.stringify(tool)));
  }
  const header = Buffer.from(JSON.stringify({ format: FORMAT, key, toolsets } satisfies Header));
  const startsAt = align4(PREAMBLE_BYTES + header.length);
  const starts = new Uint32Array(records.length + 1);
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
