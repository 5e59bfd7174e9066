// Untrusted input (issue 9): every query has a work budget, saved indexes and caches are
// checked before they are believed, and the engine owns what it indexes.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeQuery, boundQuery } from '../src/analysis/query.js';
import { stem } from '../src/analysis/stem.js';
import { DEFAULTS } from '../src/defaults.js';
import { EmbeddingDiskCache } from '../src/embedding/disk-cache.js';
import { DEFAULT_MODEL_PATH } from '../src/embedding/index.js';
import { createEmbeddingRetriever } from '../src/embedding/retriever.js';
import { WordSpeller } from '../src/embedding/speller.js';
import { embeddingInput, queryEmbeddingInput } from '../src/embedding/text.js';
import {
  type Embedder,
  type EmbedKind,
  type ToolDefinition,
  ToolSearch,
  ToolSearchError,
} from '../src/index.js';
import { engine, TOOLS } from './helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'toolsearch-hardening-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A tiny deterministic embedder: one dimension per letter, L2-normalised; records what it is asked. */
class LetterEmbedder implements Embedder {
  readonly id = 'letters-26';
  readonly dims = 26;
  readonly queries: string[] = [];
  documents = 0;
  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (kind === 'query') this.queries.push(...texts);
    else this.documents += texts.length;
    return texts.map((text) => {
      const vector = new Float32Array(26);
      for (const char of text.toLowerCase()) {
        const i = char.charCodeAt(0) - 97;
        if (i >= 0 && i < 26) vector[i]! += 1;
      }
      const norm = Math.hypot(...vector);
      return norm > 0 ? vector.map((v) => v / norm) : vector;
    });
  }
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolSearchError);
    return (error as ToolSearchError).code;
  }
  return undefined;
}

describe('a query has a work budget', () => {
  const max = DEFAULTS.analysis.maxQueryChars;

  it('bounds the query once, for every stage: analysis, embedding input and the query-vector cache', async () => {
    const embedder = new LetterEmbedder();
    const search = new ToolSearch({ tools: TOOLS, embedding: { embedder, cacheDir: false } });
    await search.ready();
    const long = `take a screenshot ${'q'.repeat(16_000)}`;
    const response = await search.search(long);
    expect(response.query).toBe(long.slice(0, max));
    expect(embedder.queries).toHaveLength(1);
    expect(embedder.queries[0]!.length).toBeLessThanOrEqual(max);
    expect(analyzeQuery(long).raw).toHaveLength(max);
  });

  it('drops leading spaces before counting, and never cuts a surrogate pair in half', () => {
    expect(boundQuery(`${' '.repeat(5000)}send email`)).toBe('send email');
    const cut = boundQuery(`${'a'.repeat(9)}😀`, 10);
    expect(cut).toBe('a'.repeat(9));
    expect(boundQuery('a'.repeat(20), 10)).toHaveLength(10);
  });

  it('is configurable per engine (limits.maxQueryChars)', async () => {
    const search = engine({ limits: { maxQueryChars: 20 } });
    const response = await search.search('weather forecast for the coming days in Paris');
    expect(response.query).toBe('weather forecast for');
    expect(code(() => engine({ limits: { maxQueryChars: 0 } }))).toBe('INVALID_OPTION');
    expect(code(() => engine({ limits: { maxQueryLength: 5 } as never }))).toBe('INVALID_OPTION');
  });

  // Each of these took seconds to hours through the old, backtracking patterns (quadratic
  // in the run length); the test's timeout is only a hang guard.
  it('rewrites web addresses and paths in time linear in the input', { timeout: 20_000 }, () => {
    const n = 100_000;
    for (const text of [
      'a.'.repeat(n / 2),
      'a-'.repeat(n / 2),
      'A'.repeat(n),
      `${'A'.repeat(n)}b`,
      'a'.repeat(n),
      '/a'.repeat(n / 2),
      'www.'.repeat(n / 4),
      'a.b/'.repeat(n / 4),
    ]) {
      const out = queryEmbeddingInput(text);
      expect(out.length).toBeGreaterThan(0);
    }
    expect(embeddingInput(`${'A'.repeat(n)}Bc`) === `${'A'.repeat(n)} Bc`).toBe(true);
    // The rewrite still means the same: a space before the last capital of a run.
    expect(embeddingInput('HTTPRequest parseJSONBody')).toBe('HTTP Request parse JSON Body');
  });

  it('words longer than any English word are not stemmed (Porter2 is quadratic in the length)', () => {
    const long = `${'a'.repeat(DEFAULTS.analysis.maxStemChars)}ing`;
    expect(stem(long)).toBe(long);
    expect(stem('screenshots')).toBe('screenshot');
  });

  it('the speller leaves long words alone (its candidates grow with the square of the length)', () => {
    const long = 'internationalizationprocedures'; // 30 letters
    const speller = new WordSpeller(new Map([[long, 0]]));
    const typo = `${long.slice(0, 10)}${long.slice(11)}`;
    expect(speller.correct(typo)).toBe(typo);
    expect(new WordSpeller(new Map([[long, 0]]), 40).correct(typo)).toBe(long);
    const huge = 'q'.repeat(200_000);
    expect(speller.correct(huge)).toBe(huge);
  });
});

