import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Dataset } from '../src/dataset.js';
import { evaluate, evaluateLeaveOneServerOut } from '../src/eval/evaluate.js';
import {
  PhrasingPack,
  parsePackFile,
  readPackFile,
  type ToolDefinition,
  ToolSearch,
  ToolSearchError,
} from '../src/index.js';
import { shippedPackDir } from '../src/internals.js';

const registry = (
  JSON.parse(readFileSync(new URL('../../../fixtures/registry/tools.json', import.meta.url), 'utf8')) as {
    tools: (ToolDefinition & { meta: { server: string; toolName: string } })[];
  }
).tools;

const READ = registry.find(
  (t) => t.meta.server === 'server-filesystem' && t.meta.toolName === 'read_text_file',
)!;
const READ_PHRASINGS = readPackFile(join(shippedPackDir(), 'server-filesystem.json')).tools.read_text_file!;

/** The registry's read_text_file under another name, as a user's mcp.json would key it. */
const renamed = (name: string): ToolDefinition => ({
  name,
  description: READ.description,
  inputSchema: READ.inputSchema,
});
const DISTRACTORS: ToolDefinition[] = [
  { name: 'notes__create_note', description: 'Create a note with a title and body.' },
  { name: 'web__fetch_page', description: 'Fetch a web page and return its text.' },
];

async function packPhrasingsOf(search: ToolSearch, name: string, query: string) {
  const response = await search.search(query, { explain: true, limit: 50 });
  return (response.explain!.phrasings[name] ?? []).filter((p) => p.source === 'pack');
}

