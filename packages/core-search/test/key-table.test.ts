import { describe, expect, it } from 'vitest';
import { ToolSearch } from '../src/index.js';
import {
  buildKeyTable,
  compareNumberedKeys,
  KeyTable,
  numberKeys,
  orderedKeyTable,
} from '../src/retrieval/key-table.js';
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

  it('numbers keys given in two parts as the joined keys, each once, and tables them in any order', () => {
    const list = keys(2000);
    const next = random(5);
    // Every key given whole and split at random points, some twice: equal keys, one number.
    const heads: string[] = [];
    const tails: string[] = [];
    for (const key of [...list, ...list.slice(0, 500)]) {
      const chars = [...key];
      const at = Math.floor(next() * (chars.length + 1));
      heads.push(chars.slice(0, at).join(''));
      tails.push(chars.slice(at).join(''));
    }
    const numbered = numberKeys(heads, tails);
    expect(numbered.firsts).toHaveLength(list.length);
    heads.forEach((head, i) => {
      expect(list[numbered.numbers[i]!]).toBe(head + tails[i]);
      expect(numbered.firsts[numbered.numbers[i]!]).toBe(list.indexOf(head + tails[i]));
    });
    // Ordered by bytes: code point order, as the sorted keys (no surrogates compare out of order here).
    const order = Int32Array.from(list.keys()).sort((a, b) => compareNumberedKeys(numbered, a, b));
    const byCodePoints = [...list].sort((a, b) => {
      const [x, y] = [[...a].map((c) => c.codePointAt(0)!), [...b].map((c) => c.codePointAt(0)!)];
      for (let i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    });
    expect(Array.from(order, (n) => list[n])).toEqual(byCodePoints);
    const table = new KeyTable(orderedKeyTable(numbered, order), 'test');
    expect(table.allKeys()).toEqual(byCodePoints);
    byCodePoints.forEach((key, k) => {
      expect(table.find(key)).toBe(k);
    });
  });

  it('refuses arrays that could send a lookup out of bounds or round forever: at once, as a probe reads them, or in full before every key is read', () => {
    const good = buildKeyTable(['one', 'two', 'three']);
    const table = (change: Partial<typeof good>) => new KeyTable({ ...good, ...change }, 'exact');
    for (const [change, message] of [
      [{ starts: Int32Array.from([0, 3, 6, 99]) }, /key starts must run from 0 to 11/],
      [{ slots: Int32Array.from([0, 1, 2]) }, /3 slots for 3 keys/],
    ] as const) {
      const error = caught(() => table(change));
      expect(error.code).toBe('INVALID_INDEX');
      expect(error.message).toMatch(message);
    }
    const full = Int32Array.from([0, 1, 2, 2]);
    for (const [change, message] of [
      [{ starts: Int32Array.from([0, 3, 2, 11]) }, /key starts decrease at 2/],
      [{ slots: full }, /names key 2 .* twice/],
      [{ slots: Int32Array.from([0, 1, 2, 7, -1, -1, -1, -1]) }, /slot 3 names key 7/],
    ] as const) {
      const forged = table(change);
      // A lookup ends, in bounds: a key number of the table, -1, or INVALID_INDEX.
      for (const key of ['one', 'two', 'three', 'four', '']) {
        try {
          const k = forged.find(key);
          expect(k >= -1 && k < 3).toBe(true);
        } catch (error) {
          expect((error as { code?: string }).code).toBe('INVALID_INDEX');
        }
      }
      for (const read of [() => forged.allKeys(), () => forged.key(0), () => forged.arrays()]) {
        const error = caught(read);
        expect(error.code).toBe('INVALID_INDEX');
        expect(error.message).toMatch(message);
      }
    }
    // Every slot taken (one key in all of them): a missing key's probe ends.
    const error = caught(() => table({ slots: Int32Array.from([0, 0, 0, 0]) }).find('four'));
    expect(error.code).toBe('INVALID_INDEX');
  });
});

