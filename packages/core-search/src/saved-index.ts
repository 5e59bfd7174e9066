/**
 * The binary saved index (ToolSearch#toBytes / ToolSearch.load): what an engine needs to
 * answer its first search without analysing or inserting a single tool again.
 *
 * toJSON() keeps every document's analysed terms as strings, so load() had to re-insert
 * each one and JSON.parse the whole file first: at 100k tools 184 MB of JSON, parse 4.1 s +
 * load 7.2 s, about what indexing costs. This file holds the structures themselves:
 * the corpus' postings as flat typed arrays (adopted as views, no copy), the exact-name,
 * n-gram and embedding strategies' indexes, and each tool's JSON text, parsed and
 * validated only when the tool is first returned (a search shows ten of 100k).
 *
 * Layout, little-endian: "TSINDEX\0" | u32 header bytes | u32 crc32 of the header |
 * header (UTF-8 JSON) | sections, each 8-byte aligned. The header names the format, its
 * version, the analyser version, the engine options, the learned uses, the document count,
 * and each section's type, offset, size and crc32. The per-document texts (the tools' JSON,
 * their phrasings) come last, with a crc32 per record besides their section's.
 *
 * Loaded from bytes in memory, every section is checked against its crc32 at load, the
 * tools' JSON too (zlib's crc32 reads the ~70 MB of tool text of 100k tools in ~30 ms).
 * Loaded from a file (saved-file.ts: a gateway's or the CLI's index cache), only the sections
 * before the texts are read and checked at load; a text is read when its document first needs
 * it (a search shows ten of 100k) and checked against its record's crc32 then, so a damaged
 * one is refused (INVALID_INDEX naming tools[i]) before anything is built from it: never a
 * wrong tool. Reading the 70 MB of texts was ~0.15 s of CPU of a start at ~100k. A truncated
 * file is refused at load either way (every section must lie inside it). A corrupted file is
 * INVALID_INDEX naming the section or record, never a crash or a different ranking.
 * Structure is checked too (offsets, id ranges and order, counts), so a file built by hand
 * that passes the checksums still cannot crash the engine: what a first search reads at load,
 * the rest when first read (a document's runs of term numbers when it is re-indexed; exact's
 * key table and ids a probe at a time, in full before a change or a save): at ~100k tools
 * those passes were ~0.1 s of self time in a `--cpu-prof` of a gateway's start from its cache
 * (load ~4.7), for arrays a first search reads a few entries of.
 */
import * as zlib from 'node:zlib';
import { embeddingTextOf, nameWordsOf } from './analysis/document.js';
import type { Phrasing } from './analysis/phrasings.js';
import type { CorpusPostings } from './corpus.js';
import { FIELD_NAMES } from './defaults.js';
import type { LearnedUse } from './learning.js';
import type { IndexedDoc, SavedState } from './retriever.js';
import { SavedFile } from './saved-file.js';
import {
  ANALYZER_VERSION,
  INDEX_FORMAT,
  invalidIndex,
  PHRASING_SOURCES,
  type SerializedOptions,
  savedUses,
} from './serialize.js';
import type { ToolDefinition } from './types.js';

/**
 * The binary format's version (toJSON()'s JSON is version 1). 3: one run of term numbers per
 * distinct analysed term array (tokens.at / tokens.lengths), no per-tool checksums. 4: a
 * retriever may save bytes; exact saves its keys as a key table (retrieval/key-table.ts). 5: the
 * per-document texts last, with a crc32 per record (tools.crcs, phrasings.crcs), so a file is
 * read in parts (saved-file.ts).
 */
export const SAVED_INDEX_VERSION = 5;
const MAGIC = 'TSINDEX\0';
const PREAMBLE_BYTES = 16;
const FIELDS = FIELD_NAMES.length;
/** The sections of per-document texts: read from a file a record at a time (see above). */
const RECORD_DATA = new Set(['tools.data', 'phrasings.data']);

type SectionType = 'i32' | 'u32' | 'f32' | 'f64' | 'json' | 'bytes';
type TypedArray = Int32Array | Uint32Array | Float32Array | Float64Array | Uint8Array;

