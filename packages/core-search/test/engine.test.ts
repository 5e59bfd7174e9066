import { describe, expect, it } from 'vitest';
import {
  type IndexedDoc,
  type Retriever,
  type RetrieverFactory,
  STRATEGY_NAMES,
  type ToolDefinition,
  ToolSearch,
  ToolSearchError,
} from '../src/index.js';
import { DEFAULT_RETRIEVERS } from '../src/internals.js';
import { caught, engine, REGISTRY_TOOLS, random, TOOLS, top } from './helpers.js';

async function caughtAsync(promise: Promise<unknown>): Promise<ToolSearchError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolSearchError);
    return error as ToolSearchError;
  }
  throw new Error('expected a ToolSearchError');
}

describe('add: validation', () => {
  it('names the index and field of every malformed tool', () => {
    const search = engine();
    const error = caught(() =>
      search.add([
        { name: 'fine', description: 'ok' },
        { name: 42 } as never,
        { name: '  ' },
        { name: 'bad_schema', inputSchema: [] } as never,
        { name: 'bad_tags', tags: 'x' } as never,
      ]),
    );
    expect(error.code).toBe('INVALID_TOOL');
    expect(error.message).toMatch(/^toolsearch: invalid tool at index 1, field "name"/);
    expect(error.issues.map((issue) => [issue.index, issue.field])).toEqual([
      [1, 'name'],
      [2, 'name'],
      [3, 'inputSchema'],
      [4, 'tags'],
    ]);
  });

  it('reports duplicate names with both indexes, in a batch and against the index', () => {
    const search = engine();
    const error = caught(() =>
      search.add([{ name: 'x' }, { name: 'y' }, { name: 'x' }, { name: 'mail__send_email' }]),
    );
    expect(error.code).toBe('DUPLICATE_TOOL');
    expect(error.issues).toEqual([
      expect.objectContaining({ index: 2, name: 'x', message: expect.stringContaining('index 0') }),
      expect.objectContaining({
        index: 3,
        name: 'mail__send_email',
        message: expect.stringContaining('already'),
      }),
    ]);
  });

  it('knows every name after a first add (its names come from the validation), a failed one, later adds and removes', () => {
    const search = new ToolSearch({ embedding: false });
    expect(() => search.add([{ name: 'a' }, { name: 'a' }])).toThrow(ToolSearchError);
    expect(search.has('a')).toBe(false);
    search.add([{ name: 'a' }, { name: 'b', description: 'bee' }]);
    expect(search.get('b')?.description).toBe('bee');
    expect(caught(() => search.add([{ name: 'c' }, { name: 'b' }])).code).toBe('DUPLICATE_TOOL');
    search.add([{ name: 'c' }]);
    expect(['a', 'b', 'c', 'd'].map((name) => search.has(name))).toEqual([true, true, true, false]);
    // Emptied, then added to again: ids go on from where they were, names are found.
    search.remove(['a', 'b', 'c']);
    search.add([{ name: 'b', description: 'again' }, { name: 'd' }]);
    expect(search.get('b')?.description).toBe('again');
    expect(['a', 'b', 'c', 'd'].map((name) => search.has(name))).toEqual([false, true, false, true]);
    search.remove(['d']);
    expect(search.has('d')).toBe(false);
  });

  it('is atomic: a failing batch adds nothing and the engine keeps working', async () => {
    const search = engine();
    const before = search.size;
    expect(() => search.add([{ name: 'new_tool', description: 'zebra' }, { name: 7 } as never])).toThrow(
      ToolSearchError,
    );
    expect(search.size).toBe(before);
    expect(search.has('new_tool')).toBe(false);
    expect(await top(search, 'zebra')).toEqual([]);
    search.add([{ name: 'new_tool', description: 'zebra' }]);
    expect(await top(search, 'zebra')).toEqual(['new_tool']);
  });

  it('rejects a non-array', () => {
    expect(caught(() => engine().add({} as never)).code).toBe('INVALID_TOOL');
  });

  it('keeps its own copy by default, the given objects with copyTools: false, and ranks the same', async () => {
    const parsed = (): ToolDefinition[] => JSON.parse(JSON.stringify(TOOLS.slice(0, 40)));
    const given = parsed();
    const copying = new ToolSearch({ tools: given, embedding: false });
    const owning = new ToolSearch({ tools: parsed(), embedding: false, copyTools: false });
    expect(copying.get(given[0]!.name)).not.toBe(given[0]);
    expect(copying.get(given[0]!.name)).toStrictEqual(given[0]);
    const mine = { name: 'mine', description: 'zebra crossing', inputSchema: { type: 'object' } };
    copying.add([mine]);
    owning.add([mine]);
    expect(copying.get('mine')).not.toBe(mine);
    expect(owning.get('mine')).toBe(mine);
    for (const query of ['send an email', 'create_issue', 'zebra'])
      expect(await top(owning, query)).toEqual(await top(copying, query));
    // Validation is the same: errors and the size limit.
    expect(caught(() => owning.add([{ name: 7 } as never])).code).toBe('INVALID_TOOL');
    const small = new ToolSearch({ embedding: false, copyTools: false, limits: { maxToolChars: 40 } });
    expect(caught(() => small.add([{ name: 'big', description: 'x'.repeat(50) }])).code).toBe('INVALID_TOOL');
    expect(caught(() => new ToolSearch({ copyTools: 'no' as never })).code).toBe('INVALID_OPTION');
  });
});

