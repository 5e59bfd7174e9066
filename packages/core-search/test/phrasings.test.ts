import { describe, expect, it } from 'vitest';
import { Corpus } from '../src/corpus.js';
import { DEFAULTS } from '../src/defaults.js';
import { type ToolDefinition, ToolSearch } from '../src/index.js';
import { analyzeTool } from '../src/internals.js';
import { caught, engine, TOOLS, top } from './helpers.js';

// Words no tool of TOOLS uses: only a phrasing can connect them to a tool.
const REQUEST = 'my kid needs the homework sheet tomorrow morning';
const withPhrasing = (tools: ToolDefinition[], name: string, field: 'phrasings' | 'examples') =>
  tools.map((tool) => (tool.name === name ? { ...tool, [field]: [REQUEST] } : tool));

describe('phrasings: a field of their own', () => {
  it.each(['phrasings', 'examples'] as const)('a tool found through its %s', async (field) => {
    expect(await top(engine(), REQUEST)).not.toContain('mail__send_email');
    const search = new ToolSearch({
      tools: withPhrasing(TOOLS, 'mail__send_email', field),
      embedding: false,
      pack: false,
    });
    expect((await top(search, REQUEST))[0]).toBe('mail__send_email');
  });

  it('indexes examples and phrasings as phrasings, not as description', () => {
    const doc = analyzeTool(
      { name: 'x', description: 'Send mail.', examples: ['email grandma'], phrasings: ['write to bob'] },
      0,
    );
    expect(doc.fields.description).not.toContain('grandma');
    expect(doc.fields.phrasings).toEqual(expect.arrayContaining(['grandma', 'bob']));
    expect(doc.phrasings).toEqual([
      { text: 'email grandma', source: 'tool' },
      { text: 'write to bob', source: 'tool' },
    ]);
    expect(doc.embeddingText).toContain('email grandma');
  });

  it('bounds and de-duplicates phrasings per tool (case and spacing do not make a new one)', () => {
    const { maxPerTool, maxChars, maxEmbeddingChars } = DEFAULTS.phrasings;
    const many = Array.from({ length: maxPerTool + 10 }, (_, i) => `request number ${i}`);
    const doc = analyzeTool(
      {
        name: 'x',
        phrasings: ['Email  Grandma', 'email grandma', ' EMAIL GRANDMA ', 'x'.repeat(maxChars * 3), ...many],
      },
      0,
    );
    expect(doc.phrasings).toHaveLength(maxPerTool);
    expect(doc.phrasings.filter((p) => p.text.toLowerCase() === 'email grandma')).toHaveLength(1);
    expect(doc.phrasings[1]!.text).toHaveLength(maxChars);
    expect(doc.embeddingText.length).toBeLessThan(maxEmbeddingChars + 200);
  });

  it('rejects phrasings that are not strings, naming the tool index and field', () => {
    const error = caught(() =>
      engine().add([
        { name: 'a', phrasings: 'send mail' as never },
        { name: 'b', phrasings: ['ok', 3 as never] },
      ]),
    );
    expect(error.code).toBe('INVALID_TOOL');
    expect(error.issues.map((issue) => [issue.index, issue.field])).toEqual([
      [0, 'phrasings'],
      [1, 'phrasings[1]'],
    ]);
  });
});

