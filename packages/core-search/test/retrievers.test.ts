import { describe, expect, it } from 'vitest';
import { analyzeTool } from '../src/analysis/document.js';
import { analyzeQuery } from '../src/analysis/query.js';
import { type StrategyName, type ToolDefinition, ToolSearch } from '../src/index.js';
import { KeyTable } from '../src/retrieval/key-table.js';
import type { IndexedDoc } from '../src/retriever.js';
import { createExactRetriever, oneEditApart } from '../src/retrievers/exact.js';
import { charNgrams, createNgramRetriever } from '../src/retrievers/ngram.js';
import { engine, REGISTRY_TOOLS, TOOLS, top } from './helpers.js';

const search = engine();

describe('keyword (BM25F)', () => {
  it('finds tools by their words, stemmed', async () => {
    expect((await top(search, 'sending emails', { strategies: ['keyword'] }))[0]).toBe('mail__send_email');
  });

  it('weighs the name above the description', async () => {
    const fielded = new ToolSearch({
      embedding: false,
      tools: [
        { name: 'alpha', description: 'archive archive archive of many things' },
        { name: 'archive', description: 'keeps things' },
      ],
    });
    expect(await top(fielded, 'archive', { strategies: ['keyword'] })).toEqual(['archive', 'alpha']);
  });

  it('indexes schema property names (low weight, still found)', async () => {
    expect(await top(search, 'subject', { strategies: ['keyword'] })).toEqual(['mail__send_email']);
  });
});

describe('tfidf (cosine)', () => {
  it('ranks the tool most about the query terms first', async () => {
    const focused = new ToolSearch({
      embedding: false,
      tools: [
        {
          name: 'one',
          description: 'Convert units, dates, currencies, colours, encodings and also timezones.',
        },
        { name: 'two', description: 'Convert timezones.' },
      ],
    });
    expect(await top(focused, 'convert timezones', { strategies: ['tfidf'] })).toEqual(['two', 'one']);
  });

  it('scores a term searched again, before and after adds, as an engine built with those tools does', async () => {
    // A term searched once per corpus version is scored afresh, the next time its shares are
    // kept, then read: every one of those scores must be the fresh build's, bit for bit.
    const scored = async (engine: ToolSearch, query: string) =>
      (await engine.search(query, { strategies: ['tfidf'], limit: 50 })).results.map((r) => [
        r.name,
        r.score,
      ]);
    const queries = ['send an email message', 'create calendar event', 'email email calendar'];
    const growing = engine({ tools: TOOLS.slice(0, 4) });
    for (let size = 4; size <= TOOLS.length; size++) {
      if (size > 4) growing.add([TOOLS[size - 1]!]);
      const fresh = engine({ tools: TOOLS.slice(0, size) });
      for (let pass = 0; pass < 3; pass++)
        for (const query of queries) expect(await scored(growing, query)).toEqual(await scored(fresh, query));
    }
  });

  it("repairs the shares it kept across adds that move no norm on the grid but the new tools'", async () => {
    // 200 tools: N and the common terms' document frequencies are on the grid's steps
    // (DEFAULTS.tfidf.normGridBits), so most single adds move neither A nor a common term's
    // c(t): a list's shares from before are kept, the new tool's posting (appended) and the
    // documents whose norms moved made again. Each search must score as a fresh build.
    const added = REGISTRY_TOOLS.slice(200, 224);
    // Each added tool's own description is a query its words reach.
    await expectFreshScoresAcrossAdds(
      REGISTRY_TOOLS.slice(0, 200),
      added,
      ['list the files in a directory', 'search the web', ...added.map((t) => t.description ?? t.name)],
      ['tfidf'],
    );
  });
});

describe('posting lists grown across adds', () => {
  it('scores every list read between single adds as a fresh build does, in each lexical strategy', async () => {
    // A list grown by an add's appended postings keeps what was derived from the list it grew
    // from for its first postings (BM25F's entries, TF-IDF's logTfs and shares) and derives
    // only the rest. Common words ("file", "list", "search") grow with nearly every add here,
    // and are read after each.
    const added = REGISTRY_TOOLS.slice(120, 150);
    await expectFreshScoresAcrossAdds(
      REGISTRY_TOOLS.slice(0, 120),
      added,
      [
        'list the files in a directory',
        'search for a file by name',
        'get the list of issues',
        ...added.slice(0, 10).map((t) => t.description ?? t.name),
      ],
      ['keyword', 'tfidf', 'synonyms', 'prefix'],
    );
  });
});