describe('search: errors', () => {
  const search = engine();

  it('EMPTY_QUERY for empty or whitespace-only queries', async () => {
    expect((await caughtAsync(search.search(''))).code).toBe('EMPTY_QUERY');
    expect((await caughtAsync(search.search(' \n\t '))).code).toBe('EMPTY_QUERY');
  });

  it('INVALID_QUERY for non-strings', async () => {
    expect((await caughtAsync(search.search(42 as never))).code).toBe('INVALID_QUERY');
    expect((await caughtAsync(search.search(undefined as never))).code).toBe('INVALID_QUERY');
  });

  it('UNKNOWN_STRATEGY for unknown names, engine-wide or per query', async () => {
    expect(caught(() => engine({ disable: ['keyword', 'magic' as never] })).code).toBe('UNKNOWN_STRATEGY');
    expect((await caughtAsync(search.search('mail', { strategies: ['nope' as never] }))).code).toBe(
      'UNKNOWN_STRATEGY',
    );
    expect((await caughtAsync(search.search('mail', { disable: ['nope' as never] }))).code).toBe(
      'UNKNOWN_STRATEGY',
    );
  });

  it('INVALID_OPTION for a bad limit, rrfK or weight', async () => {
    expect((await caughtAsync(search.search('mail', { limit: 0 }))).code).toBe('INVALID_OPTION');
    expect((await caughtAsync(search.search('mail', { limit: 1001 }))).code).toBe('INVALID_OPTION');
    expect(caught(() => engine({ rrfK: -1 })).code).toBe('INVALID_OPTION');
    expect(caught(() => engine({ weights: { keyword: -2 } })).code).toBe('INVALID_OPTION');
  });

  it('UNKNOWN_TOOLSET for a toolsets filter naming a toolset it does not hold, listing the known ones', async () => {
    const err = await caughtAsync(search.search('mail', { toolsets: ['mail', 'mial'] }));
    expect(err.code).toBe('UNKNOWN_TOOLSET');
    expect(err.message).toMatch(/unknown toolset "mial"; known: .*\bmail\b/);
    expect(err.message).toContain(
      search
        .toolsets()
        .map((t) => t.name)
        .join(', '),
    );
  });

  it('NO_STRATEGIES when the options switch off every strategy, engine-wide or per query', async () => {
    const all = [...STRATEGY_NAMES];
    const wide = caught(() => engine({ disable: all }));
    expect(wide.code).toBe('NO_STRATEGIES');
    expect(wide.message).toContain(STRATEGY_NAMES.join(', '));
    const perQuery = await caughtAsync(search.search('mail', { disable: all }));
    expect(perQuery.code).toBe('NO_STRATEGIES');
    const only = await caughtAsync(engine({ disable: ['fuzzy'] }).search('mail', { strategies: ['fuzzy'] }));
    expect(only.code).toBe('NO_STRATEGIES');
    expect(only.message).not.toMatch(/\bfuzzy\b/);
  });

  it('EMPTY_INDEX for a search before any tool was added', async () => {
    expect((await caughtAsync(engine({ tools: [] }).search('mail'))).code).toBe('EMPTY_INDEX');
  });

  it('stays usable after errors', async () => {
    await caughtAsync(search.search(''));
    expect((await top(search, 'send email'))[0]).toBe('mail__send_email');
  });
});