describe('exact after a load', () => {
  const tools = [
    { name: 'github__create_issue', description: 'Open an issue' },
    { name: 'gitlab__create_issue', description: 'Open an issue in GitLab' },
    { name: 'slack__send_message', description: 'Post to a channel' },
    { name: 'mail__send_message', title: 'Envoyer un e-mail', description: 'Send an email' },
  ];
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
  it('ranks and saves alike whether a "server tool" key is held whole (loaded) or as its parts (added)', async () => {
    // Servers, toolsets, titles and bare names whose keys collide: "crea" + "te_issue" and
    // "cre" + "ate_issue" are both "createissue", the bare key of "create_issue", and a title.
    const servers = ['crea', 'cre', 'git', 'github', 'mcp-server-git', 'ü'];
    const bares = ['create_issue', 'te_issue', 'ate_issue', 'hub_create_issue', 'issue', 'créer'];
    const next = random(17);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    const seen = new Set<string>();
    const make = (count: number) => {
      const made: { name: string; toolset?: string; title?: string }[] = [];
      while (made.length < count) {
        const name = next() < 0.8 ? `${pick(servers)}__${pick(bares)}` : pick(bares);
        if (seen.has(name)) continue;
        seen.add(name);
        made.push({
          name,
          ...(next() < 0.5 ? { toolset: pick([...servers, 'git hub']) } : {}),
          ...(next() < 0.3 ? { title: pick(['Create issue', 'crea te issue', 'GitHub create issue']) } : {}),
        });
      }
      return made;
    };
    const first = make(24);
    const built = new ToolSearch({ tools: first, embedding: false });
    const loaded = ToolSearch.load(built.toBytes(), { embedding: false });
    const queries = [
      ...servers.flatMap((server) => bares.flatMap((bare) => [`${server} ${bare}`, `${server}__${bare}`])),
      ...bares,
      'createissue',
      'git hub create issue',
      'create_isue', // one typo away
      'crea te_isue',
    ];
    const exact = async (engine: ToolSearch) =>
      Promise.all(
        queries.map(async (query) =>
          (await engine.search(query, { strategies: ['exact'], limit: 50 })).results.map((r) => [
            r.name,
            r.score,
          ]),
        ),
      );
    expect(await exact(loaded)).toEqual(await exact(built));
    // Loaded keys stay whole, added ones are held as parts: the same key both ways.
    const removed = first.filter(() => next() < 0.3).map((tool) => tool.name);
    const added = make(12);
    for (const engine of [built, loaded]) {
      engine.remove(removed);
      engine.add(added);
    }
    const answers = await exact(built);
    expect(await exact(loaded)).toEqual(answers);
    expect(answers.filter((names) => names.length > 1).length).toBeGreaterThan(5);
    expect(loaded.toBytes()).toEqual(built.toBytes());
    // And as a fresh engine of the same tools.
    const fresh = new ToolSearch({
      tools: [...first.filter((t) => !removed.includes(t.name)), ...added],
      embedding: false,
    });
    expect(await exact(fresh)).toEqual(answers);
  });
  it('saves the keys in one order however they are held', () => {
    // Removing the first tool leaves its keys to the second: the built engine holds
    // "acreateissue" as parts, the loaded one whole, and both save it among the second's keys.
    const tools = [
      { name: 'a__create_issue', description: 'Open an issue' },
      { name: 'create_issue', toolset: 'a', title: 'Open', description: 'Open an issue too' },
      { name: 'b__close_issue', description: 'Close an issue' },
    ];
    const built = new ToolSearch({ tools, embedding: false });
    const loaded = ToolSearch.load(built.toBytes(), { embedding: false });
    for (const engine of [built, loaded]) engine.remove(['a__create_issue']);
    expect(loaded.toBytes()).toEqual(built.toBytes());
  });

  it('keeps a key for typos while it is held either way', async () => {
    const built = new ToolSearch({
      tools: [{ name: 'a__create_issue', description: 'Open an issue' }],
      embedding: false,
    });
    const loaded = ToolSearch.load(built.toBytes(), { embedding: false });
    const typo = async (engine: ToolSearch) =>
      (await engine.search('a__create_isue', { strategies: ['exact'] })).results.map((r) => r.name);
    expect(await typo(loaded)).toEqual(['a__create_issue']);
    // "acreateissue" is then held whole (loaded) and as parts (added); removing the whole one keeps it.
    loaded.add([{ name: 'create_issue', toolset: 'a', description: 'Open an issue too' }]);
    loaded.remove(['a__create_issue']);
    expect(await typo(loaded)).toEqual(['create_issue']);
  });
});