interface SectionEntry {
  type: SectionType;
  offset: number;
  bytes: number;
  crc: number;
}

interface Header {
  format: typeof INDEX_FORMAT;
  version: number;
  analyzer: number;
  options: SerializedOptions;
  learned: LearnedUse[];
  docs: number;
  sections: Record<string, SectionEntry>;
  /** Per retriever: its meta value and the names of its string lists and arrays. */
  retrievers: Record<string, { meta?: unknown; strings: string[]; arrays: string[] }>;
}

const ELEMENT_BYTES: Record<SectionType, number> = { i32: 4, u32: 4, f32: 4, f64: 8, json: 1, bytes: 1 };

const littleEndian = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** zlib's crc32 (Node >= 20.15), else the same checksum in JavaScript; `previous` continues one. */
export const crc32: (data: Uint8Array, previous?: number) => number =
  typeof zlib.crc32 === 'function' ? (data, previous = 0) => zlib.crc32(data, previous) : jsCrc32;

let crcTable: Uint32Array | undefined;
function jsCrc32(data: Uint8Array, previous = 0): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = (previous ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) crc = crcTable[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const bytesOf = (array: TypedArray): Uint8Array =>
  new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** True when `value` starts like a saved index (the magic bytes). */
export function isSavedIndex(value: unknown): value is Uint8Array {
  if (!(value instanceof Uint8Array) || value.length < MAGIC.length) return false;
  for (let i = 0; i < MAGIC.length; i++) if (value[i] !== MAGIC.charCodeAt(i)) return false;
  return true;
}

export interface SaveInput {
  options: SerializedOptions;
  learned: LearnedUse[];
  /** The documents, ascending by id; their position is their id in the file. */
  docs: readonly IndexedDoc[];
  corpus: CorpusPostings;
  retrievers: readonly (readonly [string, SavedState])[];
}

/** Bytes of a records chunk (records()). */
const CHUNK_BYTES = 1 << 24;

/**
 * One text per document (a tool's JSON, its phrasings), UTF-8 back to back; record i spans
 * [starts[i], starts[i + 1]) of the chunks' concatenation (a record may straddle two).
 * Each string is encoded once, straight into the current chunk: measuring every string
 * first (Buffer.byteLength) cost as much as encoding them, and one buffer grown by doubling
 * copied ~200 MB for the ~100 MB of tool JSON of the ~100k-tool corpus (each 0.5-0.7 s,
 * load ~5).
 */
function records(
  count: number,
  textOf: (i: number) => string | Uint8Array,
): { starts: Int32Array; crcs: Uint32Array; chunks: Uint8Array[] } {
  const starts = new Int32Array(count + 1);
  const crcs = new Uint32Array(count);
  const chunks: Uint8Array[] = [];
  let chunk = Buffer.allocUnsafeSlow(0);
  let used = 0;
  let total = 0;
  for (let i = 0; i < count; i++) {
    const text = textOf(i);
    // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair: 4 for 2 units).
    const most = typeof text === 'string' ? text.length * 3 : text.length;
    if (used + most > chunk.length) {
      if (used > 0) chunks.push(chunk.subarray(0, used));
      chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, most));
      used = 0;
    }
    let written: number;
    if (typeof text === 'string') written = chunk.write(text, used);
    else {
      chunk.set(text, used);
      written = text.length;
    }
    crcs[i] = crc32(chunk.subarray(used, used + written));
    used += written;
    total += written;
    if (total > 0x7fffffff) throw new RangeError('toolsearch: a saved index holds at most 2 GB of tool text');
    starts[i + 1] = total;
  }
  if (used > 0) chunks.push(chunk.subarray(0, used));
  return { starts, crcs, chunks };
}

/**
 * Each document's analysed fields as runs of term numbers: one run per distinct term array
 * (analysis hands documents that share a text the same array: forks and mirrors repeat
 * descriptions and schemas), document i's field f at tokens[at[k]] for lengths[k] terms,
 * k = i * FIELDS + f. A term's number is looked up once per run, not once per token.
 */