describe('add and remove without a rebuild', () => {
  it('hands retrievers only the new documents and the removed ids', async () => {
    const added: number[][] = [];
    const removed: number[][] = [];
    const spy: RetrieverFactory = () => ({
      name: 'tfidf',
      add: (docs: readonly IndexedDoc[]) => void added.push(docs.map((doc) => doc.id)),
      remove: (ids: readonly number[]) => void removed.push([...ids]),
      retrieve: () => [],
    });
    const search = new ToolSearch({ tools: TOOLS.slice(0, 3), embedding: false, retrievers: [spy] });
    search.add(TOOLS.slice(3, 5));
    search.remove([TOOLS[0]!.name]);
    expect(added).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
    expect(removed).toEqual([[0]]);
  });

  it('suggests the toolset a tool has now, after it was removed and added to another', async () => {
    const search = new ToolSearch({
      tools: [
        { name: 'translate_text', description: 'Translate text between languages.', toolset: 'lingo' },
        { name: 'send_email', description: 'Send an email message.', toolset: 'mail' },
      ],
      embedding: false,
    });
    expect((await search.search('translate text')).toolsets.map((t) => t.toolset)).toContain('lingo');
    search.remove(['translate_text']);
    search.add([
      { name: 'translate_text', description: 'Translate text between languages.', toolset: 'words' },
    ]);
    const suggested = (await search.search('translate text')).toolsets;
    const toolsets = suggested.map((t) => t.toolset);
    expect(toolsets).toContain('words');
    expect(toolsets).not.toContain('lingo');
    expect(suggested.find((t) => t.toolset === 'words')?.toolCount).toBe(1);
    expect((await caughtAsync(search.search('translate', { toolsets: ['lingo'] }))).code).toBe(
      'UNKNOWN_TOOLSET',
    );
  });

  it("tells a tool's toolset and the toolsets' sizes without reading a definition, built or loaded", () => {
    const search = new ToolSearch({ embedding: false });
    search.add([
      { name: 'mail__send', toolset: 'mail', description: 'Send an email' },
      { name: 'mail__list', toolset: 'mail', description: 'List emails' },
      { name: 'files__read', toolset: 'files', description: 'Read a file' },
    ]);
    search.remove(['mail__list']);
    expect(search.toolsetOfTool('mail__send')).toBe('mail');
    expect(search.toolsetOfTool('mail__list')).toBeUndefined();
    expect([...search.toolCounts()]).toEqual([
      ['mail', 1],
      ['files', 1],
    ]);
    const loaded = ToolSearch.load(search.toBytes(), { embedding: false });
    expect(loaded.toolsetOfTool('files__read')).toBe('files');
    expect([...loaded.toolCounts()]).toEqual([...search.toolCounts()]);
  });

  it('finds added tools and forgets removed ones', async () => {
    const search = engine();
    search.add([{ name: 'translate_text', description: 'Translate text between languages.' }]);
    expect((await top(search, 'translate'))[0]).toBe('translate_text');
    search.remove(['translate_text', 'mail__send_email']);
    expect(await top(search, 'translate')).toEqual([]);
    expect(await top(search, 'send_email')).not.toContain('mail__send_email');
    expect(search.has('mail__send_email')).toBe(false);
    expect(search.size).toBe(TOOLS.length - 1);
  });

  it('throws UNKNOWN_TOOL and removes nothing when a name is unknown', () => {
    const search = engine();
    const error = caught(() => search.remove(['mail__send_email', 'ghost']));
    expect(error.code).toBe('UNKNOWN_TOOL');
    expect(error.message).toContain('"ghost"');
    expect(search.has('mail__send_email')).toBe(true);
  });

  it('gives the same ranking as an engine built in one go', async () => {
    const incremental = engine({ tools: [] });
    incremental.add(TOOLS.slice(0, 6));
    incremental.add(TOOLS.slice(6));
    const whole = engine();
    for (const query of ['calendar event', 'screenshot of page', 'sendEmail', 'repo file']) {
      expect(await top(incremental, query)).toEqual(await top(whole, query));
    }
  });
});

