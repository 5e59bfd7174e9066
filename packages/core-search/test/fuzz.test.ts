// Fuzzing the library (issue 9): seeded adversarial and random queries against the
// 480-tool registry with every strategy on (the bundled embedding model included), and
// random, often malformed, tool lists and saved indexes. Each input must give an answer
// or a typed error, never a crash or a hang. Counts are bounded; the test timeouts are
// only hang guards: worst-case times are measured by `pnpm bench --only fuzz`.
import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/defaults.js';
import { DEFAULT_MODEL_PATH } from '../src/embedding/index.js';
import { type ToolDefinition, ToolSearch, ToolSearchError } from '../src/index.js';
import { fuzzQueries, fuzzTool } from './fuzz-inputs.js';
import { random } from './helpers.js';

const registry = JSON.parse(
  readFileSync(new URL('../../../fixtures/registry/tools.json', import.meta.url), 'utf8'),
) as { tools: ToolDefinition[] };
const withModel = existsSync(DEFAULT_MODEL_PATH);

/** The answer, or the code of the typed error; anything else fails the test. */
async function outcome(run: () => unknown): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    expect(error, String(error)).toBeInstanceOf(ToolSearchError);
    return (error as ToolSearchError).code;
  }
}

describe('fuzz: queries against the 480-tool registry', () => {
  let engine: ToolSearch;
  beforeAll(async () => {
    engine = new ToolSearch({
      tools: registry.tools,
      embedding: withModel ? { cacheDir: false, env: {} } : false,
      onProgress: () => {},
    });
    await engine.ready();
  });

  it('answers every adversarial and random query, up to 1 MB, within the query budget', {
    timeout: 240_000,
  }, async () => {
    const queries = fuzzQueries(9, [1000, 1_000_000], 40, 1_000_000);
    const codes = new Map<string, number>();
    for (const { family, query } of queries) {
      const code = await outcome(async () => {
        const response = await engine.search(query, { limit: 5 });
        expect(response.query.length, family).toBeLessThanOrEqual(DEFAULTS.analysis.maxQueryChars);
        expect(response.results.length, family).toBeLessThanOrEqual(5);
        for (const result of response.results) expect(Number.isFinite(result.score), family).toBe(true);
      });
      if (query.trim() !== '') expect(code, family).toBe('ok');
      else expect(code, family).toBe('EMPTY_QUERY');
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    expect(codes.get('ok')).toBeGreaterThan(queries.length / 2);
    expect((await engine.search('take a screenshot of the page')).results[0]?.name).toMatch(/screenshot/);
  });

  it('answers bad query types and options with typed errors', async () => {
    for (const query of [undefined, null, 5, {}, [], Symbol.iterator]) {
      expect(await outcome(() => engine.search(query as never))).toBe('INVALID_QUERY');
    }
    for (const options of [
      null,
      { limit: 0 },
      { limit: 1e9 },
      { limit: 'x' },
      { toolsets: 'a' },
      { strategies: ['nope'] },
    ]) {
      expect(['INVALID_OPTION', 'UNKNOWN_STRATEGY']).toContain(
        await outcome(() => engine.search('files', options as never)),
      );
    }
  });
});

describe('fuzz: tool lists and saved indexes', () => {
  it('adds random tool lists all-or-nothing, or refuses them with a typed error; the engine keeps working', {
    timeout: 120_000,
  }, async () => {
    const next = random(2026);
    const engine = new ToolSearch({ embedding: false });
    let added = 0;
    for (let round = 0; round < 60; round++) {
      const batch = Array.from({ length: 1 + Math.floor(next() * 8) }, (_, i) =>
        fuzzTool(next, round * 10 + i),
      );
      const before = engine.size;
      const code = await outcome(() => engine.add(batch as ToolDefinition[]));
      if (code === 'ok') added += batch.length;
      else {
        expect(['INVALID_TOOL', 'DUPLICATE_TOOL']).toContain(code);
        expect(engine.size).toBe(before);
      }
      expect(engine.size).toBe(added);
      // An empty engine refuses a search with its typed error; any other engine answers.
      const searched = await outcome(() => engine.search('read a file'));
      expect(searched).toBe(engine.size === 0 ? 'EMPTY_INDEX' : 'ok');
    }
    expect(added).toBeGreaterThan(0);
    const saved = JSON.stringify(engine.toJSON());
    const loaded = ToolSearch.load(saved, { embedding: false });
    expect(loaded.size).toBe(engine.size);
  });

  it('loads a corrupted saved index or refuses it with INVALID_INDEX, never a TypeError later', {
    timeout: 120_000,
  }, async () => {
    const next = random(77);
    const saved = new ToolSearch({ tools: registry.tools.slice(0, 30), embedding: false }).toJSON();
    const values = [null, 5, '', 'x', [], [1], {}, true, -1, { name: 5 }];
    for (let round = 0; round < 80; round++) {
      const index = JSON.parse(JSON.stringify(saved)) as { docs: Record<string, unknown>[] };
      const doc = index.docs[Math.floor(next() * index.docs.length)]!;
      const target = next() < 0.6 ? (doc.tool as Record<string, unknown>) : doc;
      const keys = Object.keys(target);
      target[keys[Math.floor(next() * keys.length)]!] = values[Math.floor(next() * values.length)];
      const code = await outcome(async () => {
        const engine = ToolSearch.load(index, { embedding: false });
        await engine.search('list the files');
        await engine.search('create_issue');
      });
      expect(['ok', 'INVALID_INDEX']).toContain(code);
    }
  });
});