function tokenRuns(
  docs: readonly IndexedDoc[],
  terms: readonly string[],
): { at: Int32Array; lengths: Int32Array; tokens: Int32Array } {
  const at = new Int32Array(docs.length * FIELDS);
  const lengths = new Int32Array(docs.length * FIELDS);
  const runs = new Map<readonly string[], number>();
  const distinct: (readonly string[])[] = [];
  let total = 0;
  for (let i = 0; i < docs.length; i++) {
    const fields = docs[i]!.fields;
    for (let f = 0; f < FIELDS; f++) {
      const list = fields[FIELD_NAMES[f]!];
      const k = i * FIELDS + f;
      lengths[k] = list.length;
      if (list.length === 0) continue;
      let start = runs.get(list);
      if (start === undefined) {
        start = total;
        runs.set(list, start);
        distinct.push(list);
        total += list.length;
      }
      at[k] = start;
    }
  }
  const termIndex = new Map<string, number>();
  for (let t = 0; t < terms.length; t++) termIndex.set(terms[t]!, t);
  const tokens = new Int32Array(total);
  let next = 0;
  for (const list of distinct) {
    for (const term of list) {
      const t = termIndex.get(term);
      if (t === undefined) throw new Error(`toBytes: term "${term}" is not in the corpus`);
      tokens[next++] = t;
    }
  }
  return { at, lengths, tokens };
}