describe('add and remove: the same rankings as a fresh build', () => {
  // Searches of every query shape between the changes make each piece of derived state (the
  // TF-IDF norms per shape, BM25F tfs, the vocabulary) update incrementally, change by change.
  const QUERIES = [
    'take a screenshot of the current page in the browser',
    'create issue',
    'github__list_pull_requests',
    'send an email to my team about the meeting',
    'weather forecast',
  ];
  // Each strategy's own ranking with its raw scores: a fused score depends on ranks alone.
  const ranking = async (search: ToolSearch, query: string) => {
    const response = await search.search(query, { limit: 10, explain: true });
    return {
      results: response.results.map((r) => [r.name, r.score]),
      toolsets: response.toolsets,
      perStrategy: response.explain?.perStrategy,
    };
  };

  it('after a seeded random sequence of adds and removes, scores and all', async () => {
    const next = random(11);
    const pool = REGISTRY_TOOLS.slice(0, 150);
    const incremental = engine({ tools: [] });
    // The tools the incremental engine holds, in the order they were (last) added: a fresh
    // engine built from them in this order gives equal scores the same tie order.
    let live: ToolDefinition[] = [];
    let changes = 0;
    for (let step = 0; step < 14; step++) {
      const waiting = pool.filter((tool) => !incremental.has(tool.name));
      const adding = waiting
        .filter(() => next() < 0.2)
        .slice(0, step === 0 ? 60 : 1 + Math.floor(next() * 8));
      if (adding.length > 0) {
        incremental.add(adding);
        live.push(...adding);
        changes++;
      }
      const removing = step > 2 ? live.filter(() => next() < 0.06).map((tool) => tool.name) : [];
      if (removing.length > 0) {
        incremental.remove(removing);
        live = live.filter((tool) => !removing.includes(tool.name));
        changes++;
      }
      for (const query of QUERIES) await incremental.search(query, { limit: 10 });
      const fresh = engine({ tools: live });
      for (const query of QUERIES)
        expect(await ranking(incremental, query)).toEqual(await ranking(fresh, query));
    }
    // The sequence did what it is for: many changes, and tools both came and went.
    expect(changes).toBeGreaterThan(14);
    expect(incremental.size).toBe(live.length);
    expect(live.length).toBeLessThan(pool.length);
  });
});

