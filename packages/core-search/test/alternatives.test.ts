import { describe, expect, it } from 'vitest';
import {
  type SearchResponse,
  searchAlternatives,
  ToolSearch,
  ToolSearchError,
  toolsetOf,
} from '../src/index.js';
import { DEFAULTS, fuseResponses } from '../src/internals.js';
import { engine, top } from './helpers.js';

function response(query: string, names: string[]): SearchResponse {
  return {
    query,
    results: names.map((name, i) => ({
      name,
      toolset: toolsetOf({ name }),
      score: 1 / (i + 1),
      summary: name,
      matchedBy: [],
      tool: { name },
    })),
    toolsets: [],
    strategies: ['keyword'],
  };
}

describe('searchAlternatives', () => {
  it('without alternatives is exactly a plain search', async () => {
    const search = engine();
    const plain = await search.search('send an email', { limit: 5 });
    expect(await searchAlternatives(search, 'send an email', [], { limit: 5 })).toEqual(plain);
    expect(await searchAlternatives(search, 'send an email', ['  ', 'Send an email'], { limit: 5 })).toEqual(
      plain,
    );
  });

  it('finds the tool a plain-words alternative names when the query alone misses it', async () => {
    const search = engine();
    const query = 'is the file ok';
    expect((await top(search, query)).slice(0, 1)).not.toEqual(['files__verify_checksum']);
    const fused = await searchAlternatives(search, query, ['verify checksum'], { limit: 5 });
    expect(fused.results[0]?.name).toBe('files__verify_checksum');
    expect(fused.query).toBe(query);
    expect(fused.results.map((r) => r.name)).toContain('github__get_file_contents');
    expect(fused.toolsets[0]?.toolset).toBe('files');
    expect(fused.toolsets.find((t) => t.toolset === 'github')?.toolCount).toBe(3);
  });

  it('ranks first what every phrasing ranks high, with stable ties', () => {
    const fused = fuseResponses(
      [response('q', ['a__x', 'a__y', 'b__z']), response('r', ['b__z', 'a__y', 'a__x'])],
      3,
    );
    // a__x and b__z tie at 1/(k+1) + 1/(k+3), just above a__y's 2/(k+2): the query's own order breaks the tie.
    expect(fused.results.map((r) => r.name)).toEqual(['a__x', 'b__z', 'a__y']);
    expect(fused.toolsets.map((t) => [t.toolset, t.hits])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('compares phrasings as searched: only the first maxQueryChars characters count', async () => {
    const searched: string[] = [];
    const recorder = {
      maxQueryChars: 20,
      search: async (query: string) => {
        searched.push(query);
        return response(query, ['a__x']);
      },
    };
    const head = 'find the weather now';
    expect(head).toHaveLength(20);
    await searchAlternatives(recorder, `${head} in Paris`, [`  ${head.toUpperCase()} in Rome`, 'forecast']);
    // The first alternative reads the same 20 characters as the query (past leading spaces): one search fewer.
    expect(searched).toEqual([`${head} in Paris`, 'forecast']);
    expect(new ToolSearch({ embedding: false, limits: { maxQueryChars: 7 } }).maxQueryChars).toBe(7);
    expect(new ToolSearch({ embedding: false }).maxQueryChars).toBe(DEFAULTS.analysis.maxQueryChars);
  });

  it('refuses more alternatives than the maximum with a typed error', async () => {
    const alternatives = Array.from({ length: DEFAULTS.search.maxAlternatives + 1 }, (_, i) => `need ${i}`);
    const error = await searchAlternatives(engine(), 'q', alternatives).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolSearchError);
    expect((error as ToolSearchError).code).toBe('INVALID_QUERY');
    const typed = await searchAlternatives(engine(), 'q', [3 as unknown as string]).catch((e: unknown) => e);
    expect((typed as ToolSearchError).code).toBe('INVALID_QUERY');
  });
});