describe('the engine owns what it indexes', () => {
  it('keeps its own copy: mutating a tool after add() changes nothing', async () => {
    const tool: ToolDefinition = { name: 'zebra_tool', description: 'stripes and zebras', tags: ['animal'] };
    const search = engine();
    search.add([tool]);
    (tool as { description: unknown }).description = 5;
    (tool.tags as unknown[])[0] = 1;
    expect(search.get('zebra_tool')).toEqual({
      name: 'zebra_tool',
      description: 'stripes and zebras',
      tags: ['animal'],
    });
    expect((await search.search('zebra stripes')).results[0]?.name).toBe('zebra_tool');
    expect(() => JSON.stringify(search.toJSON())).not.toThrow();
  });

  it('rejects a tool that cannot be serialised (a cycle) with INVALID_TOOL, adding nothing', () => {
    const schema: Record<string, unknown> = { type: 'object' };
    schema.properties = { self: schema };
    const search = engine();
    try {
      search.add([{ name: 'ok_tool' }, { name: 'cyclic', inputSchema: schema }]);
      expect.unreachable();
    } catch (error) {
      expect((error as ToolSearchError).code).toBe('INVALID_TOOL');
      expect((error as ToolSearchError).issues[0]).toMatchObject({ index: 1, name: 'cyclic' });
      expect((error as ToolSearchError).message).toContain('serialised');
    }
    expect(search.has('ok_tool')).toBe(false);
  });

  it('rejects a tool larger than limits.maxToolChars', () => {
    const big = { name: 'big', description: 'x'.repeat(500) };
    expect(code(() => engine({ limits: { maxToolChars: 200 } }).add([big]))).toBe('INVALID_TOOL');
    expect(() => engine().add([big])).not.toThrow();
  });

  it('bounds the synonyms option (pairs and phrase length), configurably', () => {
    const many = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`w${i}`, ['a', 'b']]));
    expect(code(() => engine({ synonyms: many, limits: { maxSynonymPairs: 2000 } }))).toBe('INVALID_OPTION');
    expect(code(() => engine({ synonyms: many, limits: { maxSynonymPairs: 2002 } }))).toBeUndefined();
    expect(code(() => engine({ synonyms: { ['x '.repeat(100)]: ['y'] } }))).toBe('INVALID_OPTION');
  });
});

