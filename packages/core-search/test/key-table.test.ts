import { describe, expect, it } from 'vitest';
import { ToolSearch } from '../src/index.js';
import { buildKeyTable, KeyTable, KeyTableBuilder } from '../src/retrieval/key-table.js';
import { caught, random } from './helpers.js';

/** Keys of every kind: ASCII, accented, emoji (surrogate pairs), the empty string, shared prefixes. */
function keys(count: number): string[] {
  const next = random(11);
  const alphabet = ['a', 'b', 'z', '0', '_', 'é', 'ß', '日', '😀'];
  const out = new Set<string>(['', 'a', 'ab', 'abc']);
  while (out.size < count) {
    let key = '';
    const length = 1 + Math.floor(next() * 12);
    for (let i = 0; i < length; i++) key += alphabet[Math.floor(next() * alphabet.length)];
    out.add(key);
  }
  return [...out];
}

/** Tools whose exact keys share a bare name, a title, and non-ASCII names. */
const EXACT_TOOLS = [
  { name: 'github__create_issue', description: 'Open an issue' },
  { name: 'gitlab__create_issue', description: 'Open an issue in GitLab' },
  { name: 'slack__send_message', description: 'Post to a channel' },
  { name: 'mail__send_message', title: 'Envoyer un e-mail', description: 'Send an email' },
  { name: 'jira__create_issue', description: 'File a ticket' },
  { name: 'café__überprüfen', description: 'Check a café' },
];

describe('KeyTable', () => {
  it('finds every key by its number and no other string', () => {
    const list = keys(3000);
    const table = new KeyTable(buildKeyTable(list), 'test');
    expect(table.size).toBe(list.length);
    list.forEach((key, k) => {
      expect(table.find(key)).toBe(k);
      expect(table.key(k)).toBe(key);
    });
    expect(table.allKeys()).toEqual(list);
    for (const missing of ['abcd', 'é_', '😀😀😀😀😀😀😀😀😀😀😀😀😀', 'A', ' ']) {
      if (!list.includes(missing)) expect(table.find(missing)).toBe(-1);
    }
    const ascii = ['send', 'sendmail', 'mail'];
    expect(new KeyTable(buildKeyTable(ascii), 'test').allKeys()).toEqual(ascii);
    expect(new KeyTable(buildKeyTable([]), 'test').find('x')).toBe(-1);
  });

  it('refuses arrays that could send a lookup out of bounds or round forever', () => {
    const good = buildKeyTable(['one', 'two', 'three']);
    const with_ = (change: Partial<typeof good>) => () => new KeyTable({ ...good, ...change }, 'exact');
    const full = Int32Array.from([0, 1, 2, 2]);
    for (const [forge, message] of [
      [with_({ starts: Int32Array.from([0, 3, 2, 11]) }), /key starts decrease at 2/],
      [with_({ starts: Int32Array.from([0, 3, 6, 99]) }), /key starts must run from 0 to 11/],
      [with_({ slots: full }), /names key 2 .* twice/],
      [with_({ slots: Int32Array.from([0, 1, 2]) }), /3 slots for 3 keys/],
      [with_({ slots: Int32Array.from([0, 1, 2, 7, -1, -1, -1, -1]) }), /slot 3 names key 7/],
    ] as const) {
      const error = caught(forge);
      expect(error.code).toBe('INVALID_INDEX');
      expect(error.message).toMatch(message);
    }
  });
});