/**
 * Adds `added` one at a time to an engine over `base`, searching `queries` before the first
 * add and after each: every search's raw scores per strategy (explain) must equal those of an
 * engine built afresh with the same tools, bit for bit.
 */
async function expectFreshScoresAcrossAdds(
  base: ToolDefinition[],
  added: ToolDefinition[],
  queries: string[],
  strategies: StrategyName[],
): Promise<void> {
  const raw = async (engine: ToolSearch, query: string) =>
    (await engine.search(query, { strategies, limit: 30, explain: true })).explain!.perStrategy;
  const growing = new ToolSearch({ tools: base, embedding: false });
  const live = [...base];
  for (const query of queries) await growing.search(query, { strategies });
  for (const tool of added) {
    growing.add([tool]);
    live.push(tool);
    const fresh = new ToolSearch({ tools: live, embedding: false });
    for (const query of queries) expect(await raw(growing, query)).toEqual(await raw(fresh, query));
  }
}

describe('synonyms', () => {
  it('expands everyday words to tool vocabulary', async () => {
    expect(await top(search, 'bug', { strategies: ['keyword'] })).toEqual([]);
    const response = await search.search('bug', { strategies: ['synonyms'], explain: true });
    expect(response.results[0]?.name).toBe('github__create_issue');
    expect(response.explain?.analysis.expansions).toContain('issu');
  });

  it('counts expansions for less than the original words', async () => {
    // "checksum" is the user's own word; "bug" -> "issue" is only an expansion.
    expect((await top(search, 'checksum bug', { strategies: ['synonyms'] }))[0]).toBe(
      'files__verify_checksum',
    );
  });

  it('reads idioms as a whole: "file a bug" is not about files', async () => {
    expect(await top(search, 'file a bug', { disable: ['synonyms'] })).not.toContain('github__create_issue');
    expect((await top(search, 'file a bug'))[0]).toBe('github__create_issue');
    const response = await search.search('please file a bug', { explain: true });
    expect(response.explain?.analysis.terms).toEqual(['creat', 'issu', 'report']);
  });

  it('has no opinion when nothing expands', async () => {
    expect(await top(search, 'checksum', { strategies: ['synonyms'] })).toEqual([]);
  });

  it('accepts user synonyms that extend the built-in map', async () => {
    const custom = engine({ synonyms: { meteo: ['weather'] } });
    expect(await top(custom, 'meteo', { strategies: ['synonyms'] })).toEqual(['weather__forecast']);
    expect(await top(custom, 'repo', { strategies: ['synonyms'] })).toContain('github__get_file_contents');
  });
});

describe('fuzzy', () => {
  it.each([
    ['screenshoot', 'browser__take_screenshot'],
    ['calender', 'calendar__list_events'],
    ['verifiy checksum', 'files__verify_checksum'],
    ['mial', 'mail__send_email'], // two swapped letters are one typo
  ])('%s -> %s', async (query, expected) => {
    const names = await top(search, query, { strategies: ['fuzzy'] });
    expect(names.slice(0, 2)).toContain(expected);
  });

  it('leads the fusion when a short query has a misspelt word', async () => {
    // Many tools match "page" literally; only typo matching reads "screenshoot".
    const pages = Array.from({ length: 20 }, (_, i) => ({
      name: `wiki__page_tool_${i}`,
      description: `Wiki page utility number ${i}.`,
    }));
    const crowded = engine({ tools: [...TOOLS, ...pages] });
    expect((await top(crowded, 'screenshoot page'))[0]).toBe('browser__take_screenshot');
    const response = await crowded.search('screenshoot page', { limit: 30 });
    expect(response.strategies).toContain('keyword');
  });

  it('does not match short words loosely', async () => {
    expect(await top(search, 'mai', { strategies: ['fuzzy'] })).toEqual([]);
  });
});

describe('prefix', () => {
  it('completes partial words', async () => {
    expect((await top(search, 'screensh', { strategies: ['prefix'] }))[0]).toBe('browser__take_screenshot');
    expect((await top(search, 'forec', { strategies: ['prefix'] }))[0]).toBe('weather__forecast');
  });

  it('completes a half-typed last word that looks like a stop word', async () => {
    const names = await top(search, 'calendar even', { strategies: ['prefix'] });
    expect(names).toContain('calendar__list_events');
    expect(names).toContain('calendar__create_event');
  });
});

