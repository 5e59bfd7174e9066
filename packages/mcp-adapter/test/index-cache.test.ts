/**
 * The gateway's index cache (src/gateway/index-cache.ts): a start over the same upstream tool
 * lists loads the index kept by the last one, and ranks exactly as indexing would, learned uses
 * and the phrasing pack included; a changed tool list, a damaged file, and the switches that
 * turn it off all mean indexing again.
 */

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { DEFAULT_RETRIEVERS } from '@toolsearch/core-search/internals';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../src/gateway/config.js';
import { encodeLastEntry, LastEntry } from '../src/gateway/last-entry.js';
import { Catalog, Gateway, type GatewayOptions } from '../src/index.js';
import { FileUsageStore } from '../src/learn/file-store.js';
import { STALE_NOTE } from '../src/meta-tools.js';
import { filesystemServer, fixtureServer, memoryServer, waitFor } from './fixtures/servers.js';
import { connectSession } from './gateway-helpers.js';

let dir: string;
let learnFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolsearch-gw-index-cache-'));
  learnFile = join(dir, 'learned.json');
  // Uses counted several times: learned twice over (the saved index holding them and the store
  // applying them again) would move the scores, not only the order.
  const store = new FileUsageStore({ file: learnFile, log: () => {} });
  await store.record({
    uses: [
      { query: 'list my colleagues', tool: 'memory__read_graph', count: 3 },
      { query: 'list my colleagues', tool: 'memory__search_nodes' },
      { query: 'make a new directory', tool: 'filesystem__create_directory', count: 2 },
    ],
    together: [],
  });
  await store.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const QUERIES = [
  'list my colleagues',
  'make a new directory',
  'remember that my sister lives in Porto',
  'whats inside the notes.txt on my desktop',
  'echo some text back',
  'list files',
  'delete an observation',
];

/** The fixture alone (quick to start), or with the two reference servers the phrasing pack knows. */
function upstreams(extraTools = 2, withReference = false): UpstreamConfig[] {
  return [
    ...(withReference ? [memoryServer(join(dir, 'memory.jsonl')), filesystemServer(dir)] : []),
    fixtureServer('fixture', ['--tools', String(extraTools)]),
  ];
}

async function withGateway<T>(
  options: Partial<GatewayOptions> & { upstreams?: UpstreamConfig[] },
  run: (gateway: Gateway, lines: string[]) => Promise<T>,
): Promise<T> {
  const lines: string[] = [];
  const gateway = await Gateway.start({
    config: {
      upstreams: options.upstreams ?? upstreams(),
      alwaysLoaded: [],
      maxBoundTools: 40,
      callTimeoutMs: 20_000,
    },
    engine: { embedding: false },
    learn: { store: learnFile, refreshMs: 0 },
    enrich: false,
    env: {},
    log: (line) => lines.push(line),
    ...options,
  });
  try {
    return await run(gateway, lines);
  } finally {
    await gateway.close();
  }
}

/** Every query's ranking, scores and the strategies behind each hit included. */
async function rankings(gateway: Gateway): Promise<string> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const response = await gateway.catalog.search(query, { limit: 10 });
    out.push(response.results.map((r) => [r.name, r.score, r.matchedBy]));
  }
  return JSON.stringify(out);
}

const loaded = (lines: string[]) => lines.some((l) => l.includes('loaded the index of'));
const unusable = (lines: string[]) => lines.filter((l) => l.includes('not usable')).length;

/** A copy of a saved index with one byte changed inside tool `name`'s JSON (its header names the sections). */
function damageTool(index: Uint8Array, name: string): Buffer {
  const copy = Buffer.from(index);
  const length = copy.readUInt32LE(8);
  const header = JSON.parse(copy.subarray(16, 16 + length).toString('utf8')) as {
    sections: Record<string, { offset: number; bytes: number }>;
  };
  const base = Math.ceil((16 + length) / 8) * 8;
  const section = (id: string) => {
    const { offset, bytes } = header.sections[id]!;
    return copy.subarray(base + offset, base + offset + bytes);
  };
  const i = (JSON.parse(section('names').toString('utf8')) as string[]).indexOf(name);
  const start = section('tools.starts').readInt32LE(4 * i);
  section('tools.data')[start + 3]! ^= 0x20;
  return copy;
}