describe('load() checks every tool as add() does', () => {
  const saved = () =>
    JSON.parse(JSON.stringify(engine().toJSON())) as { docs: { tool: Record<string, unknown> }[] };

  it.each([
    ['description', 5],
    ['name', ''],
    ['inputSchema', 'x'],
    ['tags', [1]],
  ])('a saved tool with a bad %s is INVALID_INDEX naming the entry and field', (field, value) => {
    const index = saved();
    index.docs[2]!.tool[field] = value;
    try {
      ToolSearch.load(index, { embedding: false });
      expect.unreachable();
    } catch (error) {
      expect((error as ToolSearchError).code).toBe('INVALID_INDEX');
      expect((error as ToolSearchError).message).toContain(`docs[2].tool.${field}`);
    }
  });

  it('a saved index with one tool twice is INVALID_INDEX', () => {
    const index = saved();
    index.docs[1]!.tool.name = index.docs[0]!.tool.name;
    expect(code(() => ToolSearch.load(index, { embedding: false }))).toBe('INVALID_INDEX');
  });
});

describe('the embedding disk cache is checked before it is believed', () => {
  async function warmCache(dir: string): Promise<string> {
    const search = new ToolSearch({
      tools: TOOLS,
      embedding: { embedder: new LetterEmbedder(), cacheDir: dir },
    });
    await search.ready();
    return new EmbeddingDiskCache(dir, 'letters-26').file;
  }

  /** Rewrites the cache file with every vector replaced by `replace(vector, i)`. */
  async function corrupt(dir: string, replace: (vector: Float32Array, i: number) => Float32Array) {
    const cache = new EmbeddingDiskCache(dir, 'letters-26');
    const entries = await cache.load();
    const bad = new Map([...entries].map(([key, vector], i) => [key, replace(vector, i)]));
    rmSync(cache.file);
    await new EmbeddingDiskCache(dir, 'letters-26').save(bad, new Set());
  }

  it.each([
    ['of another width', () => new Float32Array(50).fill(1 / Math.sqrt(50))],
    ['with NaN', (v: Float32Array, i: number) => (i === 3 ? v.map(() => Number.NaN) : v)],
    ['with one huge vector', (v: Float32Array, i: number) => (i === 0 ? v.map((x) => x * 1e30) : v)],
  ])('a cache %s warns once, is deleted and rebuilt, and search works', async (_, replace) => {
    const dir = join(scratch, `cache-${_.replace(/\W+/g, '-')}`);
    const file = await warmCache(dir);
    await corrupt(dir, replace);
    const before = readFileSync(file);

    const warnings: string[] = [];
    const embedder = new LetterEmbedder();
    const search = new ToolSearch({
      tools: TOOLS,
      embedding: { embedder, cacheDir: dir, onWarning: (w) => warnings.push(w) },
    });
    await search.ready();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('corrupt');
    expect(embedder.documents).toBe(TOOLS.length); // recomputed, not believed
    const response = await search.search('weather forecast for a city');
    expect(response.strategies).toContain('embedding');
    expect(response.results[0]?.name).toBe('weather__forecast');
    expect(readFileSync(file).equals(before)).toBe(false); // rewritten

    // The rebuilt file is believed: no warning and no inference the next time.
    const again = new LetterEmbedder();
    const next = new ToolSearch({
      tools: TOOLS,
      embedding: { embedder: again, cacheDir: dir, onWarning: (w) => warnings.push(w) },
    });
    await next.ready();
    expect(warnings).toHaveLength(1);
    expect(again.documents).toBe(0);
  });

  it.skipIf(!existsSync(DEFAULT_MODEL_PATH))(
    'the bundled model reports its width, so its cache is width-checked',
    async () => {
      const retriever = createEmbeddingRetriever({ cacheDir: false, env: {} });
      await retriever.ready();
      expect(retriever.embedder.dims).toBe(100);
    },
  );

  it('a healthy cache is believed as it is', async () => {
    const dir = join(scratch, 'cache-healthy');
    const file = await warmCache(dir);
    const before = readFileSync(file);
    const embedder = new LetterEmbedder();
    const search = new ToolSearch({
      tools: TOOLS,
      embedding: { embedder, cacheDir: dir, onWarning: () => expect.unreachable() },
    });
    await search.ready();
    expect(embedder.documents).toBe(0);
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});