describe('ngram', () => {
  it('matches compounds and glued identifiers', async () => {
    expect((await top(search, 'takescreenshot', { strategies: ['ngram'] }))[0]).toBe(
      'browser__take_screenshot',
    );
    expect((await top(search, 'sendmail', { strategies: ['ngram'] }))[0]).toBe('mail__send_email');
  });

  it('forgets a removed or re-indexed tool', async () => {
    const mirrors = new ToolSearch({
      embedding: false,
      tools: [
        { name: 'a__take_screenshot', description: 'x' },
        { name: 'b__take_screenshot', description: 'x' },
        { name: 'c__save_page', description: 'x' },
      ],
    });
    mirrors.remove(['a__take_screenshot']);
    expect(await top(mirrors, 'takescreenshot', { strategies: ['ngram'] })).toEqual(['b__take_screenshot']);
    mirrors.addPhrasings('b__take_screenshot', ['capture the screen']);
    expect(await top(mirrors, 'takescreenshot', { strategies: ['ngram'] })).toEqual(['b__take_screenshot']);
    mirrors.remove(['b__take_screenshot']);
    expect(await top(mirrors, 'takescreenshot', { strategies: ['ngram'] })).toEqual([]);
  });
});

describe('ngram grams read as numbers', () => {
  // Names of a-z and 0-9 are looked up by gram code, others by gram text: both must score
  // the cosine of charNgrams' sets, through removal, re-adding and a save.
  const names = [
    'take_screenshot',
    'café_crème_order',
    'wetter_für_köln',
    '天气_查询',
    'aaaa_aaaa',
    's3_v2_upload',
    'x',
  ];
  const docs = new Map<number, IndexedDoc>(names.map((name, id) => [id, analyzeTool({ name }, id)]));
  const cosines = (query: string, ids: readonly number[]) => {
    const q = charNgrams(analyzeQuery(query).words);
    return ids
      .map((id) => {
        const d = charNgrams(docs.get(id)!.nameWords);
        const shared = [...q].filter((gram) => d.has(gram)).length;
        return { id, score: shared / Math.sqrt(q.size * d.size) };
      })
      .filter((hit) => hit.score >= 0.3)
      .sort((a, b) => b.score - a.score || a.id - b.id);
  };
  const queries = [
    'takescreenshot',
    'cafe creme',
    'café crème',
    'wetter köln',
    '天气查询',
    'aaaaaa',
    's3 upload',
  ];

  it('scores every name, in any script, as the cosine of its gram set', () => {
    const ngram = createNgramRetriever({ docs });
    ngram.add([...docs.values()]);
    const all = [...docs.keys()];
    for (const query of queries) expect(ngram.retrieve(analyzeQuery(query), 10)).toEqual(cosines(query, all));
  });

  it('forgets removed names and takes them back, and a saved state scores the same', () => {
    const ngram = createNgramRetriever({ docs });
    ngram.add([...docs.values()]);
    ngram.remove([1, 3, 4]);
    for (const query of queries)
      expect(ngram.retrieve(analyzeQuery(query), 10)).toEqual(cosines(query, [0, 2, 5, 6]));
    ngram.add([docs.get(3)!, docs.get(1)!]);
    for (const query of queries)
      expect(ngram.retrieve(analyzeQuery(query), 10)).toEqual(cosines(query, [0, 1, 2, 3, 5, 6]));
    const dense = Int32Array.from(names, (_, id) => id);
    const state = ngram.exportState!(dense)!;
    expect(state.strings?.grams).toEqual([...new Set(state.strings?.grams)]);
    const loaded = createNgramRetriever({ docs });
    expect(loaded.importState!(state, names.length)).toBe(true);
    for (const query of queries)
      expect(loaded.retrieve(analyzeQuery(query), 10)).toEqual(ngram.retrieve(analyzeQuery(query), 10));
    // Adding to a loaded state copies the saved lists it grows, never writes into them.
    const saved = Int32Array.from(state.arrays!.ids as Int32Array);
    loaded.add([docs.get(4)!]);
    for (const query of queries)
      expect(loaded.retrieve(analyzeQuery(query), 10)).toEqual(cosines(query, [...docs.keys()]));
    expect(state.arrays!.ids).toEqual(saved);
  });

  it('indexes documents sharing one nameWords array (mirrors of a bare name) as it indexes copies', () => {
    // Mirrors of the names, some in the same add as their first holder, some in a later one.
    const mirrored = [...names, ...names.map((name) => `mirror__${name}`), 'other__take_screenshot'];
    const shared = new Map(mirrored.map((name, id) => [id, analyzeTool({ name }, id)] as const));
    expect(shared.get(names.length)!.nameWords).toBe(shared.get(0)!.nameWords);
    const copies = new Map(
      [...shared].map(([id, doc]) => [id, { ...doc, nameWords: [...doc.nameWords] }] as const),
    );
    const sharing = createNgramRetriever({ docs: shared });
    sharing.add([...shared.values()].slice(0, 10));
    sharing.add([...shared.values()].slice(10));
    const copied = createNgramRetriever({ docs: copies });
    for (const doc of copies.values()) copied.add([doc]);
    const dense = Int32Array.from(mirrored, (_, id) => id);
    expect(sharing.exportState!(dense)).toEqual(copied.exportState!(dense));
    for (const query of queries)
      expect(sharing.retrieve(analyzeQuery(query), 20)).toEqual(copied.retrieve(analyzeQuery(query), 20));
  });
});