/** The first query's top tool in rankings() output. */
const topOf = (rankings: string) => (JSON.parse(rankings) as [string][][])[0]![0]![0];
const damagedTool = (lines: string[]) =>
  lines.filter((l) => l.includes('not usable') && /tools\[\d+\] checksum mismatch/.test(l)).length;
const entries = (cacheDir: string) => readdirSync(cacheDir).filter((name) => name.endsWith('.tsindex'));

describe('gateway index cache', () => {
  it('loads the index on a start over the same tool lists, ranking exactly as indexing, learned uses and pack included', async () => {
    const cacheDir = join(dir, 'same');
    const all = upstreams(2, true);
    const reference = await withGateway({ indexCache: false, upstreams: all }, async (gateway, lines) => {
      expect(loaded(lines)).toBe(false);
      // The learned uses and the pack are in force (else this test would compare little).
      const top = await gateway.catalog.search('list my colleagues', { limit: 1 });
      expect(top.results[0]?.name).toBe('memory__read_graph');
      return rankings(gateway);
    });
    const built = await withGateway(
      { indexCache: { dir: cacheDir }, upstreams: all },
      async (gateway, lines) => {
        expect(loaded(lines)).toBe(false);
        return rankings(gateway);
      },
    );
    expect(entries(cacheDir)).toHaveLength(1);
    const fromCache = await withGateway(
      { indexCache: { dir: cacheDir }, upstreams: all },
      async (gateway, lines) => {
        expect(loaded(lines)).toBe(true);
        expect(gateway.catalog.size).toBe(9 + 14 + 8 + 2);
        expect(gateway.catalog.toolsOf('fixture')).toContain('fixture__tool_2');
        // The catalog serves the upstream definitions, and calls still route.
        expect(gateway.catalog.get('fixture__echo')?.definition.inputSchema).toMatchObject({
          type: 'object',
        });
        const echo = await gateway.upstreams.call('fixture__echo', { text: 'hi' });
        expect(JSON.stringify(echo)).toContain('hi');
        return rankings(gateway);
      },
    );
    expect(built).toBe(reference);
    expect(fromCache).toBe(reference);
  });

  it('indexes again when an upstream lists other tools, and keeps both entries', async () => {
    const cacheDir = join(dir, 'changed');
    await withGateway({ indexCache: { dir: cacheDir }, upstreams: upstreams(2) }, async () => {});
    const changed = await withGateway(
      { indexCache: { dir: cacheDir }, upstreams: upstreams(3) },
      async (gateway, lines) => {
        expect(loaded(lines)).toBe(false);
        expect(gateway.catalog.has('fixture__tool_3')).toBe(true);
        return rankings(gateway);
      },
    );
    expect(entries(cacheDir)).toHaveLength(2);
    await withGateway({ indexCache: { dir: cacheDir }, upstreams: upstreams(3) }, async (gateway, lines) => {
      expect(loaded(lines)).toBe(true);
      expect(gateway.catalog.has('fixture__tool_3')).toBe(true);
      expect(await rankings(gateway)).toBe(changed);
    });
    // Other engine settings are another entry too.
    await withGateway(
      { indexCache: { dir: cacheDir }, upstreams: upstreams(3), engine: { embedding: false, rrfK: 30 } },
      async (_gateway, lines) => expect(loaded(lines)).toBe(false),
    );
  });

  it('rebuilds a damaged or unreadable entry, never serving it', async () => {
    const cacheDir = join(dir, 'damaged');
    const reference = await withGateway({ indexCache: { dir: cacheDir } }, async (gateway) =>
      rankings(gateway),
    );
    const [entry] = entries(cacheDir);
    const file = join(cacheDir, entry!);
    const good = readFileSync(file);

    // One byte changed in a tool's JSON, which a start does not read: the index serves until a
    // search returns that tool, whose record's checksum refuses it; that search waits for the
    // index built from the upstream's list and answers from it.
    writeFileSync(file, damageTool(good, topOf(reference)));
    await withGateway({ indexCache: { dir: cacheDir } }, async (gateway, lines) => {
      expect(loaded(lines)).toBe(true);
      expect(await rankings(gateway)).toBe(reference);
      expect(damagedTool(lines)).toBe(1);
    });
    // Rewritten: the next start loads it.
    expect(readFileSync(file).equals(good)).toBe(true);

    // Cut short (the tools' texts are read later, but every section must lie in the file).
    writeFileSync(file, good.subarray(0, good.length - 9));
    await withGateway({ indexCache: { dir: cacheDir } }, async (gateway, lines) => {
      expect(loaded(lines)).toBe(false);
      expect(lines.some((l) => l.includes('not usable') && l.includes('truncated'))).toBe(true);
      expect(await rankings(gateway)).toBe(reference);
    });
    expect(readFileSync(file).equals(good)).toBe(true);

    // Bytes that are no index: core-search refuses them (INVALID_INDEX).
    writeFileSync(file, 'not an index at all');
    await withGateway({ indexCache: { dir: cacheDir } }, async (gateway, lines) => {
      expect(loaded(lines)).toBe(false);
      expect(lines.some((l) => l.includes('not usable') && l.includes('invalid index'))).toBe(true);
      expect(await rankings(gateway)).toBe(reference);
    });

    // An empty file (a truncated write by something else than us).
    writeFileSync(file, '');
    await withGateway({ indexCache: { dir: cacheDir } }, async (gateway, lines) => {
      expect(loaded(lines)).toBe(false);
      expect(await rankings(gateway)).toBe(reference);
    });
    await withGateway({ indexCache: { dir: cacheDir } }, async (_gateway, lines) =>
      expect(loaded(lines)).toBe(true),
    );
  });

  it('is off with indexCache: false, TOOLSEARCH_NO_INDEX_CACHE, or engine options no key can tell apart', async () => {
    const cacheDir = join(dir, 'off');
    await withGateway({ indexCache: false, env: { XDG_CACHE_HOME: cacheDir } }, async (_gateway, lines) =>
      expect(loaded(lines)).toBe(false),
    );
    expect(readdirSync(dir)).not.toContain('off');
    await withGateway(
      { indexCache: { dir: cacheDir }, env: { TOOLSEARCH_NO_INDEX_CACHE: '1' } },
      async () => {},
    );
    expect(readdirSync(dir)).not.toContain('off');
    await withGateway(
      { indexCache: { dir: cacheDir }, engine: { embedding: false, retrievers: DEFAULT_RETRIEVERS } },
      async (_gateway, lines) =>
        expect(lines.some((l) => l.includes('index cache off') && l.includes('"retrievers"'))).toBe(true),
    );
    expect(readdirSync(dir)).not.toContain('off');
    // With the cache on, an entry exists and TOOLSEARCH_NO_INDEX_CACHE=1 does not read it.
    await withGateway({ indexCache: { dir: cacheDir } }, async () => {});
    expect(entries(cacheDir)).toHaveLength(1);
    await withGateway(
      { indexCache: { dir: cacheDir }, env: { TOOLSEARCH_NO_INDEX_CACHE: 'true' } },
      async (_gateway, lines) => expect(loaded(lines)).toBe(false),
    );
  });

  it('defaults to the indexes folder of the user cache directory', async () => {
    const xdg = join(dir, 'xdg');
    await withGateway({ indexCache: undefined, env: { XDG_CACHE_HOME: xdg } }, async () => {});
    expect(entries(join(xdg, 'toolsearch', 'indexes'))).toHaveLength(1);
  });
});

