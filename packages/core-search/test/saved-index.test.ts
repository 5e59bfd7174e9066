import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/defaults.js';
import type { Embedder } from '../src/embedding/types.js';
import { ToolSearch, ToolSearchError } from '../src/index.js';
import { SavedFile } from '../src/saved-file.js';
import { caught, engine, REGISTRY_TOOLS, TOOLS, top } from './helpers.js';

const registry = { tools: REGISTRY_TOOLS };

// One query per strategy's speciality: words, an exact name, a typo, a prefix, a toolset, phrasing.
const QUERIES = [
  'screensh',
  'github',
  'take a screenshot of the page',
  'create_issue',
  'calender',
  'server-github search code',
  'remind me to call mum tomorrow',
];

async function rankings(search: ToolSearch, queries = QUERIES) {
  const out = [];
  for (const query of queries) {
    const response = await search.search(query, { limit: 20 });
    out.push({
      results: response.results.map((r) => [r.name, r.score, r.matchedBy, r.summary, r.tool]),
      toolsets: response.toolsets,
      strategies: response.strategies,
    });
  }
  return out;
}

/** The parts of a file's header these tests edit. */
interface SavedHeader {
  analyzer: number;
  version: number;
  sections: Record<string, { offset: number; bytes: number; crc: number }>;
}

/** The file's header and its sections, to edit a file the way a forger or a bad disk would. */
function sections(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(8, true);
  const header = JSON.parse(Buffer.from(bytes.subarray(16, 16 + length)).toString('utf8')) as SavedHeader;
  const base = Math.ceil((16 + length) / 8) * 8;
  return { header, base };
}

/** A copy of `bytes` with one bit flipped inside section `name`: its checksum no longer matches. */
function damaged(bytes: Uint8Array, name: string): Uint8Array {
  const { header, base } = sections(bytes);
  const copy = bytes.slice();
  copy[base + header.sections[name]!.offset + 1]! ^= 0x40;
  return copy;
}

/** Rewrite one section (or the header) and fix every checksum: a well-formed file with wrong content. */
function forge(
  bytes: Uint8Array,
  edit: { section?: string; change?: (data: Uint8Array) => void; header?: (header: SavedHeader) => void },
): Uint8Array {
  const copy = bytes.slice();
  const { header, base } = sections(copy);
  if (edit.section) {
    const entry = header.sections[edit.section]!;
    const data = copy.subarray(base + entry.offset, base + entry.offset + entry.bytes);
    edit.change!(data);
    entry.crc = crc32(data);
  }
  edit.header?.(header);
  const headerBytes = Buffer.from(JSON.stringify(header));
  const newBase = Math.ceil((16 + headerBytes.length) / 8) * 8;
  const out = new Uint8Array(newBase + copy.length - base);
  out.set(copy.subarray(0, 8));
  const view = new DataView(out.buffer);
  view.setUint32(8, headerBytes.length, true);
  view.setUint32(12, crc32(headerBytes), true);
  out.set(headerBytes, 16);
  out.set(copy.subarray(base), newBase);
  return out;
}