describe('category', () => {
  it('boosts every tool of a toolset the query names, equally', async () => {
    const response = await search.search('github', { strategies: ['category'], limit: 10 });
    expect(response.results.map((r) => r.name).sort()).toEqual([
      'github__create_issue',
      'github__get_file_contents',
      'github__list_pull_requests',
    ]);
    expect(new Set(response.results.map((r) => r.matchedBy[0]!.rank))).toEqual(new Set([1]));
  });

  it('forgets removed tools, and a toolset once it is empty; a re-indexed tool stays', async () => {
    const toolsets = new ToolSearch({
      embedding: false,
      tools: [
        { name: 'github__create_issue', description: 'x' },
        { name: 'github__list_issues', description: 'x' },
        { name: 'slack__post_message', description: 'x' },
      ],
    });
    const named = async (query: string) =>
      (await top(toolsets, query, { strategies: ['category'], limit: 10 })).sort();
    toolsets.remove(['github__create_issue']);
    expect(await named('github')).toEqual(['github__list_issues']);
    toolsets.addPhrasings('github__list_issues', ['open bugs']); // re-indexed under the same id
    expect(await named('github')).toEqual(['github__list_issues']);
    toolsets.add([{ name: 'github__create_issue', description: 'back' }]);
    expect(await named('github')).toEqual(['github__create_issue', 'github__list_issues']);
    toolsets.remove(['github__create_issue', 'github__list_issues']);
    toolsets.add([{ name: 'gitlab__list_issues', description: 'x' }]);
    expect(await named('github')).toEqual([]);
    expect(await named('slack')).toEqual(['slack__post_message']);
  });

  it('stays silent for natural-language queries (ordinary words are toolset names too)', async () => {
    const response = await search.search('what will the weather be like in paris next week', { limit: 10 });
    expect(response.strategies).not.toContain('category');
  });
});

describe('oneEditApart', () => {
  it.each([
    ['navigate', 'naviagte', true],
    ['navigate', 'navigte', true],
    ['navigate', 'navigatte', true],
    ['navigate', 'novigate', true],
    ['navigate', 'navigate', false],
    ['navigate', 'nagivate', false],
    ['navigate', 'navi', false],
  ])('%s / %s -> %s', (a, b, expected) => {
    expect(oneEditApart(a, b)).toBe(expected);
    expect(oneEditApart(b, a)).toBe(expected);
  });
});