describe('addPhrasings', () => {
  it('makes the tool findable by the new request, like a tool defined with it', async () => {
    const search = engine({ pack: false });
    expect(search.addPhrasings('mail__send_email', [REQUEST])).toEqual({ added: 1 });
    const built = new ToolSearch({
      tools: withPhrasing(TOOLS, 'mail__send_email', 'phrasings'),
      embedding: false,
      pack: false,
    });
    const query = await search.search(REQUEST);
    expect(query.results.map((r) => [r.name, r.score])).toEqual(
      (await built.search(REQUEST)).results.map((r) => [r.name, r.score]),
    );
    expect(query.results[0]!.name).toBe('mail__send_email');
    expect(search.get('mail__send_email')).toEqual(TOOLS.find((t) => t.name === 'mail__send_email'));
  });

  it('counts only new phrasings and ignores repeats', () => {
    const search = engine({ pack: false });
    expect(search.addPhrasings('mail__send_email', ['write to grandma', 'Write to  GRANDMA'])).toEqual({
      added: 1,
    });
    expect(search.addPhrasings('mail__send_email', ['write to grandma'])).toEqual({ added: 0 });
  });

  it('throws UNKNOWN_TOOL and INVALID_PHRASING, changing nothing', async () => {
    const search = engine({ pack: false });
    expect(caught(() => search.addPhrasings('nope', ['x'])).code).toBe('UNKNOWN_TOOL');
    const bad = caught(() => search.addPhrasings('mail__send_email', ['zorblax', 7 as never]));
    expect(bad.code).toBe('INVALID_PHRASING');
    expect(bad.issues[0]).toMatchObject({ index: 1, field: 'phrasings[1]' });
    expect(caught(() => search.addPhrasings('mail__send_email', 'x' as never)).code).toBe('INVALID_PHRASING');
    expect(await top(search, 'zorblax')).toEqual([]);
  });

  it('survives toJSON/load, also when the index must be re-analysed', async () => {
    const search = engine({ pack: false });
    search.addPhrasings('mail__send_email', [REQUEST]);
    const json = search.toJSON() as { analyzer: number };
    for (const saved of [json, { ...json, analyzer: -1 }]) {
      const loaded = ToolSearch.load(JSON.parse(JSON.stringify(saved)), { embedding: false });
      expect((await top(loaded, REQUEST))[0]).toBe('mail__send_email');
      const explained = await loaded.search(REQUEST, { explain: true });
      expect(explained.explain!.phrasings.mail__send_email).toEqual([{ text: REQUEST, source: 'added' }]);
    }
  });

  it('rejects a saved index whose phrasings are malformed', () => {
    const json = engine({ pack: false }).toJSON() as { docs: { phrasings: unknown }[] };
    json.docs[0]!.phrasings = [{ text: 'x', source: 'somewhere' }];
    const error = caught(() => ToolSearch.load(json));
    expect(error.code).toBe('INVALID_INDEX');
    expect(error.message).toContain('docs[0].phrasings[0]');
  });
});

describe('explain', () => {
  it('lists the phrasings that share a word with the query, with their source', async () => {
    const search = new ToolSearch({
      tools: TOOLS.map((tool) =>
        tool.name === 'mail__send_email'
          ? { ...tool, phrasings: ['tell grandma about the party', 'unrelated words here'] }
          : tool,
      ),
      embedding: false,
      pack: false,
    });
    search.addPhrasings('mail__send_email', ['invite grandma over']);
    const response = await search.search('grandma', { explain: true });
    expect(response.explain!.phrasings).toEqual({
      mail__send_email: [
        { text: 'tell grandma about the party', source: 'tool' },
        { text: 'invite grandma over', source: 'added' },
      ],
    });
  });
});

describe('field weights by query shape', () => {
  it('scores a phrasing-only match with the weights of the query shape', () => {
    const corpus = new Corpus();
    corpus.add([
      analyzeTool({ name: 'alpha', description: 'Unrelated text.', phrasings: ['grandma'] }, 0),
      analyzeTool({ name: 'beta', description: 'Other text.' }, 1),
    ]);
    const score = (shape: 'identifier' | 'keywords' | 'natural') =>
      corpus.bm25f([{ term: 'grandma', weight: 1 }], undefined, shape).get(0);
    const weights = DEFAULTS.bm25.fieldWeights;
    const order = (['identifier', 'keywords', 'natural'] as const)
      .slice()
      .sort((a, b) => weights[a].phrasings - weights[b].phrasings);
    for (let i = 1; i < order.length; i++) {
      const [lower, higher] = [order[i - 1]!, order[i]!];
      if (weights[lower].phrasings < weights[higher].phrasings) {
        expect(score(lower)).toBeLessThan(score(higher));
      } else expect(score(lower)).toBeCloseTo(score(higher), 12);
    }
  });

  it('backs off to the description for tools without phrasings once others have them', () => {
    const plain = analyzeTool({ name: 'beta', description: 'Send a parcel.' }, 1);
    const alone = new Corpus();
    alone.add([analyzeTool({ name: 'alpha', description: 'Other thing.' }, 0), plain]);
    const mixed = new Corpus();
    mixed.add([
      analyzeTool({ name: 'alpha', description: 'Other thing.', phrasings: ['grandma'] }, 0),
      plain,
    ]);
    const term = [{ term: 'parcel', weight: 1 }];
    // Same idf (one document has the term in both corpora); only the backoff differs.
    expect(mixed.bm25f(term, undefined, 'natural').get(1)).toBeGreaterThan(
      alone.bm25f(term, undefined, 'natural').get(1),
    );
  });
});
