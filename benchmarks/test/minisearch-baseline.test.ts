import type { ToolDefinition } from '@toolsearch/core-search';
import { describe, expect, it } from 'vitest';
import { MiniSearchBaseline, splitName } from '../src/minisearch-baseline.js';

const tools: ToolDefinition[] = [
  { name: 'browser__takeScreenshot', description: 'Capture an image of the current page' },
  { name: 'browser__navigate', description: 'Open a URL in the browser' },
  { name: 'fs__read_file', description: 'Read the contents of a file from disk', category: 'filesystem' },
  { name: 'fs__write_file', description: 'Write text to a file', toolset: 'files' },
  { name: 'send_email', description: 'Send an email message' },
];

describe('splitName', () => {
  it('splits separators and camelCase into lower-case words', () => {
    expect(splitName('browser__takeScreenshot')).toBe('browser take screenshot');
    expect(splitName('getHTTPResponse-v2')).toBe('get http response v2');
  });
});

describe('MiniSearchBaseline', () => {
  const baseline = new MiniSearchBaseline(tools);

  it('finds a tool by a word of its split name, with the name boosted', () => {
    expect(baseline.search('screenshot', 5).results[0]?.name).toBe('browser__takeScreenshot');
  });

  it('tolerates typos (fuzzy) and partial words (prefix)', () => {
    expect(baseline.search('screnshot', 5).results[0]?.name).toBe('browser__takeScreenshot');
    expect(baseline.search('navig', 5).results[0]?.name).toBe('browser__navigate');
  });

  it('suggests the toolset with the most score among its results', () => {
    const response = baseline.search('browser page', 5);
    expect(response.toolsets[0]).toBe('browser');
    expect(response.results.every((r, i, all) => i === 0 || all[i - 1]!.score >= r.score)).toBe(true);
  });

  it('respects the limit and returns nothing for unrelated words', () => {
    expect(baseline.search('file', 1).results).toHaveLength(1);
    expect(baseline.search('zzzzqqq', 5).results).toEqual([]);
  });
});
