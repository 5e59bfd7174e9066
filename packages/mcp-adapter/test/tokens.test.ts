/** Token counting with cl100k_base (js-tiktoken). */
import { describe, expect, it } from 'vitest';
import { countTokens, countToolListTokens } from '../src/tokens.js';

describe('countTokens', () => {
  it('counts cl100k tokens of strings as-is', () => {
    // Reference values of the cl100k_base encoding.
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('tiktoken is great!')).toBe(6);
    expect(countTokens('')).toBe(0);
  });

  it('counts other values as their JSON', () => {
    const value = { name: 'search_tools', limit: 5, tags: ['a', 'b'] };
    expect(countTokens(value)).toBe(countTokens(JSON.stringify(value)));
    expect(countTokens(42)).toBe(countTokens('42'));
    expect(countTokens(undefined)).toBe(0);
  });

  it('grows with the content', () => {
    const one = { name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object' } };
    expect(countToolListTokens([one, one])).toBeGreaterThan(countToolListTokens([one]));
    expect(countToolListTokens([one])).toBe(countTokens({ tools: [one] }));
  });
});
