import { describe, expect, it } from 'vitest';
import { analyze } from '../src/analysis/analyze.js';
import { DEFAULTS } from '../src/defaults.js';
import { ToolSearch, type ToolSearchError } from '../src/index.js';
import { requestClauses, useTerms } from '../src/learning.js';
import { caught, engine, random, TOOLS, top } from './helpers.js';

// Words no tool of TOOLS uses: only learning can connect them to a tool.
const QUERY = 'ping the grown-ups about saturday';
const DAY = 86_400_000;

async function ranking(search: ToolSearch, query: string) {
  return (await search.search(query, { limit: 10 })).results.map((r) => [r.name, r.score]);
}

describe('learn', () => {
  it('makes a tool findable by what people asked before using it', async () => {
    const search = engine({ pack: false });
    expect(await top(search, QUERY)).not.toContain('mail__send_email');
    expect(search.learn({ query: QUERY, tool: 'mail__send_email' })).toEqual({
      learned: 1,
      unknown: 0,
      unknownTools: [],
    });
    expect((await top(search, QUERY))[0]).toBe('mail__send_email');
  });

  it('ignores and counts uses of tools it does not hold', () => {
    const search = engine({ pack: false });
    const result = search.learn([
      { query: QUERY, tool: 'gone__tool' },
      { query: QUERY, tool: 'gone__tool' },
      { query: QUERY, tool: 'mail__send_email' },
    ]);
    expect(result).toEqual({ learned: 1, unknown: 2, unknownTools: ['gone__tool'] });
    expect(search.learned().map((use) => use.tool)).toEqual(['mail__send_email']);
  });

  it('gives the same ranking for the same uses in any order, in one call or many', async () => {
    const uses = TOOLS.slice(0, 8).flatMap((tool, i) =>
      ['weekend plans for the family', QUERY, `thing number ${i}`].map((query, j) => ({
        query: j === 1 ? QUERY.toUpperCase() : query,
        tool: tool.name,
        count: 1 + ((i + j) % 3),
        lastSeen: 1_700_000_000_000 + i * DAY,
      })),
    );
    const once = engine({ pack: false });
    once.learn(uses);
    const rand = random(7);
    const shuffled = [...uses].sort(() => rand() - 0.5);
    const piecewise = engine({ pack: false });
    for (let i = 0; i < shuffled.length; i += 5) piecewise.learn(shuffled.slice(i, i + 5));
    expect(piecewise.learned()).toEqual(once.learned());
    for (const query of [QUERY, 'weekend plans', 'thing number 3']) {
      expect(await ranking(piecewise, query)).toEqual(await ranking(once, query));
    }
  });

  it('weighs a request by how often it recurs', async () => {
    const search = engine({ pack: false });
    search.learn([
      { query: QUERY, tool: 'calendar__create_event', count: 1 },
      { query: QUERY, tool: 'mail__send_email', count: 40 },
    ]);
    expect((await top(search, QUERY)).slice(0, 2)).toEqual(['mail__send_email', 'calendar__create_event']);
  });

  it('ages requests out by their last use, measured from the newest use seen', () => {
    const { halfLifeDays, minStrength } = DEFAULTS.learning;
    const now = 1_800_000_000_000;
    const tooOld = now - Math.ceil(halfLifeDays * (Math.log2(1 / minStrength) + 1)) * DAY;
    const search = engine({ pack: false });
    search.learn([
      { query: 'an old habit', tool: 'mail__send_email', lastSeen: tooOld },
      { query: 'a recent habit', tool: 'mail__send_email', lastSeen: now - DAY },
    ]);
    expect(search.learned().map((use) => use.query)).toEqual(['a recent habit']);
    // Without a newer use nothing ages: the same old use alone is kept.
    const alone = engine({ pack: false });
    alone.learn({ query: 'an old habit', tool: 'mail__send_email', lastSeen: tooOld });
    expect(alone.learned()).toHaveLength(1);
  });

  it('keeps at most maxPerTool requests per tool, the strongest', () => {
    const { maxPerTool } = DEFAULTS.learning;
    const search = engine({ pack: false });
    search.learn(
      Array.from({ length: maxPerTool + 5 }, (_, i) => ({
        query: `request ${i}`,
        tool: 'mail__send_email',
        count: i + 1,
      })),
    );
    const kept = search.learned();
    expect(kept).toHaveLength(maxPerTool);
    expect(kept.some((use) => use.query === 'request 0')).toBe(false);
    expect(kept.some((use) => use.query === `request ${maxPerTool + 4}`)).toBe(true);
  });

  it('aggregates uses by normalised query and reports them through learned()', () => {
    const search = engine({ pack: false });
    search.learn([
      { query: 'Email  Grandma', tool: 'mail__send_email', lastSeen: 5 },
      { query: 'email grandma', tool: 'mail__send_email', count: 2, lastSeen: 9 },
    ]);
    expect(search.learned()).toEqual([
      { query: 'email grandma', tool: 'mail__send_email', count: 3, lastSeen: 9 },
    ]);
  });

  it('forgets one request, a tool, or everything, back to the unlearned ranking', async () => {
    const fresh = engine({ pack: false });
    const search = engine({ pack: false });
    search.learn([
      { query: QUERY, tool: 'mail__send_email' },
      { query: 'other words entirely', tool: 'mail__send_email' },
      { query: QUERY, tool: 'calendar__create_event' },
    ]);
    expect(search.forget({ tool: 'mail__send_email', query: `  ${QUERY.toUpperCase()} ` })).toBe(1);
    expect(search.learned()).toHaveLength(2);
    expect(search.forget({ tool: 'calendar__create_event' })).toBe(1);
    expect(search.forget()).toBe(1);
    expect(search.learned()).toEqual([]);
    expect(await ranking(search, QUERY)).toEqual(await ranking(fresh, QUERY));
  });

  it('rejects malformed uses naming the field, and learns nothing', () => {
    const search = engine({ pack: false });
    const error: ToolSearchError = caught(() =>
      search.learn([
        { query: QUERY, tool: 'mail__send_email' },
        { query: QUERY, tool: 'mail__send_email', count: 0 },
        { query: '  ', tool: 'mail__send_email', lastSeen: Number.NaN },
      ]),
    );
    expect(error.code).toBe('INVALID_PHRASING');
    expect(error.issues.map((issue) => issue.field)).toEqual([
      'uses[1].count',
      'uses[2].query',
      'uses[2].lastSeen',
    ]);
    expect(search.learned()).toEqual([]);
  });

  it('survives toJSON/load, also when the index must be re-analysed', async () => {
    const search = engine({ pack: false });
    search.learn([
      { query: QUERY, tool: 'mail__send_email', count: 3, lastSeen: 1_700_000_000_000 },
      { query: 'weekend plans', tool: 'calendar__create_event' },
    ]);
    const json = JSON.parse(JSON.stringify(search.toJSON())) as { analyzer: number };
    for (const saved of [json, { ...json, analyzer: -1 }]) {
      const loaded = ToolSearch.load(saved, { embedding: false });
      expect(loaded.learned()).toEqual(search.learned());
      expect(await ranking(loaded, QUERY)).toEqual(await ranking(search, QUERY));
    }
  });

  it('explain lists the learned requests that matched', async () => {
    const search = engine({ pack: false });
    search.learn({ query: QUERY, tool: 'mail__send_email' });
    const response = await search.search('saturday', { explain: true });
    expect(response.explain!.phrasings.mail__send_email).toEqual([{ text: QUERY, source: 'learned' }]);
  });

  it('applies learned uses again to a tool removed and re-added', async () => {
    const search = engine({ pack: false });
    search.learn({ query: QUERY, tool: 'mail__send_email' });
    const tool = search.get('mail__send_email')!;
    search.remove(['mail__send_email']);
    expect(await top(search, QUERY)).not.toContain('mail__send_email');
    search.add([tool]);
    expect((await top(search, QUERY))[0]).toBe('mail__send_email');
  });

  it('teaches each tool of a chained request only the clause about it', async () => {
    // One request, two needs in turn, two tools used: each learns its own part.
    const chained = 'email the grown-ups about the picnic, then add the picnic to the calendar on saturday';
    const search = engine({ pack: false });
    search.learn([
      { query: chained, tool: 'mail__send_email' },
      { query: chained, tool: 'calendar__create_event' },
    ]);
    const explain = await search.search('grown-ups', { explain: true });
    expect(explain.results[0]!.name).toBe('mail__send_email');
    // "grown-ups" was in the mail clause only: the calendar tool did not learn it.
    expect(explain.results.map((r) => r.name)).not.toContain('calendar__create_event');
    expect((await top(search, 'saturday'))[0]).toBe('calendar__create_event');
    expect(await top(search, 'saturday')).not.toContain('mail__send_email');
    // The stored use keeps the whole request (what a store persists is not cut).
    expect(search.learned().map((use) => use.query)).toEqual([chained, chained]);
  });

  it('keeps the whole request when no clause shares a word with the tool', () => {
    const own = new Set(analyze('Send an email message to a recipient'));
    expect(useTerms('ping the grown-ups. then sort out saturday', own)).toEqual(
      analyze('ping the grown-ups. then sort out saturday'),
    );
    expect(useTerms('ping the grown-ups. then email them', own)).toEqual(analyze('email them'));
  });
});

describe('requestClauses', () => {
  it('splits sentences and sequencing words, not ordinary conjunctions', () => {
    expect(requestClauses('Deploy the app. Then, check the logs; finally email the team')).toEqual([
      'Deploy the app',
      'check the logs',
      'email the team',
    ]);
    expect(requestClauses('find and replace text in a file, then save it')).toEqual([
      'find and replace text in a file',
      'save it',
    ]);
    expect(requestClauses('search and replace in readme.md')).toEqual(['search and replace in readme.md']);
  });

  it('stays linear on adversarial input', () => {
    const text = `${'a. then '.repeat(20_000)}x`;
    expect(requestClauses(text).length).toBeGreaterThan(10_000);
  });
});