describe('KeyTableBuilder', () => {
  it('numbers keys given in two parts as buildKeyTable numbers the joined keys, repeats included', () => {
    const list = keys(2000);
    const builder = new KeyTableBuilder();
    const joined: string[] = [];
    const next = random(5);
    for (let i = 0; i < 5000; i++) {
      // Fresh keys in order, with earlier ones repeated between them, split anywhere.
      const key =
        i % 3 === 2 && joined.length > 0 ? joined[Math.floor(next() * joined.length)]! : list[joined.length];
      if (key === undefined) break;
      // Split between code points, as exact's parts are whole keys.
      let at = Math.floor(next() * (key.length + 1));
      if (at > 0 && at < key.length && /[\ud800-\udbff]/.test(key[at - 1]!)) at++;
      const k = builder.add(key.slice(0, at), key.slice(at));
      if (k === joined.length) joined.push(key);
      expect(joined[k]).toBe(key);
    }
    expect(builder.size).toBe(joined.length);
    expect(builder.finish()).toEqual(buildKeyTable(joined));
    expect(new KeyTableBuilder().finish()).toEqual(buildKeyTable([]));
  });
});

describe('exact built into a key table', () => {
  const tools = EXACT_TOOLS;
  const names = async (engine: ToolSearch, query: string) =>
    (await engine.search(query, { limit: 5 })).results.map((r) => [r.name, r.score, r.matchedBy]);
  const queries = [
    'create_issue',
    'github create issue',
    'Envoyer un e-mail',
    'send_mesage',
    'jira create_issue',
    'café überprüfen',
    'slack',
  ];

  it('answers alike, also once saved and loaded, whether tools came in one add or several, through removes and typos', async () => {
    const once = new ToolSearch({ tools, embedding: false });
    const parts = new ToolSearch({ tools: tools.slice(0, 2), embedding: false });
    parts.add(tools.slice(2, 3));
    parts.add(tools.slice(3));
    const single = new ToolSearch({ tools: [], embedding: false });
    for (const tool of tools) single.add([tool]);
    const loaded = (engine: ToolSearch) => ToolSearch.load(engine.toBytes(), { embedding: false });
    for (const engine of [parts, single, loaded(parts), loaded(single)])
      for (const query of queries) expect(await names(engine, query)).toEqual(await names(once, query));
    // A typo lookup before an add: the keys by length, then kept in step with the add.
    const typoFirst = new ToolSearch({ tools: tools.slice(0, 4), embedding: false });
    const exactHits = async (engine: ToolSearch, query: string) =>
      (await engine.search(query, { limit: 5 })).results
        .filter((r) => r.matchedBy.some((m) => m.strategy === 'exact'))
        .map((r) => r.name)
        .sort();
    expect(await exactHits(typoFirst, 'send_mesage')).toEqual(['mail__send_message', 'slack__send_message']);
    typoFirst.add(tools.slice(4));
    for (const query of [...queries, 'jira_create_isue'])
      expect(await names(typoFirst, query)).toEqual(await names(once, query));
    expect((await names(once, 'jira_create_isue'))[0]?.[0]).toBe('jira__create_issue');
    for (const engine of [once, parts]) engine.remove(['gitlab__create_issue']);
    for (const engine of [parts, loaded(parts)])
      for (const query of [...queries, 'gitlab__create_issue'])
        expect(await names(engine, query)).toEqual(await names(once, query));
  });
});

describe('exact after a load', () => {
  const tools = EXACT_TOOLS.slice(0, 4);
  const names = async (engine: ToolSearch, query: string) =>
    (await engine.search(query, { limit: 5 })).results.map((r) => [r.name, r.score, r.matchedBy]);

  it('answers from the saved keys, then as the built engine through adds, removes and typos', async () => {
    const built = new ToolSearch({ tools, embedding: false });
    const loaded = ToolSearch.load(built.toBytes(), { embedding: false });
    const queries = ['create_issue', 'github create issue', 'Envoyer un e-mail', 'send_mesage', 'slack'];
    for (const query of queries) expect(await names(loaded, query)).toEqual(await names(built, query));
    for (const engine of [built, loaded]) {
      engine.remove(['gitlab__create_issue']);
      engine.add([{ name: 'jira__create_issue', description: 'File a ticket' }]);
    }
    for (const query of [...queries, 'jira create_issue', 'gitlab__create_issue'])
      expect(await names(loaded, query)).toEqual(await names(built, query));
    expect(loaded.toBytes()).toEqual(built.toBytes());
  });
});