/** The saved index as bytes (see the layout above). */
export function writeSavedIndex(input: SaveInput): Uint8Array {
  if (!littleEndian)
    throw new RangeError('toolsearch: saved indexes are written on little-endian machines only');
  const { docs, corpus } = input;
  // Each section's bytes, in one piece or in chunks written one after the other.
  const sections: [string, SectionType, Uint8Array[]][] = [];
  const json = (name: string, value: unknown) =>
    sections.push([name, 'json', [Buffer.from(JSON.stringify(value))]]);
  const typed = (name: string, type: SectionType, array: TypedArray) =>
    sections.push([name, type, [bytesOf(array)]]);

  json(
    'names',
    docs.map((doc) => doc.name),
  );
  const toolsetIndex = new Map<string, number>();
  const toolsetOf = new Int32Array(docs.length);
  docs.forEach((doc, i) => {
    let t = toolsetIndex.get(doc.toolset);
    if (t === undefined) {
      t = toolsetIndex.size;
      toolsetIndex.set(doc.toolset, t);
    }
    toolsetOf[i] = t;
  });
  json('toolsets', [...toolsetIndex.keys()]);
  typed('toolsetOf', 'i32', toolsetOf);

  json('terms', corpus.terms);
  typed('postings.starts', 'i32', corpus.starts);
  typed('postings.ids', 'i32', corpus.ids);
  typed('postings.packed', 'f64', corpus.packed);

  // Each document's analysed fields as term numbers: re-indexing one tool (learn,
  // addPhrasings, remove) needs its terms, and field lengths are the runs' lengths.
  const runs = tokenRuns(docs, corpus.terms);
  typed('tokens.at', 'i32', runs.at);
  typed('tokens.lengths', 'i32', runs.lengths);
  typed('tokens', 'i32', runs.tokens);

  const tools = records(docs.length, (i) => {
    const doc = docs[i]!;
    return doc instanceof SavedDoc ? doc.toolBytes() : JSON.stringify(doc.tool);
  });
  typed('tools.starts', 'i32', tools.starts);
  typed('tools.crcs', 'u32', tools.crcs);
  const phrasings = records(docs.length, (i) => {
    const list = docs[i]!.phrasings;
    return list.length === 0 ? '' : JSON.stringify(list.map(({ text, source }) => [text, source]));
  });
  typed('phrasings.starts', 'i32', phrasings.starts);
  typed('phrasings.crcs', 'u32', phrasings.crcs);

  const retrievers: Header['retrievers'] = {};
  for (const [name, state] of input.retrievers) {
    const entry = { meta: state.meta, strings: [] as string[], arrays: [] as string[] };
    for (const [key, list] of Object.entries(state.strings ?? {})) {
      json(`retriever.${name}.${key}`, list);
      entry.strings.push(key);
    }
    for (const [key, array] of Object.entries(state.arrays ?? {})) {
      typed(
        `retriever.${name}.${key}`,
        array instanceof Float32Array
          ? 'f32'
          : array instanceof Float64Array
            ? 'f64'
            : array instanceof Uint8Array
              ? 'bytes'
              : 'i32',
        array,
      );
      entry.arrays.push(key);
    }
    retrievers[name] = entry;
  }
  // Last: a file is read up to here at load, the texts a record at a time (SavedFile).
  sections.push(['tools.data', 'bytes', tools.chunks]);
  sections.push(['phrasings.data', 'bytes', phrasings.chunks]);

  // Offsets count from the first 8-byte boundary after the header, so the header's own
  // length does not move them.
  const table: Record<string, SectionEntry> = {};
  let size = 0;
  for (const [name, type, chunks] of sections) {
    let bytes = 0;
    let crc = 0;
    for (const chunk of chunks) {
      bytes += chunk.length;
      crc = crc32(chunk, crc);
    }
    table[name] = { type, offset: size, bytes, crc };
    size = align(size + bytes);
  }
  const header: Header = {
    format: INDEX_FORMAT,
    version: SAVED_INDEX_VERSION,
    analyzer: ANALYZER_VERSION,
    options: input.options,
    learned: input.learned,
    docs: docs.length,
    sections: table,
    retrievers,
  };
  const headerBytes = Buffer.from(JSON.stringify(header));
  const base = align(PREAMBLE_BYTES + headerBytes.length);
  // Not zero-filled (every byte is written below, the padding explicitly): zeroing ~190 MB
  // at 100k tools only to overwrite it cost a pass over the file.
  const out = Buffer.allocUnsafeSlow(base + size);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(headerBytes.length, 8);
  out.writeUInt32LE(crc32(headerBytes), 12);
  out.set(headerBytes, PREAMBLE_BYTES);
  let end = PREAMBLE_BYTES + headerBytes.length;
  for (const [name, , chunks] of sections) {
    let at = base + table[name]!.offset;
    out.fill(0, end, at);
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    end = at;
  }
  out.fill(0, end);
  // A plain Uint8Array: Buffer's slice() is a view, not the copy callers of a Uint8Array expect.
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

const align = (n: number) => Math.ceil(n / 8) * 8;

/** A saved index, checked for integrity and shape; documents are read from it on demand. */
export class SavedIndex {
  readonly analyzer: number;
  readonly options: SerializedOptions;
  readonly learned: LearnedUse[];
  readonly count: number;
  readonly names: string[];
  private readonly header: Header;
  /** The file from its start, up to the record texts when read from `file` (else all of it). */
  private readonly bytes: Uint8Array;
  /** The file the record texts are read from, a record at a time; undefined: all in `bytes`. */
  private readonly file: SavedFile | undefined;
  /** Where the sections start (their offsets count from here). */
  private readonly base: number;
  private readonly recordTables: Record<'tools' | 'phrasings', { starts: Int32Array; crcs: Uint32Array }>;
  private terms: string[] | undefined;
  private runs: { at: Int32Array; lengths: Int32Array; tokens: Int32Array } | undefined;
  /** The term array of each run read so far, by its start: documents share it as they did when saved. */
  private readonly runTerms = new Map<number, string[]>();

  /** `input`: the whole file, or the file to read in parts (see the layout above). */
  constructor(input: Uint8Array | SavedFile) {
    if (!littleEndian) invalidIndex('saved indexes are read on little-endian machines only');
    const size = input instanceof SavedFile ? input.size : input.length;
    const start = input instanceof SavedFile ? input.read(0, Math.min(size, PREAMBLE_BYTES)) : input;
    if (!isSavedIndex(start))
      invalidIndex(
        'bytes without the "TSINDEX" signature of toBytes() (toJSON() output is loaded as an object or text)',
      );
    if (start.length < PREAMBLE_BYTES) invalidIndex('truncated before its header');
    const headerBytes = new DataView(start.buffer, start.byteOffset, PREAMBLE_BYTES).getUint32(8, true);
    if (PREAMBLE_BYTES + headerBytes > size) invalidIndex('truncated inside its header');
    let bytes: Uint8Array;
    if (input instanceof SavedFile) {
      this.file = input;
      const head = input.read(0, PREAMBLE_BYTES + headerBytes);
      const headerData = head.subarray(PREAMBLE_BYTES);
      if (crc32(headerData) !== new DataView(head.buffer).getUint32(12, true))
        invalidIndex('header checksum mismatch (corrupted)');
      // The sections before the texts, in one read (the header again with them: ~3 KB).
      bytes = input.read(0, Math.min(size, headEnd(headerData)));
    } else {
      this.file = undefined;
      bytes = input;
    }
    // Typed views need aligned offsets: bytes at an unaligned offset are copied once (into a
    // new Uint8Array: a Buffer's slice() would be a view at the same offset).
    this.bytes = bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    const headerData = this.bytes.subarray(PREAMBLE_BYTES, PREAMBLE_BYTES + headerBytes);
    if (crc32(headerData) !== view.getUint32(12, true)) invalidIndex('header checksum mismatch (corrupted)');
    const header = parseJson(headerData, 'header') as Partial<Header> | null;
    if (header === null || typeof header !== 'object') invalidIndex('the header is not an object');
    if (header.format !== INDEX_FORMAT) invalidIndex(`"format" must be "${INDEX_FORMAT}"`);
    if (header.version !== SAVED_INDEX_VERSION)
      invalidIndex(`unsupported version ${String(header.version)} (expected ${SAVED_INDEX_VERSION})`);
    if (typeof header.analyzer !== 'number') invalidIndex('"analyzer" must be a number');
    if (header.options === null || typeof header.options !== 'object')
      invalidIndex('"options" must be an object');
    if (!Number.isInteger(header.docs) || header.docs! < 0) invalidIndex('"docs" must be a count');
    if (header.sections === null || typeof header.sections !== 'object')
      invalidIndex('"sections" must be an object');
    if (header.retrievers === null || typeof header.retrievers !== 'object')
      invalidIndex('"retrievers" must be an object');
    this.header = header as Header;
    this.base = align(PREAMBLE_BYTES + headerBytes);
    for (const [name, entry] of Object.entries(this.header.sections)) this.checkSection(name, entry, size);
    this.analyzer = header.analyzer;
    this.options = header.options;
    this.learned = savedUses(header.learned);
    this.count = header.docs!;
    this.names = this.stringList('names', this.count);
    // Each name once is checked by the engine, whose name map tells it for free (duplicateName).
    for (let i = 0; i < this.names.length; i++)
      if (this.names[i] === '') invalidIndex(`names[${i}] is empty`);
    this.recordTables = { tools: this.recordTable('tools'), phrasings: this.recordTable('phrasings') };
  }

  /** Names a name that appears twice (the engine found fewer distinct names than documents). */
  duplicateName(): never {
    const seen = new Set<string>();
    this.names.forEach((name, i) => {
      if (seen.has(name)) invalidIndex(`names[${i}] "${name}" appears twice`);
      seen.add(name);
    });
    return invalidIndex('a name appears twice');
  }

  /** A section lies inside the file (`size` bytes) and, when in memory, matches its crc32. */
  private checkSection(name: string, entry: SectionEntry, size: number): void {
    if (entry === null || typeof entry !== 'object' || !Object.hasOwn(ELEMENT_BYTES, entry.type))
      invalidIndex(`section "${name}" has no known type`);
    const { bytes, crc } = entry;
    if (!Number.isInteger(entry.offset) || !Number.isInteger(bytes) || entry.offset < 0 || bytes < 0)
      invalidIndex(`section "${name}": offset and size must be whole numbers`);
    const offset = this.base + entry.offset;
    if (offset + bytes > size)
      invalidIndex(`section "${name}" ends at byte ${offset + bytes} of ${size} (truncated)`);
    const width = ELEMENT_BYTES[entry.type];
    if (offset % width !== 0 || bytes % width !== 0) invalidIndex(`section "${name}" is misaligned`);
    // Read from a file, the texts are checked a record at a time (record()).
    if (this.file && RECORD_DATA.has(name)) return;
    if (crc32(this.bytes.subarray(offset, offset + bytes)) !== crc)
      invalidIndex(`section "${name}" checksum mismatch (corrupted)`);
  }

  /** A section's absolute offset and size. */
  private entry(name: string, type: SectionType): { offset: number; bytes: number } {
    const entry = this.header.sections[name];
    if (!entry) invalidIndex(`section "${name}" is missing`);
    if (entry.type !== type) invalidIndex(`section "${name}" must be ${type}, not ${entry.type}`);
    return { offset: this.base + entry.offset, bytes: entry.bytes };
  }

  private typed(name: string, type: 'i32'): Int32Array;
  private typed(name: string, type: 'u32'): Uint32Array;
  private typed(name: string, type: 'f32'): Float32Array;
  private typed(name: string, type: 'f64'): Float64Array;
  private typed(name: string, type: 'i32' | 'u32' | 'f32' | 'f64'): TypedArray {
    const { offset, bytes } = this.entry(name, type);
    const { buffer, byteOffset } = this.bytes;
    const at = byteOffset + offset;
    if (type === 'i32') return new Int32Array(buffer, at, bytes / 4);
    if (type === 'u32') return new Uint32Array(buffer, at, bytes / 4);
    if (type === 'f32') return new Float32Array(buffer, at, bytes / 4);
    return new Float64Array(buffer, at, bytes / 8);
  }

  /** A 'bytes' section as a view. */
  private sectionBytes(name: string): Uint8Array {
    const { offset, bytes } = this.entry(name, 'bytes');
    return this.bytes.subarray(offset, offset + bytes);
  }

  private stringList(name: string, length?: number): string[] {
    const { offset, bytes } = this.entry(name, 'json');
    const list = parseJson(this.bytes.subarray(offset, offset + bytes), name);
    if (!Array.isArray(list)) invalidIndex(`"${name}" must be an array of strings`);
    // A loop, not every(): this runs once per load (100k names), mostly before V8 optimises it.
    for (let i = 0; i < list.length; i++)
      if (typeof list[i] !== 'string') invalidIndex(`"${name}" must be an array of strings`);
    if (length !== undefined && list.length !== length)
      invalidIndex(`"${name}" holds ${list.length} entries for ${length} documents`);
    return list;
  }

  /** Record i of a per-document text section spans [starts[i], starts[i + 1]) of its data, crc32 crcs[i]. */
  private recordTable(name: 'tools' | 'phrasings'): { starts: Int32Array; crcs: Uint32Array } {
    const starts = this.typed(`${name}.starts`, 'i32');
    const crcs = this.typed(`${name}.crcs`, 'u32');
    const data = this.entry(`${name}.data`, 'bytes');
    if (starts.length !== this.count + 1 || crcs.length !== this.count)
      invalidIndex(
        `"${name}" lists ${starts.length - 1} records and ${crcs.length} checksums for ${this.count} documents`,
      );
    checkStarts(starts, data.bytes, `${name}.starts`);
    return { starts, crcs };
  }

  /**
   * The bytes of record i: in memory, checked with its section at load; from the file, read
   * now and checked against its own crc32.
   */
  private record(name: 'tools' | 'phrasings', i: number): Uint8Array {
    const { starts, crcs } = this.recordTables[name];
    const from = this.entry(`${name}.data`, 'bytes').offset + starts[i]!;
    const length = starts[i + 1]! - starts[i]!;
    if (!this.file) return this.bytes.subarray(from, from + length);
    if (length === 0) return this.bytes.subarray(0, 0);
    let data: Uint8Array;
    try {
      data = this.file.read(from, length);
    } catch (error) {
      return invalidIndex(`${name}[${i}] cannot be read (${(error as Error).message})`);
    }
    if (crc32(data) !== crcs[i]) invalidIndex(`${name}[${i}] checksum mismatch (corrupted)`);
    return data;
  }

  /** Tool i's JSON text as saved (re-saving copies it without parsing). */
  toolBytes(i: number): Uint8Array {
    return this.record('tools', i);
  }

  /** Tool i's definition, unvalidated (the caller validates it as add() would). */
  toolData(i: number): unknown {
    return parseJson(this.record('tools', i), `tools[${i}]`);
  }

  phrasings(i: number): Phrasing[] {
    const data = this.record('phrasings', i);
    if (data.length === 0) return [];
    const list = parseJson(data, `phrasings[${i}]`);
    if (!Array.isArray(list)) invalidIndex(`phrasings[${i}] must be an array`);
    return list.map((item: unknown, j) => {
      if (
        !Array.isArray(item) ||
        item.length !== 2 ||
        typeof item[0] !== 'string' ||
        !PHRASING_SOURCES.includes(item[1])
      )
        invalidIndex(`phrasings[${i}][${j}] must be [text, ${PHRASING_SOURCES.join('|')}]`);
      return { text: item[0], source: item[1] } as Phrasing;
    });
  }

  /** Each document's toolset name. */
  toolsets(): string[] {
    const names = this.stringList('toolsets');
    const of = this.typed('toolsetOf', 'i32');
    if (of.length !== this.count)
      invalidIndex(`"toolsetOf" holds ${of.length} entries for ${this.count} documents`);
    const out = new Array<string>(this.count);
    for (let i = 0; i < this.count; i++) {
      const name = names[of[i]!];
      if (name === undefined) invalidIndex(`toolsetOf[${i}] names no toolset`);
      out[i] = name;
    }
    return out;
  }

  /**
   * The corpus' postings (checked by Corpus.importPostings) and each document's field lengths.
   * Only the lengths are checked here; the runs of term numbers when a document's fields are
   * first read (fields(): re-indexing one tool), which a first search never does.
   */
  postings(): { postings: CorpusPostings; lengths: Float64Array } {
    const terms = this.termList();
    const counts = this.typed('tokens.lengths', 'i32');
    const size = this.count * FIELDS;
    if (counts.length !== size)
      invalidIndex(`"tokens.lengths" must hold ${size} entries for ${this.count} documents`);
    for (let k = 0; k < size; k++) if (!(counts[k]! >= 0)) invalidIndex(`tokens.lengths[${k}] is negative`);
    // The typed-array constructor, not Float64Array.from (its iteration protocol).
    const lengths = new Float64Array(counts);
    return {
      postings: {
        terms,
        starts: this.typed('postings.starts', 'i32'),
        ids: this.typed('postings.ids', 'i32'),
        packed: this.typed('postings.packed', 'f64'),
      },
      lengths,
    };
  }

  private termList(): string[] {
    this.terms ??= this.stringList('terms');
    return this.terms;
  }

  /** Each field's run of term numbers (see tokenRuns), checked with the tokens once. */
  private tokenRuns(): { at: Int32Array; lengths: Int32Array; tokens: Int32Array } {
    if (this.runs) return this.runs;
    const at = this.typed('tokens.at', 'i32');
    const lengths = this.typed('tokens.lengths', 'i32');
    const tokens = this.typed('tokens', 'i32');
    const size = this.count * FIELDS;
    if (at.length !== size || lengths.length !== size)
      invalidIndex(`"tokens.at" and "tokens.lengths" must hold ${size} entries for ${this.count} documents`);
    for (let k = 0; k < size; k++) {
      if (!(lengths[k]! >= 0 && at[k]! >= 0 && at[k]! + lengths[k]! <= tokens.length))
        invalidIndex(`tokens.at[${k}] / tokens.lengths[${k}] run outside the ${tokens.length} tokens`);
    }
    const terms = this.termList().length;
    for (let k = 0; k < tokens.length; k++) {
      if (!(tokens[k]! >= 0 && tokens[k]! < terms)) invalidIndex(`tokens[${k}] names no term`);
    }
    this.runs = { at, lengths, tokens };
    return this.runs;
  }

  /** Document i's analysed fields, as analyzeTool made them. */
  fields(i: number): IndexedDoc['fields'] {
    const { at, lengths, tokens } = this.tokenRuns();
    const terms = this.termList();
    const fields: Record<string, string[]> = {};
    FIELD_NAMES.forEach((field, f) => {
      const from = at[i * FIELDS + f]!;
      const length = lengths[i * FIELDS + f]!;
      let list = length === 0 ? undefined : this.runTerms.get(from);
      if (list === undefined || list.length !== length) {
        list = new Array<string>(length);
        for (let k = 0; k < length; k++) list[k] = terms[tokens[from + k]!]!;
        if (length > 0) this.runTerms.set(from, list);
      }
      fields[field] = list;
    });
    return fields as unknown as IndexedDoc['fields'];
  }

  /** A retriever's saved state, or undefined when the file holds none for it. */
  retrieverState(name: string): SavedState | undefined {
    const entry = this.header.retrievers[name];
    if (entry === undefined) return undefined;
    if (
      entry === null ||
      typeof entry !== 'object' ||
      !Array.isArray(entry.strings) ||
      !Array.isArray(entry.arrays)
    )
      invalidIndex(`retriever "${name}" must list its strings and arrays`);
    const strings: Record<string, string[]> = {};
    for (const key of entry.strings) strings[key] = this.stringList(`retriever.${name}.${key}`);
    const arrays: NonNullable<SavedState['arrays']> = {};
    for (const key of entry.arrays) {
      const section = `retriever.${name}.${key}`;
      const type = this.header.sections[section]?.type;
      arrays[key] =
        type === 'f32'
          ? this.typed(section, 'f32')
          : type === 'f64'
            ? this.typed(section, 'f64')
            : type === 'bytes'
              ? this.sectionBytes(section)
              : this.typed(section, 'i32');
    }
    return { meta: entry.meta, strings, arrays };
  }
}

/**
 * Where the sections before the per-document texts end, given the header's bytes (the header
 * is checked in full with the rest of the file).
 */
function headEnd(headerData: Uint8Array): number {
  const header = parseJson(headerData, 'header') as Partial<Header> | null;
  let end = align(PREAMBLE_BYTES + headerData.length);
  const base = end;
  const sections = header && typeof header === 'object' ? header.sections : undefined;
  for (const [name, entry] of Object.entries(sections ?? {})) {
    if (RECORD_DATA.has(name) || entry === null || typeof entry !== 'object') continue;
    const to = base + Number(entry.offset) + Number(entry.bytes);
    // A header whose numbers are not sizes is refused by checkSection, after the read.
    if (Number.isSafeInteger(to)) end = Math.max(end, to);
  }
  return end;
}

/** Starts of records or runs: from 0, never decreasing, ending at `end`. */
function checkStarts(starts: Int32Array, end: number, name: string): void {
  if (starts[0] !== 0 || starts[starts.length - 1] !== end)
    invalidIndex(`"${name}" must run from 0 to ${end}`);
  for (let i = 1; i < starts.length; i++) {
    if (starts[i]! < starts[i - 1]!) invalidIndex(`"${name}" decreases at ${i}`);
  }
}

function parseJson(data: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(utf8.decode(data));
  } catch (error) {
    return invalidIndex(`${what} is not JSON (${(error as Error).message})`);
  }
}