describe('results', () => {
  const search = engine();

  it('is deterministic: same input, same order, same scores', async () => {
    const a = await engine().search('open a page in the browser', { limit: 12 });
    const b = await engine().search('open a page in the browser', { limit: 12 });
    expect(b.results.map((r) => [r.name, r.score])).toEqual(a.results.map((r) => [r.name, r.score]));
  });

  it('carries toolset, summary, matchedBy and the tool as added', async () => {
    const response = await search.search('send an email', { limit: 3 });
    const [first] = response.results;
    expect(first).toMatchObject({ name: 'mail__send_email', toolset: 'mail', tool: TOOLS[8] });
    expect(first!.summary).toBe('Send an email message to one or more recipients.');
    expect(first!.matchedBy[0]).toMatchObject({ strategy: expect.any(String), rank: 1 });
    const ranks = first!.matchedBy.map((match) => match.rank);
    expect(ranks).toEqual([...ranks].sort((x, y) => x - y));
  });

  it('honours limit and the toolset filter', async () => {
    expect((await search.search('list', { limit: 1 })).results).toHaveLength(1);
    expect(await top(search, 'create')).toContain('github__create_issue');
    const filtered = await search.search('create', { toolsets: ['calendar', 'weather'] });
    expect(filtered.results.map((r) => r.name)).toEqual(['calendar__create_event']);
  });

  it('suggests toolsets by the evidence summed over their tools', async () => {
    const response = await search.search('calendar events this week');
    expect(response.toolsets[0]).toMatchObject({ toolset: 'calendar', hits: 2, toolCount: 2 });
    const scores = response.toolsets.map((t) => t.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
  });

  it('suggests at most five toolsets: those of the 30 best hits, by summed score, then name', async () => {
    const wide = engine({
      tools: Array.from({ length: 40 }, (_, i) => ({
        name: `s${i % 8}__send_message_${i}`,
        description: `Send a message to channel ${i % 3}.`,
      })),
    });
    for (const query of ['send a message', 'message channel', 'send_message']) {
      const response = await wide.search(query, { limit: 30 });
      const evidence = new Map<string, { score: number; hits: number }>();
      for (const { toolset, score } of response.results) {
        const entry = evidence.get(toolset) ?? { score: 0, hits: 0 };
        entry.score += score;
        entry.hits++;
        evidence.set(toolset, entry);
      }
      const expected = [...evidence]
        .sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1))
        .slice(0, 5)
        .map(([toolset, { score, hits }]) => ({ toolset, score, hits, toolCount: 5 }));
      expect(response.toolsets).toEqual(expected);
    }
  });

  it('honours per-query strategies and disable lists, and engine-wide disable', async () => {
    expect((await search.search('mail', { strategies: ['keyword'] })).strategies).toEqual(['keyword']);
    expect((await search.search('mail', { disable: ['keyword'] })).strategies).not.toContain('keyword');
    const noKeyword = engine({ disable: ['keyword', 'exact'] });
    const ran = (await noKeyword.search('mail')).strategies;
    expect(ran).not.toContain('keyword');
    expect(ran).not.toContain('exact');
    expect(ran.length).toBeGreaterThan(0);
  });

  it('explains the analysis and each strategy ranking', async () => {
    const response = await search.search('takeScreenshot', { explain: true });
    expect(response.explain?.analysis).toMatchObject({
      shape: 'identifier',
      terms: ['screenshot', 'takescreenshot'],
    });
    expect(response.explain?.perStrategy.keyword?.[0]).toMatchObject({
      name: 'browser__take_screenshot',
      rank: 1,
    });
    expect(
      Object.keys(response.explain!.perStrategy).every((s) =>
        (STRATEGY_NAMES as readonly string[]).includes(s),
      ),
    );
  });

  it('lists toolsets with counts and a derived description', () => {
    const toolsets = engine().toolsets();
    expect(toolsets.map((t) => t.name)).toEqual([
      'browser',
      'calendar',
      'db',
      'files',
      'github',
      'mail',
      'weather',
    ]);
    expect(toolsets[0]).toEqual({
      name: 'browser',
      toolCount: 3,
      description: '3 tools: take_screenshot, navigate, click',
    });
  });

  it('get returns the tool as added (the engine keeps a copy)', () => {
    expect(engine().get('db__run_query')).toEqual(TOOLS[10]);
    expect(engine().get('db__run_query')).not.toBe(TOOLS[10]);
    expect(engine().get('nope')).toBeUndefined();
  });
});