describe('the shipped pack', () => {
  it('has only valid files naming registry tools of their server', () => {
    const files = readdirSync(shippedPackDir()).filter((name) => name.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    const packs = files.map((name) => readPackFile(join(shippedPackDir(), name)));
    for (const [i, pack] of packs.entries()) expect(`${pack.server}.json`).toBe(files[i]);
    expect(() => new PhrasingPack(packs, registry)).not.toThrow();
    expect(PhrasingPack.shipped().servers).toEqual(packs.map((p) => p.server).sort());
  });

  it.each([
    'fs__read_text_file',
    'read_text_file',
    'server-filesystem__read_text_file',
    'My Files__read_text_file',
  ])('applies to %s, whatever the server is called', async (name) => {
    const search = new ToolSearch({ tools: [...DISTRACTORS, renamed(name)], embedding: false });
    const query = READ_PHRASINGS[0]!;
    expect(PhrasingPack.shipped().match(renamed(name))).toMatchObject({
      server: 'server-filesystem',
      toolName: 'read_text_file',
      how: 'exact',
    });
    expect((await search.search(query)).results[0]?.name).toBe(name);
    expect((await packPhrasingsOf(search, name, query)).length).toBeGreaterThan(0);
  });

  it('recognises a reworded description with the same parameters, not a different tool of that name', () => {
    const pack = PhrasingPack.shipped();
    const reworded = {
      ...renamed('x__read_text_file'),
      description: `${READ.description!.split('.')[0]}. Newer version, now faster.`,
    };
    expect(pack.match(reworded)?.server).toBe('server-filesystem');
    const other: ToolDefinition = {
      name: 'tts__read_text_file',
      description: 'Speak a text file aloud with a synthetic voice.',
      inputSchema: { type: 'object', properties: { voice: { type: 'string' }, speed: { type: 'number' } } },
    };
    expect(pack.match(other)).toBeUndefined();
  });

  it("does not give GitHub's create_issue phrasings to GitLab's create_issue", () => {
    const gitlab = registry.find((t) => t.meta.server === 'mcp-gitlab' && t.meta.toolName === 'create_issue');
    const github = registry.find(
      (t) => t.meta.server === 'server-github' && t.meta.toolName === 'create_issue',
    );
    if (!gitlab || !github) throw new Error('the bundled registry lost a create_issue this test relies on');
    expect(PhrasingPack.shipped().match({ ...gitlab, name: 'create_issue' })?.server).not.toBe(
      'server-github',
    );
    expect(PhrasingPack.shipped().match({ ...github, name: 'create_issue' })?.server).toBe('server-github');
  });

  it('can be switched off, or leave servers out', async () => {
    const query = READ_PHRASINGS[0]!;
    for (const pack of [false, { exclude: ['server-filesystem'] }]) {
      const search = new ToolSearch({
        tools: [...DISTRACTORS, renamed('fs__read_text_file')],
        embedding: false,
        pack,
      });
      expect(await packPhrasingsOf(search, 'fs__read_text_file', query)).toEqual([]);
    }
    expect(() => new ToolSearch({ pack: 'yes' as never })).toThrow(ToolSearchError);
  });

  it('survives save/load, and a load with another pack setting re-analyses', async () => {
    const query = READ_PHRASINGS[0]!;
    const search = new ToolSearch({
      tools: [...DISTRACTORS, renamed('fs__read_text_file')],
      embedding: false,
    });
    search.addPhrasings('fs__read_text_file', ['peek into my diary file']);
    const json = JSON.parse(JSON.stringify(search.toJSON()));
    const loaded = ToolSearch.load(json, { embedding: false });
    expect(await packPhrasingsOf(loaded, 'fs__read_text_file', query)).toEqual(
      await packPhrasingsOf(search, 'fs__read_text_file', query),
    );
    const off = ToolSearch.load(json, { embedding: false, pack: false });
    expect(await packPhrasingsOf(off, 'fs__read_text_file', query)).toEqual([]);
    const diary = await off.search('diary', { explain: true });
    expect(diary.explain!.phrasings.fs__read_text_file).toEqual([
      { text: 'peek into my diary file', source: 'added' },
    ]);
  });
});

describe('PhrasingPack from your own data', () => {
  const tools: ToolDefinition[] = [
    {
      name: 'acme__ship',
      description: 'Ship a parcel to an address.',
      inputSchema: { type: 'object', properties: { address: {} } },
      meta: { server: 'acme', toolName: 'ship' },
    },
    {
      name: 'zeta__track',
      description: 'Track where a parcel is.',
      inputSchema: { type: 'object', properties: { id: {} } },
      meta: { server: 'zeta', toolName: 'track' },
    },
  ];
  const pack = new PhrasingPack(
    [
      { server: 'acme', tools: { ship: ['send grandma her birthday present'] } },
      { server: 'zeta', tools: { track: ['where is my birthday present now'] } },
    ],
    tools,
  );
  const stripped = tools.map(({ meta: _meta, ...tool }) => tool);

  it('is used through the pack option', async () => {
    const search = new ToolSearch({ tools: stripped, embedding: false, pack: { source: pack } });
    expect((await search.search('grandma')).results[0]?.name).toBe('acme__ship');
    const off = new ToolSearch({ tools: stripped, embedding: false, pack: false });
    expect((await off.search('grandma')).results).toEqual([]);
  });

  it('rejects a pack naming a tool its registry lacks, and malformed files', () => {
    expect(() => new PhrasingPack([{ server: 'acme', tools: { fly: ['x'] } }], tools)).toThrow(
      expect.objectContaining({ code: 'INVALID_PACK' }),
    );
    for (const [bad, field] of [
      [[], '(file)'],
      [{ tools: {} }, 'server'],
      [{ server: 's', tools: [] }, 'tools'],
      [{ server: 's', tools: { a: ['ok', ''] } }, 'tools.a[1]'],
    ] as const) {
      try {
        parsePackFile(bad, 'x.json');
        expect.unreachable();
      } catch (error) {
        expect((error as ToolSearchError).code).toBe('INVALID_PACK');
        expect((error as ToolSearchError).issues[0]?.field).toBe(field);
      }
    }
  });

  it('leave-one-server-out evaluation removes the pack entries of each query’s own servers', async () => {
    const dataset: Dataset = {
      name: 'loso',
      origin: 'test',
      tools: stripped,
      queries: [
        { id: '1', query: 'send grandma her birthday present', relevant: ['acme__ship'] },
        { id: '2', query: 'where is my birthday present now', relevant: ['zeta__track'] },
      ],
    };
    const excluded: string[][] = [];
    const loso = await evaluateLeaveOneServerOut(
      (exclude) => {
        excluded.push(exclude);
        return new ToolSearch({ embedding: false, pack: { source: pack, exclude } });
      },
      dataset,
      (tool) => pack.match(tool)?.server,
    );
    expect(excluded).toEqual([['acme'], ['zeta']]);
    const full = await evaluate(new ToolSearch({ embedding: false, pack: { source: pack } }), dataset);
    expect(full.metrics['recall@1']).toBe(1);
    expect(loso.metrics['recall@1']).toBeLessThan(full.metrics['recall@1']);
    expect(loso.queries).toBe(2);
  });
});