describe('toBytes / load(bytes)', () => {
  it('loads an index that ranks exactly as the engine that saved it, tools and all', async () => {
    const original = new ToolSearch({ tools: registry.tools, embedding: false, weights: { fuzzy: 0.5 } });
    const loaded = ToolSearch.load(original.toBytes(), { embedding: false });
    expect(loaded.size).toBe(original.size);
    expect(await rankings(loaded)).toEqual(await rankings(original));
    expect(loaded.get(registry.tools[3]!.name)).toEqual(original.get(registry.tools[3]!.name));
    expect(loaded.toolsets()).toEqual(original.toolsets());
  });

  it('saves again byte for byte, and as toJSON() does', () => {
    const original = engine({ disable: ['ngram'], synonyms: { meteo: ['weather'] } });
    original.learn({ query: 'what will the sky do tomorrow', tool: 'weather__forecast', count: 3 });
    original.addPhrasings('mail__send_email', ['drop my boss a line']);
    const bytes = original.toBytes();
    const loaded = ToolSearch.load(bytes, { embedding: false });
    expect(loaded.toBytes()).toEqual(bytes);
    expect(loaded.toJSON()).toEqual(original.toJSON());
  });

  it('keeps options, learned uses and phrasings, and stays incremental after loading', async () => {
    const build = () => {
      const e = engine({ disable: ['prefix'], synonyms: { meteo: ['weather'] } });
      e.learn({
        query: 'what will the sky do tomorrow',
        tool: 'weather__forecast',
        count: 3,
        lastSeen: 1000,
      });
      e.addPhrasings('mail__send_email', ['drop my boss a line']);
      return e;
    };
    const original = build();
    const loaded = ToolSearch.load(original.toBytes(), { embedding: false });
    expect(loaded.learned()).toEqual(original.learned());
    expect((await loaded.search('screensh')).strategies).not.toContain('prefix');
    // The same changes on both: a loaded document is re-indexed and removed like any other.
    for (const e of [original, loaded]) {
      e.add([{ name: 'extra_tool', description: 'unique zebra words' }]);
      e.remove([TOOLS[0]!.name, 'calendar__list_events']);
      e.addPhrasings('db__run_query', ['look something up in postgres']);
      e.learn({ query: 'forecast for paris', tool: 'weather__forecast', lastSeen: 2000 });
      e.forget({ tool: 'mail__send_email' });
    }
    const queries = [
      'zebra',
      'meteo',
      'look something up',
      'drop my boss a line',
      'calendar',
      'forecast paris',
    ];
    expect(await rankings(loaded, queries)).toEqual(await rankings(original, queries));
    expect(loaded.has(TOOLS[0]!.name)).toBe(false);
    expect(await top(loaded, 'take screenshot')).not.toContain(TOOLS[0]!.name);
  });

  it('re-analyses the tools when the analyser changed or another pack setting is asked for', async () => {
    const original = new ToolSearch({ tools: registry.tools, embedding: false });
    original.addPhrasings(registry.tools[0]!.name, ['a very particular request']);
    const stale = forge(original.toBytes(), { header: (h) => (h.analyzer = -1) });
    const loaded = ToolSearch.load(stale, { embedding: false });
    expect(await rankings(loaded)).toEqual(await rankings(original));
    expect(await top(loaded, 'a very particular request')).toContain(registry.tools[0]!.name);
    const unpacked = ToolSearch.load(original.toBytes(), { embedding: false, pack: false });
    const fresh = new ToolSearch({ tools: registry.tools, embedding: false, pack: false });
    fresh.addPhrasings(registry.tools[0]!.name, ['a very particular request']);
    expect(await rankings(unpacked)).toEqual(await rankings(fresh));
  });

  it('carries the embedding vectors of the same embedder, and embeds again for another', async () => {
    let embedded = 0;
    const embedder = (id: string): Embedder => ({
      id,
      dims: 4,
      async embed(texts) {
        embedded += texts.length;
        return texts.map((text) => {
          const v = new Float32Array(4);
          for (let i = 0; i < text.length; i++) v[i % 4]! += text.charCodeAt(i);
          const norm = Math.hypot(...v);
          return v.map((x) => x / norm);
        });
      },
    });
    const original = new ToolSearch({
      tools: TOOLS,
      embedding: { embedder: embedder('fake-1'), cacheDir: '' },
    });
    await original.ready();
    const bytes = original.toBytes();
    embedded = 0;
    const same = ToolSearch.load(bytes, { embedding: { embedder: embedder('fake-1'), cacheDir: '' } });
    await same.ready();
    expect((await same.search('mail')).strategies).toContain('embedding');
    expect(embedded).toBe(1); // the query only
    expect(await rankings(same, ['send mail', 'weather'])).toEqual(
      await rankings(original, ['send mail', 'weather']),
    );
    embedded = 0;
    const other = ToolSearch.load(bytes, { embedding: { embedder: embedder('fake-2'), cacheDir: '' } });
    await other.ready();
    expect(embedded).toBe(TOOLS.length);
  });

  it('rejects a truncated or corrupted file with INVALID_INDEX naming the part', () => {
    const bytes = engine().toBytes();
    expect(caught(() => ToolSearch.load(bytes.subarray(0, bytes.length - 9))).message).toMatch(/truncated/);
    expect(caught(() => ToolSearch.load(bytes.subarray(0, 20))).message).toMatch(/truncated/);
    for (const name of [
      'names',
      'terms',
      'postings.ids',
      'postings.packed',
      'tokens',
      'tokens.lengths',
      'tools.data',
      'retriever.exact.keys',
    ]) {
      const error = caught(() => ToolSearch.load(damaged(bytes, name), { embedding: false }));
      expect(error.code).toBe('INVALID_INDEX');
      expect(error.message).toContain(`"${name}" checksum mismatch`);
    }
    const badHeader = bytes.slice();
    badHeader[20]! ^= 1;
    expect(caught(() => ToolSearch.load(badHeader)).message).toMatch(/header checksum/);
    const future = forge(bytes, { header: (h) => (h.version = 99) });
    expect(caught(() => ToolSearch.load(future)).message).toMatch(/unsupported version 99/);
  });

  it('refuses a corrupted tool at load, not when a search first returns it', () => {
    const bytes = engine().toBytes();
    const { header, base } = sections(bytes);
    const broken = bytes.slice();
    broken[base + header.sections['tools.data']!.offset + 3]! ^= 0x20; // inside tools[0]
    const error = caught(() => ToolSearch.load(broken, { embedding: false }));
    expect(error).toBeInstanceOf(ToolSearchError);
    expect(error.code).toBe('INVALID_INDEX');
    expect(error.message).toContain('"tools.data" checksum mismatch');
  });

  it('saves a term array that documents share once, and loads them sharing it', async () => {
    // Forks of one server: the same description and schema under other names.
    const forks = ['a', 'b', 'c'].map((fork) => ({
      name: `${fork}__send_email`,
      description: 'Send an email to a recipient with a subject and a body',
      inputSchema: {
        type: 'object' as const,
        properties: { to: { type: 'string' }, body: { type: 'string' } },
      },
    }));
    const original = new ToolSearch({ tools: forks, embedding: false });
    const bytes = original.toBytes();
    const { header } = sections(bytes);
    const single = new ToolSearch({ tools: forks.slice(0, 1), embedding: false }).toBytes();
    // The forks add their names' terms, not their descriptions' again.
    expect(header.sections.tokens!.bytes).toBeLessThan(3 * sections(single).header.sections.tokens!.bytes);
    const loaded = ToolSearch.load(bytes, { embedding: false });
    expect(loaded.toBytes()).toEqual(bytes);
    // Re-indexing a loaded fork (its terms read from the runs) ranks as re-indexing the original.
    for (const e of [original, loaded]) e.addPhrasings('b__send_email', ['mail my landlord']);
    expect(await rankings(loaded, ['send an email', 'mail my landlord'])).toEqual(
      await rankings(original, ['send an email', 'mail my landlord']),
    );
  });

  it('rejects a forged file whose checksums hold but whose structure does not', async () => {
    const bytes = engine().toBytes();
    const ints = (change: (a: Int32Array) => void) => (data: Uint8Array) =>
      change(new Int32Array(data.buffer, data.byteOffset, data.length / 4));
    const cases: [string, Parameters<typeof forge>[1], RegExp][] = [
      ['posting id', { section: 'postings.ids', change: ints((a) => (a[0] = 10_000)) }, /postings of term 0/],
      [
        'posting order',
        { section: 'postings.starts', change: ints((a) => (a[1] = 0)) },
        /empty or out of order/,
      ],
      [
        'field length',
        { section: 'tokens.lengths', change: ints((a) => (a[0] = -1)) },
        /tokens.lengths\[0\]/,
      ],
      ['ngram id', { section: 'retriever.ngram.ids', change: ints((a) => (a[0] = -3)) }, /ngram: id -3/],
      [
        'tfidf sum',
        {
          section: 'retriever.tfidf.natural.s1',
          change: (d) => new Float64Array(d.buffer, d.byteOffset, 1).set([Number.NaN]),
        },
        /tfidf: a natural sum is not finite/,
      ],
      ['tool offsets', { section: 'tools.starts', change: ints((a) => (a[1] = 1 << 30)) }, /tools.starts/],
      ['section range', { header: (h) => (h.sections.tokens!.bytes = 1 << 30) }, /"tokens" ends at/],
    ];
    for (const [, edit, message] of cases) {
      const error = caught(() => ToolSearch.load(forge(bytes, edit), { embedding: false }));
      expect(error.code).toBe('INVALID_INDEX');
      expect(error.message).toMatch(message);
    }
    // What a first search does not read is checked when first read: a tool re-indexed (its
    // terms), every exact key (a change, a save) or one (its lookup).
    const name = TOOLS[0]!.name;
    const later: [Parameters<typeof forge>[1], (e: ToolSearch) => unknown, RegExp][] = [
      [
        { section: 'tokens', change: ints((a) => a.fill(-1)) },
        (e) => e.addPhrasings(name, ['x']),
        /tokens\[0\] names no term/,
      ],
      [
        { section: 'tokens.lengths', change: ints((a) => (a[0] = 1 << 20)) },
        (e) => e.addPhrasings(name, ['x']),
        /tokens.at\[0\] \/ tokens.lengths\[0\] run outside/,
      ],
      [
        { section: 'retriever.exact.ids', change: ints((a) => a.fill(99)) },
        (e) => e.toBytes(),
        /exact: id 99/,
      ],
      [
        { section: 'retriever.exact.ids', change: ints((a) => a.fill(99)) },
        (e) => e.search(name),
        /exact: id 99/,
      ],
    ];
    for (const [edit, read, message] of later) {
      const loaded = ToolSearch.load(forge(bytes, edit), { embedding: false });
      const error = await Promise.resolve()
        .then(() => read(loaded))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toMatchObject({ code: 'INVALID_INDEX', message: expect.stringMatching(message) });
    }
    const twins = new ToolSearch({
      tools: [
        { name: 'aa_x', description: 'one' },
        { name: 'aa_y', description: 'two' },
      ],
      embedding: false,
    }).toBytes();
    const sameName = forge(twins, {
      section: 'names',
      change: (data) => data.set(Buffer.from('["aa_x","aa_x"]'), 0),
    });
    expect(caught(() => ToolSearch.load(sameName)).message).toMatch(/names\[1\] "aa_x" appears twice/);
  });

  it('validates a tool when it is first read, as add() would', () => {
    // tools[0] renamed inside its JSON, with its checksum fixed: the file is consistent, the tool is not.
    const renamed = forge(engine().toBytes(), {
      section: 'tools.data',
      change: (data) => {
        const at = Buffer.from(data).indexOf('browser__take_screenshot');
        data.set(Buffer.from('browser__take_screenshoX'), at);
      },
    });
    const loaded = ToolSearch.load(renamed, { embedding: false });
    expect(loaded.has(TOOLS[0]!.name)).toBe(true);
    const error = caught(() => loaded.get(TOOLS[0]!.name));
    expect(error.code).toBe('INVALID_INDEX');
    expect(error.message).toMatch(/tools\[0\] is named "browser__take_screenshoX"/);
  });

  it('tells a saved index from JSON', () => {
    expect(caught(() => ToolSearch.load(new Uint8Array([1, 2, 3]))).message).toMatch(
      /without the "TSINDEX" signature/,
    );
    const json = JSON.stringify(engine().toJSON());
    expect(ToolSearch.load(json, { embedding: false }).size).toBe(TOOLS.length);
  });
});

