import { describe, expect, it } from 'vitest';
import { ToolSearch, ToolSearchError } from '../src/index.js';
import { ANALYZER_VERSION } from '../src/serialize.js';
import { engine, REGISTRY_TOOLS, TOOLS, top } from './helpers.js';

const registry = { tools: REGISTRY_TOOLS };

const QUERIES = [
  'take a screenshot of the page',
  'create_issue',
  'list my pull requests',
  'calender',
  'server-github search code',
  'read a file from disk',
];

describe('toJSON / load', () => {
  it('round-trips an index with identical rankings and scores', async () => {
    const original = new ToolSearch({ tools: registry.tools, embedding: false, weights: { fuzzy: 0.5 } });
    const json = JSON.parse(JSON.stringify(original.toJSON()));
    const loaded = ToolSearch.load(json, { embedding: false });
    expect(loaded.size).toBe(original.size);
    for (const query of QUERIES) {
      const a = await original.search(query, { limit: 20 });
      const b = await loaded.search(query, { limit: 20 });
      expect(b.results.map((r) => [r.name, r.score])).toEqual(a.results.map((r) => [r.name, r.score]));
      expect(b.toolsets).toEqual(a.toolsets);
    }
  });

  it('keeps options (weights, disable, synonyms) and stays incremental after loading', async () => {
    const original = engine({ disable: ['ngram'], synonyms: { meteo: ['weather'] } });
    const loaded = ToolSearch.load(JSON.stringify(original.toJSON()), { embedding: false });
    expect(await top(loaded, 'meteo')).toEqual(await top(original, 'meteo'));
    expect((await loaded.search('sendmail')).strategies).not.toContain('ngram');
    loaded.add([{ name: 'extra_tool', description: 'unique zebra words' }]);
    loaded.remove([TOOLS[0]!.name]);
    expect(await top(loaded, 'zebra')).toEqual(['extra_tool']);
    expect(loaded.has(TOOLS[0]!.name)).toBe(false);
  });

  it('re-analyses tools written by another analyser version', async () => {
    const json = engine().toJSON() as { analyzer: number };
    const loaded = ToolSearch.load({ ...json, analyzer: -1 }, { embedding: false });
    expect(await top(loaded, 'send email')).toEqual(await top(engine(), 'send email'));
  });

  it.each([
    ['not an object', 42],
    ['not JSON', '{nope'],
    ['wrong format', { format: 'other', version: 1, docs: [], options: {} }],
    ['future version', { format: 'toolsearch-index', version: 99, docs: [], options: {} }],
    ['docs missing', { format: 'toolsearch-index', version: 1, options: {} }],
    [
      'bad field',
      {
        format: 'toolsearch-index',
        version: 1,
        analyzer: ANALYZER_VERSION,
        options: {},
        docs: [
          { tool: { name: 'x' }, toolset: 'd', nameWords: [], embeddingText: '', fields: { name: 'x' } },
        ],
      },
    ],
  ])('throws INVALID_INDEX for %s', (_, input) => {
    try {
      ToolSearch.load(input);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ToolSearchError);
      expect((error as ToolSearchError).code).toBe('INVALID_INDEX');
      expect((error as ToolSearchError).message).toMatch(/^toolsearch: invalid index/);
    }
  });
});