/**
 * A document of a saved index: id, name and toolset at hand (every search reads them),
 * the rest read from the file when first needed. Its tool is parsed and validated as
 * add() validates, on first use; a tool that fails is INVALID_INDEX naming `tools[i]`.
 */
export class SavedDoc implements IndexedDoc {
  private toolValue: ToolDefinition | undefined;
  private fieldsValue: IndexedDoc['fields'] | undefined;
  private phrasingsValue: Phrasing[] | undefined;

  constructor(
    readonly id: number,
    readonly name: string,
    readonly toolset: string,
    private readonly file: SavedIndex,
    private readonly validate: (tool: unknown, index: number) => ToolDefinition,
  ) {}

  get tool(): ToolDefinition {
    this.toolValue ??= this.validate(this.file.toolData(this.id), this.id);
    return this.toolValue;
  }

  get fields(): IndexedDoc['fields'] {
    this.fieldsValue ??= this.file.fields(this.id);
    return this.fieldsValue;
  }

  get phrasings(): Phrasing[] {
    this.phrasingsValue ??= this.file.phrasings(this.id);
    return this.phrasingsValue;
  }

  get nameWords(): readonly string[] {
    return nameWordsOf(this.name);
  }

  get embeddingText(): string {
    return embeddingTextOf(this);
  }

  /** The tool's JSON text as saved. */
  toolBytes(): Uint8Array {
    return this.file.toolBytes(this.id);
  }
}