describe('gateway start from the last index, before the upstreams have listed', () => {
  /**
   * One fixture upstream that answers tools/list only once `file` exists, with the number it
   * holds as its count of extra tools: a start over the same configuration can be caught
   * before its upstream has listed, with no timing involved, and its tool list changed.
   */
  const slowLister = (name: string) => {
    const file = join(dir, `${name}-tools`);
    return { file, upstreams: [fixtureServer('fixture', ['--tools-file', file])] };
  };
  const connecting = (gateway: Gateway) => gateway.upstreams.status()[0]?.state === 'connecting';

  it('serves search_tools from the last index while the upstream lists, and keeps that index when the list is unchanged', async () => {
    const cacheDir = join(dir, 'warm-same');
    const { file, upstreams } = slowLister('warm-same');
    writeFileSync(file, '2');
    const reference = await withGateway(
      { indexCache: { dir: cacheDir }, upstreams },
      async (gateway, lines) => {
        expect(loaded(lines)).toBe(false);
        expect(gateway.indexPossiblyStale).toBe(false);
        return rankings(gateway);
      },
    );
    rmSync(file);
    await withGateway({ indexCache: { dir: cacheDir }, upstreams }, async (gateway, lines) => {
      // Started, though the upstream cannot have listed: its listing waits for the file.
      expect(connecting(gateway)).toBe(true);
      expect(loaded(lines)).toBe(true);
      expect(gateway.indexPossiblyStale).toBe(true);
      const client = await connectSession(gateway);
      const stale = await client.text('search_tools', { query: 'echo some text back' });
      expect(stale).toContain('fixture__echo');
      expect(stale).toContain(STALE_NOTE);
      expect(await rankings(gateway)).toBe(reference);

      const indexed: string[][] = [];
      gateway.catalog.onIndexed((names) => indexed.push([...names]));
      writeFileSync(file, '2');
      await gateway.upstreamsListed();
      expect(connecting(gateway)).toBe(false);
      expect(gateway.indexPossiblyStale).toBe(false);
      expect(indexed).toEqual([]); // the same lists: nothing indexed again
      expect(lines.some((l) => l.includes('keeping it'))).toBe(true);
      const fresh = await client.text('search_tools', { query: 'echo some text back' });
      expect(fresh).toContain('fixture__echo');
      expect(fresh).not.toContain(STALE_NOTE);
      expect(await rankings(gateway)).toBe(reference);
      expect(client.listChanged()).toBe(0);
      await client.close();
    });
    expect(entries(cacheDir)).toHaveLength(1);
  });

  it('swaps to a fresh index when the list changed: sessions and 2026-07-28 listeners told, a gone tool a typed error', async () => {
    const cacheDir = join(dir, 'warm-changed');
    const { file, upstreams } = slowLister('warm-changed');
    const config = { upstreams, alwaysLoaded: ['fixture'], maxBoundTools: 40, callTimeoutMs: 20_000 };
    writeFileSync(file, '2');
    await withGateway({ indexCache: { dir: cacheDir }, config }, async () => {});
    rmSync(file);
    await withGateway({ indexCache: { dir: cacheDir }, config }, async (gateway, lines) => {
      expect(connecting(gateway)).toBe(true);
      expect(gateway.catalog.has('fixture__tool_2')).toBe(true);
      let told = 0;
      gateway.onToolListChanged(() => told++);
      const client = await connectSession(gateway);
      await client.text('load_toolset', { tools: ['fixture__tool_2'] });
      const before = client.listChanged();
      // Called while the upstream is still listing: it waits for the connection, then finds
      // the tool gone.
      const call = client.call('fixture__tool_2');
      writeFileSync(file, '1');
      const result = await call;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('UNKNOWN_TOOL');
      await gateway.upstreamsListed();
      expect(gateway.indexPossiblyStale).toBe(false);
      expect(gateway.catalog.has('fixture__tool_2')).toBe(false);
      expect(gateway.catalog.has('fixture__tool_1')).toBe(true);
      expect(lines.some((l) => l.includes('changed since the loaded index'))).toBe(true);
      expect(told).toBe(1); // the always-loaded toolset lost a tool
      await waitFor(() => client.listChanged() > before, 5000, 'list_changed after the swap');
      expect(await client.names()).not.toContain('fixture__tool_2');
      await client.close();
      return rankings(gateway);
    }).then(async (swapped) => {
      writeFileSync(file, '1');
      const built = await withGateway({ indexCache: false, config: { ...config } }, (g) => rankings(g));
      expect(swapped).toBe(built);
      // The swapped index was stored: the next start serves it before listing.
      rmSync(file);
      await withGateway({ indexCache: { dir: cacheDir }, config }, async (gateway, lines) => {
        expect(connecting(gateway)).toBe(true);
        expect(loaded(lines)).toBe(true);
        expect(gateway.catalog.has('fixture__tool_2')).toBe(false);
        expect(await rankings(gateway)).toBe(built);
        writeFileSync(file, '1');
        await gateway.upstreamsListed();
        expect(lines.some((l) => l.includes('keeping it'))).toBe(true);
      });
    });
  });

  it('ignores a damaged, truncated or empty last entry: waits for the listing, loads the index by its key, writes the entry again', async () => {
    const cacheDir = join(dir, 'warm-damaged-last');
    const { file, upstreams } = slowLister('warm-damaged-last');
    writeFileSync(file, '2');
    const reference = await withGateway({ indexCache: { dir: cacheDir }, upstreams }, (g) => rankings(g));
    const [entry] = entries(join(cacheDir, 'last'));
    const lastFile = join(cacheDir, 'last', entry!);
    const good = readFileSync(lastFile);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 5]! ^= 0x01; // inside the last tool's definition
    for (const damaged of [flipped, good.subarray(0, good.length - 7), Buffer.alloc(0)]) {
      writeFileSync(lastFile, damaged);
      await withGateway({ indexCache: { dir: cacheDir }, upstreams }, async (gateway, lines) => {
        expect(connecting(gateway)).toBe(false); // started after the listing
        expect(gateway.indexPossiblyStale).toBe(false);
        expect(loaded(lines)).toBe(true); // the index itself, found by the listing's key
        expect(await rankings(gateway)).toBe(reference);
      });
      expect(readFileSync(lastFile).equals(good)).toBe(true);
    }
  });

  it('indexes again when the index the last entry names is damaged, loading it once', async () => {
    const cacheDir = join(dir, 'warm-damaged-index');
    const { file, upstreams } = slowLister('warm-damaged-index');
    writeFileSync(file, '2');
    const reference = await withGateway({ indexCache: { dir: cacheDir }, upstreams }, (g) => rankings(g));
    const indexFile = join(cacheDir, entries(cacheDir)[0]!);
    const good = readFileSync(indexFile);
    // Damaged where a start does not read: the header (checked at load) refuses it at start.
    const badHeader = Buffer.from(good);
    badHeader[20]! ^= 0x01;
    writeFileSync(indexFile, badHeader);
    await withGateway({ indexCache: { dir: cacheDir }, upstreams }, async (gateway, lines) => {
      expect(loaded(lines)).toBe(false);
      expect(unusable(lines)).toBe(1); // not tried again once the upstream listed the same tools
      expect(gateway.indexPossiblyStale).toBe(false);
      expect(await rankings(gateway)).toBe(reference);
    });
    expect(readFileSync(indexFile).equals(good)).toBe(true);

    // A damaged tool's JSON, read when a search first returns it, before the upstream lists:
    // that search waits for the listing and answers from the index built from it, never from
    // the damaged one.
    writeFileSync(indexFile, damageTool(good, topOf(reference)));
    rmSync(file);
    await withGateway({ indexCache: { dir: cacheDir }, upstreams }, async (gateway, lines) => {
      expect(loaded(lines)).toBe(true);
      expect(gateway.indexPossiblyStale).toBe(true);
      const answer = rankings(gateway);
      await waitFor(() => damagedTool(lines) === 1, 10_000, 'the damaged tool refused');
      expect(gateway.indexPossiblyStale).toBe(true);
      writeFileSync(file, '2');
      expect(await answer).toBe(reference);
      expect(unusable(lines)).toBe(1);
      expect(gateway.indexPossiblyStale).toBe(false);
    });
    expect(readFileSync(indexFile).equals(good)).toBe(true);
  });

  it('waits for the listing when the cache is off', async () => {
    const cacheDir = join(dir, 'warm-off');
    const { file, upstreams } = slowLister('warm-off');
    writeFileSync(file, '2');
    await withGateway({ indexCache: { dir: cacheDir }, upstreams }, async () => {});
    for (const off of [{ indexCache: false as const }, { env: { TOOLSEARCH_NO_INDEX_CACHE: '1' } }]) {
      await withGateway({ indexCache: { dir: cacheDir }, upstreams, ...off }, async (gateway, lines) => {
        expect(loaded(lines)).toBe(false);
        expect(connecting(gateway)).toBe(false);
        expect(gateway.indexPossiblyStale).toBe(false);
        expect(gateway.catalog.has('fixture__tool_2')).toBe(true);
      });
    }
  });
});