describe('load from a file, in parts (SavedFile)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolsearch-saved-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const fileOf = (bytes: Uint8Array) => {
    const path = join(dir, `index-${n++}.tsindex`);
    writeFileSync(path, bytes);
    return SavedFile.open(path);
  };

  it("takes TF-IDF's norm sums only from a file on its own grid", async () => {
    // The sums hold each term's c(t) on the grid (DEFAULTS.tfidf.normGridBits): a file saved on
    // another grid, or from before the grid (no bits), has its norms made again from the postings.
    const tfidf = DEFAULTS.tfidf as { normGridBits: number };
    const bits = tfidf.normGridBits;
    let coarse: Uint8Array;
    try {
      tfidf.normGridBits = 2;
      coarse = new ToolSearch({ tools: registry.tools, embedding: false }).toBytes();
    } finally {
      tfidf.normGridBits = bits;
    }
    const fresh = new ToolSearch({ tools: registry.tools, embedding: false });
    const tfidfOnly = async (search: ToolSearch) => {
      const out = [];
      for (const query of QUERIES)
        out.push(
          (await search.search(query, { strategies: ['tfidf'], limit: 20, explain: true })).explain!
            .perStrategy,
        );
      return out;
    };
    const load = (bytes: Uint8Array) => ToolSearch.load(bytes, { embedding: false });
    const retag = (meta: unknown) =>
      forge(coarse, {
        header: (header) => {
          (header as unknown as { retrievers: Record<string, { meta?: unknown }> }).retrievers.tfidf!.meta =
            meta;
        },
      });
    expect(await tfidfOnly(load(coarse))).toEqual(await tfidfOnly(fresh));
    expect(await tfidfOnly(load(retag(undefined)))).toEqual(await tfidfOnly(fresh));
    // The check is what keeps them out: the same sums, labelled with this grid, are taken, and differ.
    expect(await tfidfOnly(load(retag({ normGridBits: bits })))).not.toEqual(await tfidfOnly(fresh));
    expect(await tfidfOnly(load(fresh.toBytes()))).toEqual(await tfidfOnly(fresh));
  });

  it('ranks exactly as the bytes in memory do, and saves again byte for byte', async () => {
    const original = engine({ synonyms: { meteo: ['weather'] } });
    original.learn({ query: 'what will the sky do tomorrow', tool: 'weather__forecast', count: 3 });
    original.addPhrasings('mail__send_email', ['drop my boss a line']);
    const bytes = original.toBytes();
    const fromFile = ToolSearch.load(fileOf(bytes), { embedding: false });
    expect(await rankings(fromFile)).toEqual(await rankings(ToolSearch.load(bytes, { embedding: false })));
    expect(fromFile.toBytes()).toEqual(bytes);
  });

  it('refuses a damaged tool when it is first read, naming it, and the rest of a damaged or cut file at load', async () => {
    const bytes = engine().toBytes();
    const { header, base } = sections(bytes);
    const tools = header.sections['tools.data']!;
    const broken = bytes.slice();
    broken[base + tools.offset + 3]! ^= 0x20; // inside tools[0]
    const loaded = ToolSearch.load(fileOf(broken), { embedding: false });
    expect(loaded.get(TOOLS[1]!.name)).toEqual(engine().get(TOOLS[1]!.name));
    const error = caught(() => loaded.get(TOOLS[0]!.name));
    expect(error.code).toBe('INVALID_INDEX');
    expect(error.message).toContain('tools[0] checksum mismatch');
    // A search that would show it is refused too, never answered without it.
    await expect(loaded.search('take a screenshot of the page')).rejects.toMatchObject({
      code: 'INVALID_INDEX',
    });

    for (const name of [
      'names',
      'postings.ids',
      'tokens',
      'tools.starts',
      'tools.crcs',
      'retriever.exact.keys',
    ]) {
      const file = fileOf(damaged(bytes, name));
      expect(caught(() => ToolSearch.load(file, { embedding: false })).message).toContain(
        `"${name}" checksum mismatch`,
      );
      // Closed by the failed load.
      expect(() => file.read(0, 1)).toThrow(/closed/);
    }
    const cut = fileOf(bytes.subarray(0, base + tools.offset + tools.bytes - 1));
    expect(caught(() => ToolSearch.load(cut, { embedding: false })).message).toMatch(/truncated/);
  });
});
