import { describe, expect, it } from 'vitest';
import { ToolSearch } from '../src/index.js';
import { buildKeyTable, KeyTable } from '../src/retrieval/key-table.js';
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
});