describe('async and degraded retrievers', () => {
  function slowStrategy(status: () => 'ready' | 'loading' | 'unavailable'): RetrieverFactory {
    return ({ docs }) => {
      let resolveReady: () => void = () => {};
      const ready = new Promise<void>((resolve) => {
        resolveReady = resolve;
      });
      const retriever: Retriever = {
        name: 'embedding',
        add: async () => {},
        remove: () => {},
        retrieve: async () => [{ id: [...docs.keys()].at(-1)!, score: 1 }],
        status,
        ready: () => {
          setTimeout(resolveReady, 5);
          return ready;
        },
      };
      return retriever;
    };
  }

  it('skips a loading embedding retriever and says so', async () => {
    let state: 'ready' | 'loading' | 'unavailable' = 'loading';
    const search = engine({ retrievers: [...DEFAULT_RETRIEVERS.slice(0, 8), slowStrategy(() => state)] });
    const loading = await search.search('weather forecast');
    expect(loading.degraded).toBe('embedding-loading');
    expect(loading.strategies).not.toContain('embedding');
    state = 'unavailable';
    expect((await search.search('weather forecast')).degraded).toBe('embedding-unavailable');
    state = 'ready';
    await search.ready();
    const ready = await search.search('weather forecast');
    expect(ready.degraded).toBeUndefined();
    expect(ready.strategies).toContain('embedding');
  });

  it('drops hits for tools removed while a model answered, and ids never indexed', async () => {
    let release: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      release = resolve;
    });
    const known: number[] = []; // never forgets: as stale as a model answering from before a remove()
    const late: RetrieverFactory = () => ({
      name: 'embedding',
      add: (docs: readonly IndexedDoc[]) => void known.push(...docs.map((doc) => doc.id)),
      remove: () => {},
      retrieve: async () => {
        await answered;
        return [...known.map((id) => ({ id, score: 1 })), { id: 10_000, score: 1 }, { id: 0.5, score: 1 }];
      },
    });
    const search = engine({ retrievers: [...DEFAULT_RETRIEVERS.slice(0, 8), late] });
    const pending = search.search('weather forecast', { limit: 50 });
    search.remove(['weather__forecast']);
    release();
    const response = await pending;
    const names = response.results.map((result) => result.name);
    expect(names).not.toContain('weather__forecast');
    expect(names).toHaveLength(TOOLS.length - 1); // every other tool, through the embedding hits
    expect(response.results.every((result) => search.has(result.name))).toBe(true);
  });

  it('fails the search with the error of a lexical strategy, thrown or rejected', async () => {
    for (const retrieve of [
      () => {
        throw new Error('index corrupt');
      },
      async () => {
        throw new Error('index corrupt');
      },
    ]) {
      const broken: RetrieverFactory = () => ({
        name: 'category',
        add: () => {},
        remove: () => {},
        retrieve,
      });
      const search = engine({ retrievers: [...DEFAULT_RETRIEVERS.slice(0, 6), broken] });
      await expect(search.search('weather forecast')).rejects.toThrow('index corrupt');
      expect((await search.search('weather forecast', { disable: ['category'] })).results.length).toBe(1);
    }
  });

  it('awaits a strategy that answers with a promise, and fuses it in its own place', async () => {
    const later: RetrieverFactory = () => ({
      name: 'category',
      add: () => {},
      remove: () => {},
      retrieve: async () => [{ id: 1, score: 1 }],
    });
    const search = engine({ retrievers: [...DEFAULT_RETRIEVERS.slice(0, 6), later] });
    const response = await search.search('weather forecast', { limit: 50 });
    expect(response.strategies.at(-1)).toBe('category');
    const second = response.results.find((result) => result.name === TOOLS[1]!.name);
    expect(second?.matchedBy.map((match) => match.strategy)).toContain('category');
  });

  it('degrades instead of failing when the embedding retriever throws', async () => {
    const failing: RetrieverFactory = () => ({
      name: 'embedding',
      add: () => {},
      remove: () => {},
      retrieve: async () => {
        throw new Error('model crashed');
      },
    });
    const search = engine({ retrievers: [...DEFAULT_RETRIEVERS.slice(0, 8), failing] });
    const response = await search.search('weather forecast');
    expect(response.degraded).toBe('embedding-unavailable');
    expect(response.results[0]?.name).toBe('weather__forecast');
  });
});
