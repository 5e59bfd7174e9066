/** The token report without a gateway: a catalog and each upstream's own tools/list. */
import { describe, expect, it } from 'vitest';
import { Catalog } from '../src/catalog.js';
import { META_TOOLS } from '../src/meta-tools.js';
import { catalogTokenReport } from '../src/report.js';
import { countToolListTokens } from '../src/tokens.js';

const schema = { type: 'object' as const, properties: { path: { type: 'string' } } };
const files = [
  { name: 'read_file', description: 'Read the contents of a file from disk.', inputSchema: schema },
  { name: 'write_file', description: 'Write text to a file on disk, replacing it.', inputSchema: schema },
];
const notes = [{ name: 'add_note', description: 'Add a note to the notebook.', inputSchema: schema }];

function catalogOf(lists: Record<string, typeof files>): Catalog {
  const catalog = new Catalog({ engine: { embedding: false }, log: () => {} });
  for (const [upstream, tools] of Object.entries(lists))
    catalog.setToolset(
      upstream,
      tools.map((t) => ({ ...t, name: `${upstream}__${t.name}` })),
    );
  return catalog;
}

describe('catalogTokenReport', () => {
  it('sums each upstream list as listed, and counts the lazy lists from the meta-tools up', async () => {
    const catalog = catalogOf({ fs: files, notes });
    const report = await catalogTokenReport(catalog, [files, notes], [], 'read a file');
    expect(report.upstreams).toBe(2);
    expect(report.tools).toBe(3);
    expect(report.eager).toBe(countToolListTokens(files) + countToolListTokens(notes));
    expect(report.metaTools).toBe(countToolListTokens(META_TOOLS));
    expect(report.lazyInitial).toBe(report.metaTools);
    const fs = report.afterLoad.find((l) => l.toolset === 'fs')!;
    expect(fs.tools).toBe(2);
    expect(fs.tokens).toBe(
      countToolListTokens([...META_TOOLS, ...files.map((t) => catalog.get(`fs__${t.name}`)!.definition)]),
    );
    expect(report.search.query).toBe('read a file');
    expect(report.search.hits).toBeGreaterThanOrEqual(1);
    expect(report.search.hits).toBeLessThanOrEqual(5);
    expect(report.search.tokens).toBeGreaterThan(0);
  });

  it('counts always-loaded tools in the initial list', async () => {
    const catalog = catalogOf({ fs: files, notes });
    const without = await catalogTokenReport(catalog, [files, notes], [], 'note');
    const withNote = await catalogTokenReport(catalog, [files, notes], ['notes__add_note'], 'note');
    expect(withNote.lazyInitial).toBe(
      countToolListTokens([...META_TOOLS, catalog.get('notes__add_note')!.definition]),
    );
    expect(withNote.lazyInitial).toBeGreaterThan(without.lazyInitial);
  });
});