describe('Catalog.restore', () => {
  const tool = (name: string, description: string) => ({
    name,
    description,
    inputSchema: { type: 'object' as const, properties: { text: { type: 'string' } } },
  });
  const toolsets = new Map([
    [
      'mail',
      [tool('mail__send_email', 'Send an email to a recipient'), tool('mail__list_inbox', 'List emails')],
    ],
    ['files', [tool('files__read_file', 'Read a file from disk'), tool('files__write_file', 'Write a file')]],
  ]);
  const built = () => {
    const catalog = new Catalog({ engine: { embedding: false }, log: () => {} });
    for (const [name, tools] of toolsets) catalog.setToolset(name, tools);
    return catalog;
  };
  const ranking = async (catalog: Catalog, query: string) =>
    (await catalog.search(query, { limit: 4 })).results.map((r) => [r.name, r.score]);

  it('holds exactly the saved toolsets, ranks as the catalog that built them, and re-applies added phrasings', async () => {
    const source = built();
    const bytes = source.toBytes();
    const target = new Catalog({ engine: { embedding: false }, log: () => {} });
    target.setToolset('other', [tool('other__ping', 'Ping a host')]);
    target.addPhrasings('other__ping', ['is the host up']);
    const told: string[][] = [];
    target.onIndexed((names) => told.push([...names]));
    target.restore(bytes, toolsets);
    expect(target.has('other__ping')).toBe(false);
    expect(target.toolsOf('mail')).toEqual(['mail__send_email', 'mail__list_inbox']);
    expect(told).toEqual([['mail__send_email', 'mail__list_inbox', 'files__read_file', 'files__write_file']]);
    for (const query of ['send an email', 'read a file', 'write'])
      expect(await ranking(target, query)).toEqual(await ranking(source, query));

    // Added phrasings kept by the catalog reach the restored engine, as after setToolset.
    const withPhrasing = built();
    withPhrasing.addPhrasings('files__read_file', ['open my notes']);
    withPhrasing.restore(bytes, toolsets);
    expect((await withPhrasing.search('open my notes', { limit: 1 })).results[0]?.name).toBe(
      'files__read_file',
    );
  });

  it('makes no engine of its own before a restore, and checks its options when it first needs one', async () => {
    // An embedder that counts its loads: each engine made with it loads it once.
    let loads = 0;
    const embedder = {
      id: 'counting',
      dims: 2,
      load: async () => {
        loads++;
      },
      embed: async (texts: readonly string[]) => texts.map(() => Float32Array.of(1, 0)),
    };
    const bytes = built().toBytes();
    const saved = LastEntry.read(encodeLastEntry('k', toolsets, () => true))!;
    for (const restore of [
      (catalog: Catalog) => catalog.restore(bytes, toolsets),
      (catalog: Catalog) => catalog.restoreSaved(bytes, saved),
    ]) {
      loads = 0;
      const catalog = new Catalog({ engine: { embedding: { embedder } }, log: () => {} });
      restore(catalog);
      await catalog.ready();
      expect(loads).toBe(1); // the restored engine's, no other
      expect(catalog.size).toBe(4);
    }
    const bad = new Catalog({ engine: { rrfK: -1 }, log: () => {} });
    expect(() => bad.prepare()).toThrow(/rrfK/);
  });

  it('refuses an index that does not hold the listed toolsets, leaving the catalog as it was', async () => {
    const bytes = built().toBytes();
    const target = built();
    const before = await ranking(target, 'send an email');
    const other = new Map([...toolsets, ['extra', [tool('extra__x', 'Something else')]]]);
    expect(() => target.restore(bytes, other)).toThrow(expect.objectContaining({ code: 'INVALID_INDEX' }));
    const fewer = new Map([['mail', toolsets.get('mail')!]]);
    expect(() => target.restore(bytes, fewer)).toThrow(expect.objectContaining({ code: 'INVALID_INDEX' }));
    expect(() => target.restore(bytes.subarray(0, 100), toolsets)).toThrow(
      expect.objectContaining({ code: 'INVALID_INDEX' }),
    );
    expect(target.size).toBe(4);
    expect(await ranking(target, 'send an email')).toEqual(before);
  });

  it('restoreSaved: takes the tools from the index, reads a definition when asked, refuses lists that do not match it', async () => {
    const source = built();
    const bytes = source.toBytes();
    const saved = LastEntry.read(encodeLastEntry('k', toolsets, (name) => source.has(name)))!;
    const target = new Catalog({ engine: { embedding: false }, log: () => {} });
    target.restoreSaved(bytes, saved);
    expect(target.toolsOf('mail')).toEqual(['mail__send_email', 'mail__list_inbox']);
    expect(target.toolsOf('files')).toEqual(['files__read_file', 'files__write_file']);
    expect(target.get('files__write_file')?.definition).toEqual(toolsets.get('files')![1]);
    for (const query of ['send an email', 'read a file', 'write'])
      expect(await ranking(target, query)).toEqual(await ranking(source, query));
    // Once the upstreams listed the same tools, the catalog holds their definitions themselves.
    target.keepDefinitions(toolsets);
    expect(target.get('mail__list_inbox')?.definition).toBe(toolsets.get('mail')![1]);

    const fewer = LastEntry.read(
      encodeLastEntry('k', new Map([['mail', toolsets.get('mail')!]]), () => true),
    )!;
    // With an outputSchema a definition is stored, not read from the index.
    const withOutput = (name: string) => ({ ...tool(name, 'x'), outputSchema: { type: 'object' as const } });
    const renamed = new Map([
      ...toolsets,
      ['files', [withOutput('files__read_file'), withOutput('files__other')]],
    ]);
    const otherNames = new Map([
      ['post', toolsets.get('mail')!],
      ['files', toolsets.get('files')!],
    ]);
    const kept = built();
    const before = await ranking(kept, 'send an email');
    for (const wrong of [fewer, LastEntry.read(encodeLastEntry('k', otherNames, () => true))!])
      expect(() => kept.restoreSaved(bytes, wrong)).toThrow(
        expect.objectContaining({ code: 'INVALID_INDEX' }),
      );
    expect(kept.size).toBe(4);
    expect(await ranking(kept, 'send an email')).toEqual(before);
    // Lists of other tools in the same counts: a stored definition of a tool the index does not
    // hold in that toolset is refused at load, never served.
    const moved = new Map([
      ['mail', [withOutput('files__read_file'), toolsets.get('mail')![1]!]],
      ['files', toolsets.get('files')!],
    ]);
    for (const [lists, named] of [
      [renamed, 'files__other'],
      [moved, 'files__read_file'],
    ] as const) {
      const other = new Catalog({ engine: { embedding: false }, log: () => {} });
      expect(() =>
        other.restoreSaved(bytes, LastEntry.read(encodeLastEntry('k', lists, () => true))!),
      ).toThrow(expect.objectContaining({ code: 'INVALID_INDEX', message: expect.stringContaining(named) }));
      expect(other.size).toBe(0);
    }
  });

  it('restoreSaved: a restored catalog changes as a built one (a toolset re-listed, toolsets asked for)', async () => {
    const source = built();
    const saved = LastEntry.read(encodeLastEntry('k', toolsets, () => true))!;
    const target = new Catalog({ engine: { embedding: false }, log: () => {} });
    target.restoreSaved(source.toBytes(), saved);
    expect(target.hasToolset('files')).toBe(true);
    expect(target.hasToolset('nope')).toBe(false);
    const relisted = [tool('mail__archive', 'Archive an email')];
    target.setToolset('mail', relisted);
    source.setToolset('mail', relisted);
    expect(target.size).toBe(3);
    expect(target.has('mail__send_email')).toBe(false);
    expect(target.toolsOf('files')).toEqual(['files__read_file', 'files__write_file']);
    expect(target.get('files__read_file')?.definition).toEqual(toolsets.get('files')![0]);
    for (const query of ['archive an email', 'read a file', 'send an email'])
      expect(await ranking(target, query)).toEqual(await ranking(source, query));
  });

  it('restoreSaved serves each definition exactly as listed, whether stored or read from the index', () => {
    const shapes = [
      { name: 'kit__plain', description: 'Plain tool', inputSchema: { type: 'object' as const } },
      {
        name: 'kit__titled',
        title: 'Titled',
        description: 'Has a title',
        inputSchema: { type: 'object' as const },
      },
      { name: 'kit__noted', inputSchema: { type: 'object' as const }, annotations: { readOnlyHint: true } },
      { description: 'Name second', name: 'kit__order', inputSchema: { type: 'object' as const } },
      {
        name: 'kit__output',
        inputSchema: { type: 'object' as const },
        outputSchema: { type: 'object' as const },
      },
      { name: 'kit__empty', description: '', inputSchema: { type: 'object' as const } },
      { name: 'kit__meta', inputSchema: { type: 'object' as const }, _meta: { 'x/y': 1 } },
    ];
    const lists = new Map([['kit', shapes]]);
    const source = new Catalog({ engine: { embedding: false }, log: () => {} });
    source.setToolset('kit', shapes);
    const entry = encodeLastEntry('k', lists, (name) => source.has(name));
    const target = new Catalog({ engine: { embedding: false }, log: () => {} });
    const saved = LastEntry.read(entry)!;
    target.restoreSaved(source.toBytes(), saved);
    for (const shape of shapes) {
      expect(JSON.stringify(target.get(shape.name)?.definition)).toBe(JSON.stringify(shape));
      // Only the ones the index does not hold as listed take room in the entry.
      expect(saved.definition(shape.name) === undefined).toBe(
        ['kit__plain', 'kit__titled', 'kit__noted'].includes(shape.name),
      );
    }
  });

  it('takes a listed tool the engine refused as refused, not as missing from the index', () => {
    const engine = { embedding: false as const, limits: { maxToolChars: 400 } };
    const lists = new Map([['mail', [...toolsets.get('mail')!, tool('mail__huge', 'x '.repeat(300))]]]);
    const lines: string[] = [];
    const source = new Catalog({ engine, log: (l) => lines.push(l) });
    source.setToolset('mail', lists.get('mail')!);
    expect(source.has('mail__huge')).toBe(false);
    const target = new Catalog({ engine, log: (l) => lines.push(l) });
    target.restore(source.toBytes(), lists);
    expect(target.toolsOf('mail')).toEqual(['mail__send_email', 'mail__list_inbox']);
    expect(lines.at(-1)).toContain('skipped 1 tool(s) of mail');
    // With a larger budget the same tool would be indexed: that index is not this one's.
    const roomier = new Catalog({ engine: { embedding: false }, log: () => {} });
    expect(() => roomier.restore(source.toBytes(), lists)).toThrow(
      expect.objectContaining({ code: 'INVALID_INDEX' }),
    );
  });
});

