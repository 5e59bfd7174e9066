import { describe, expect, it } from 'vitest';
import { closestNames, ToolSearch } from '../src/index.js';

// The one did-you-mean rule for unknown names: the engine's UNKNOWN_TOOLSET error and the MCP
// adapter's (Catalog.suggestToolsets) both use it.
describe('closestNames (did-you-mean)', () => {
  const known = ['server-github', 'filesystem', 'git', 'gitlab', 'mail', 'memory', 'weather'];

  it('offers names within max(2, length/3) edits, ignoring case, nearest first, ties by name', () => {
    expect(closestNames('filesystm', known, 3)).toEqual(['filesystem']);
    expect(closestNames('FileSystem', known, 3)).toEqual(['filesystem']);
    // "gti": git at 2 edits; gitlab (4) is too far for a 3-letter name.
    expect(closestNames('gti', known, 3)).toEqual(['git']);
    // "mial" is 2 edits from mail (a transposition) and 3 from memory: one typo allowed, not a new word.
    expect(closestNames('mial', known, 3)).toEqual(['mail']);
    // Ties (git and gitlab, both containing "git") break by distance, then name.
    expect(closestNames('git', known, 5)).toEqual(['git', 'gitlab', 'server-github']);
  });

  it('offers names that contain the wanted one, however long they are', () => {
    expect(closestNames('mem', known, 3)).toEqual(['memory']);
    // Containment admits a name; distance still orders it ("gitlab" is 2 edits from "github").
    expect(closestNames('github', known, 3)).toEqual(['gitlab', 'server-github']);
  });

  it('returns at most limit names, nothing for a name close to none, and nothing for an empty name', () => {
    expect(closestNames('git', known, 1)).toEqual(['git']);
    expect(closestNames('spreadsheet', known, 3)).toEqual([]);
    expect(closestNames('', known, 3)).toEqual([]);
  });

  it('compares no name far from it in length: a megabyte-long name answers at once', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `toolset-${i}`);
    expect(closestNames('x'.repeat(1_000_000), many, 3)).toEqual([]);
  });

  it("is the engine's rule for an unknown toolset among many: the close spellings, or says none is close", async () => {
    const tools = Array.from({ length: 30 }, (_, i) => ({ name: `set${i}__tool`, description: 'A tool.' }));
    const engine = new ToolSearch({
      tools: [...tools, { name: 'weather__forecast', description: 'Forecast.' }],
      embedding: false,
    });
    await expect(engine.search('x', { toolsets: ['wether'] })).rejects.toMatchObject({
      code: 'UNKNOWN_TOOLSET',
      message:
        'toolsearch: unknown toolset "wether"; known: weather (the closest in spelling of 31 toolsets)',
    });
    await expect(engine.search('x', { toolsets: ['spreadsheet'] })).rejects.toMatchObject({
      code: 'UNKNOWN_TOOLSET',
      message: 'toolsearch: unknown toolset "spreadsheet"; known: 31 toolsets, none spelled like it',
    });
  });
});