describe('exact', () => {
  it('pins a tool whose name is the query, in any case style', async () => {
    for (const query of ['send_email', 'sendEmail', 'mail__send_email', 'mail send_email', 'SEND-EMAIL']) {
      const response = await search.search(query, { strategies: ['exact'] });
      expect(response.results.map((r) => r.name)).toEqual(['mail__send_email']);
    }
  });

  it('ranks the exact name first even against strong keyword evidence', async () => {
    const names = await top(search, 'forecast');
    expect(names[0]).toBe('weather__forecast');
    const loud = engine({ weights: { keyword: 50, exact: 0.01 } });
    expect((await top(loud, 'navigate'))[0]).toBe('browser__navigate');
  });

  it('tolerates one typo in a long identifier when only one name is that close', async () => {
    for (const [query, name] of [
      ['get_file_contants', 'github__get_file_contents'],
      ['get_flie_contents', 'github__get_file_contents'],
      ['sned_email', 'mail__send_email'],
    ]) {
      const response = await search.search(query!, { strategies: ['exact'] });
      expect(response.results.map((r) => r.name)).toEqual([name]);
    }
    const response = await search.search('get_file_contants', { strategies: ['exact'] });
    expect(response.results.map((r) => r.name)).toEqual(['github__get_file_contents']);
    expect((await top(search, 'get_file_contants'))[0]).toBe('github__get_file_contents');
  });

  it('pins every tool sharing a name, and forgets removed and re-indexed ones', async () => {
    const tools = ['a', 'b', 'c', 'd'].map((server) => ({
      name: `${server}__get_weather`,
      description: 'x',
    }));
    const mirrors = new ToolSearch({ embedding: false, tools: [...tools, { name: 'e__get_time' }] });
    const pinned = async (query: string) =>
      (await mirrors.search(query, { strategies: ['exact'] })).results.map((r) => r.name);
    expect(await pinned('get_weather')).toEqual(tools.map((t) => t.name));
    mirrors.remove(['b__get_weather', 'd__get_weather']);
    expect(await pinned('getWeather')).toEqual(['a__get_weather', 'c__get_weather']);
    mirrors.addPhrasings('a__get_weather', ['is it raining']); // re-indexed under the same id
    expect(await pinned('get_weather')).toEqual(['a__get_weather', 'c__get_weather']);
    mirrors.remove(['c__get_weather']);
    expect(await pinned('get weather')).toEqual(['a__get_weather']);
    expect(await pinned('get_waether')).toEqual(['a__get_weather']); // the typo path reads the same ids
    mirrors.remove(['a__get_weather']);
    expect(await pinned('get_weather')).toEqual([]);
    mirrors.add([{ name: 'b__get_weather', description: 'back' }]);
    expect(await pinned('get_weather')).toEqual(['b__get_weather']);
  });

  it('pins by the server and toolset as written and as people say them, ASCII or not', async () => {
    const tools = [
      { name: 'mcp-server-github__create_issue' }, // spoken "github", not its own key
      { name: 'weather__forecast', toolset: 'weather' }, // spoken as written
      { name: 'maps__café_finder', toolset: 'maps' }, // a bare name beyond ASCII
      { name: 'echo__', toolset: 'misc' }, // no bare part: the name is its own key
      { name: 'Ｗｉｋｉ__search_pages', toolset: 'Ｗｉｋｉ' }, // a server beyond ASCII
    ];
    const registry = new ToolSearch({ embedding: false, tools });
    const pinned = async (query: string) =>
      (await registry.search(query, { strategies: ['exact'] })).results.map((r) => r.name);
    for (const [query, name] of [
      ['github create_issue', 'mcp-server-github__create_issue'],
      ['mcp-server-github create issue', 'mcp-server-github__create_issue'],
      ['weather forecast', 'weather__forecast'],
      ['maps café finder', 'maps__café_finder'],
      ['café_finder', 'maps__café_finder'],
      ['echo echo__', 'echo__'],
      ['echo', 'echo__'],
      ['wiki search_pages', 'Ｗｉｋｉ__search_pages'],
    ] as const)
      expect(await pinned(query), query).toEqual([name]);
  });

  it('saves keys by first id, then bytes, each with its ids ascending, however they were added', () => {
    const tools = [
      { name: 'a__create_issue' },
      { name: 'create_issue', toolset: 'a', title: 'Open' },
      { name: 'b__create_issue', title: 'a create issue' },
      { name: 'é__créer' },
    ];
    const docs = new Map<number, IndexedDoc>(tools.map((tool, id) => [id, analyzeTool(tool, id)]));
    const exact = createExactRetriever({ docs });
    exact.add([...docs.values()]);
    // Re-indexed under its id (as addPhrasings does): its id comes last in its keys' lists.
    exact.remove([0]);
    exact.add([docs.get(0)!]);
    const dense = Int32Array.from(tools.keys());
    const { keys, keyStarts, slots, starts, ids } = exact.exportState!(dense)!.arrays as Record<
      string,
      Int32Array
    > & { keys: Uint8Array };
    const listed = new KeyTable({ keys, starts: keyStarts!, slots: slots! }, 'test').allKeys();
    const idsOf = (k: number) => Array.from(ids!.subarray(starts![k], starts![k + 1]));
    expect(listed.map((key, k) => [key, idsOf(k)])).toEqual([
      ['acreateissue', [0, 1, 2]],
      ['createissue', [0, 1, 2]],
      ['open', [1]],
      ['bcreateissue', [2]],
      ['créer', [3]],
      ['écréer', [3]],
    ]);
  });

  it('does not pin a near miss, and ignores typos in short names', async () => {
    expect(await top(search, 'clik', { strategies: ['exact'] })).toEqual([]);
    const near = await search.search('sned_email', { strategies: ['exact'] });
    expect(near.results[0]?.matchedBy[0]?.score).toBeLessThan(1);
  });
});