describe('LastEntry', () => {
  const lists = new Map([
    [
      'mail',
      [
        {
          name: 'mail__send_email',
          description: 'Send an email',
          inputSchema: { type: 'object' as const },
          outputSchema: { type: 'object' as const },
        },
        { name: 'mail__list_inbox', inputSchema: { type: 'object' as const, properties: {} } },
      ],
    ],
    ['files', [{ name: 'files__big', inputSchema: { type: 'object' as const } }]],
  ]);

  it('holds the index key, the names and counts per toolset, and each definition as listed', () => {
    const entry = LastEntry.read(encodeLastEntry('abc', lists, (name) => name !== 'files__big'))!;
    expect(entry.key).toBe('abc');
    expect(entry.toolsets).toEqual([
      { name: 'mail', listed: 2, indexed: 2, stored: ['mail__send_email'] },
      { name: 'files', listed: 1, indexed: 0, stored: [] },
    ]);
    expect(entry.definition('mail__send_email')).toEqual(lists.get('mail')![0]);
    expect(entry.definition('mail__list_inbox')).toBeUndefined(); // as the index holds it
    expect(entry.definition('files__big')).toBeUndefined(); // not indexed: no record
  });

  it('is none when damaged, truncated or of another layout; a forged definition is INVALID_INDEX naming the tool', () => {
    const bytes = Buffer.from(encodeLastEntry('abc', lists, () => true));
    for (let at = 0; at < bytes.length; at += 7) {
      const flipped = Buffer.from(bytes);
      flipped[at]! ^= 0x04;
      expect(LastEntry.read(flipped)).toBeUndefined();
    }
    for (const length of [0, 10, 16, bytes.length - 1])
      expect(LastEntry.read(bytes.subarray(0, length))).toBeUndefined();
    // The first record renamed, the checksum fixed: consistent bytes, a wrong definition.
    const forged = Buffer.from(bytes);
    forged.write('X', forged.lastIndexOf('mail__send_email') + 'mail__send_email'.length - 1);
    forged.writeUInt32LE(crc32(forged.subarray(16)), 12);
    const entry = LastEntry.read(forged)!;
    expect(() => entry.definition('mail__send_email')).toThrow(
      expect.objectContaining({
        code: 'INVALID_INDEX',
        message: expect.stringContaining('mail__send_email'),
      }),
    );
    expect(entry.definition('mail__list_inbox')).toBeUndefined();
  });
});
