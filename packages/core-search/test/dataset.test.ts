import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDataset, readDataset, readTools } from '../src/dataset.js';
import { ToolSearchError } from '../src/errors.js';

const tools = [
  { name: 'git__commit', description: 'Record changes', category: 'git' },
  { name: 'fs__read', description: 'Read a file', category: 'fs', toolset: 'files' },
  { name: 'misc', description: 'No group', category: null },
];

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'toolsearch-dataset-'));
}

function writeJson(path: string, value: unknown): string {
  writeFileSync(path, JSON.stringify(value));
  return path;
}

function errorOf(fn: () => unknown): ToolSearchError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ToolSearchError) return error;
    throw error;
  }
  throw new Error('expected a ToolSearchError');
}

describe('readTools / readDataset', () => {
  it('reads a plain array of tools and maps category to toolset', () => {
    const dir = tempDir();
    const read = readTools(writeJson(join(dir, 'tools.json'), tools));
    expect(read.map((t) => t.toolset)).toEqual(['git', 'files', undefined]);
    expect(read[0]?.description).toBe('Record changes');
  });

  it('reads a tools/list result and a JSON-RPC response', () => {
    const fromList = parseDataset({ tools, nextCursor: 'abc' }, 'list.json');
    expect(fromList.tools.map((t) => t.name)).toEqual(['git__commit', 'fs__read', 'misc']);
    expect(fromList.queries).toEqual([]);
    const fromRpc = parseDataset({ jsonrpc: '2.0', id: 1, result: { tools } }, 'rpc.json');
    expect(fromRpc.tools).toHaveLength(3);
  });

  it('reads a dataset with queries, segments and relevant toolsets', () => {
    const dataset = parseDataset(
      {
        name: 'tiny',
        source: 'hand-written',
        tools,
        queries: [
          { id: 'q1', query: 'commit my work', relevant: ['git__commit'], segment: 'new' },
          { id: 2, query: 'open a file', relevant: ['fs__read'], relevantToolsets: ['files'], subset: 's' },
        ],
      },
      'tiny.json',
    );
    expect(dataset.name).toBe('tiny');
    expect(dataset.source).toBe('hand-written');
    expect(dataset.queries).toEqual([
      { id: 'q1', query: 'commit my work', relevant: ['git__commit'], segment: 'new' },
      { id: '2', query: 'open a file', relevant: ['fs__read'], relevantToolsets: ['files'], subset: 's' },
    ]);
  });

  it('resolves toolsFrom relative to the dataset file', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'registry'));
    writeJson(join(dir, 'registry', 'tools.json'), { name: 'reg', tools, queries: [] });
    mkdirSync(join(dir, 'queries'));
    const path = writeJson(join(dir, 'queries', 'mine.json'), {
      name: 'mine',
      toolsFrom: '../registry/tools.json',
      queries: [{ id: 'a', query: 'commit', relevant: ['git__commit'] }],
    });
    const dataset = readDataset(path);
    expect(dataset.tools).toHaveLength(3);
    expect(dataset.tools[0]?.toolset).toBe('git');
    expect(dataset.queries[0]?.relevant).toEqual(['git__commit']);
  });

  it('names the file and the query index when relevant tools are unknown', () => {
    const error = errorOf(() =>
      parseDataset(
        {
          tools,
          queries: [
            { id: 'ok', query: 'x', relevant: ['misc'] },
            { id: 'bad', query: 'y', relevant: ['nope', 'misc', 'gone'] },
          ],
        },
        'set.json',
      ),
    );
    expect(error.code).toBe('INVALID_DATASET');
    expect(error.message).toMatch(/^toolsearch: set\.json: queries\[1\]\.relevant .*nope, gone/);
    expect(error.issues).toEqual([expect.objectContaining({ index: 1, field: 'queries[1].relevant' })]);
  });

  it('reports every malformed query field', () => {
    const error = errorOf(() =>
      parseDataset(
        {
          tools,
          queries: [
            { id: 'a', query: '', relevant: ['misc'] },
            { id: 'b', query: 'q', relevant: [] },
            { id: 'a', query: 'q', relevant: ['misc'] },
            { query: 'q', relevant: ['misc'] },
          ],
        },
        'bad.json',
      ),
    );
    expect(error.issues.map((i) => i.field)).toEqual([
      'queries[0].query',
      'queries[1].relevant',
      'queries[2].id',
      'queries[3].id',
    ]);
  });

  it('rejects files that are not tools or datasets', () => {
    const dir = tempDir();
    expect(errorOf(() => readTools(join(dir, 'missing.json'))).message).toMatch(
      /missing\.json: cannot be read/,
    );
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ nope');
    expect(errorOf(() => readTools(broken)).message).toMatch(/broken\.json: is not valid JSON/);
    expect(errorOf(() => parseDataset({ hello: 1 }, 'x.json')).message).toMatch(
      /neither "tools" nor "toolsFrom"/,
    );
    expect(errorOf(() => parseDataset([{ name: 'a' }, { description: 'no name' }], 'y.json')).issues).toEqual(
      [expect.objectContaining({ index: 1, field: 'tools[1].name' })],
    );
    expect(errorOf(() => parseDataset('text', 'z.json')).code).toBe('INVALID_DATASET');
  });
});
