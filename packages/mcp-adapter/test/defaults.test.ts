/** The adapter's one home for defaults: the version comes from package.json, settings have one validator. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSetting, IMPLEMENTATION, MAX_TIMER_MS, VERSION } from '../src/defaults.js';
import { AdapterError } from '../src/errors.js';

describe('adapter defaults', () => {
  it('reads the version from package.json and names itself with it', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
    expect(IMPLEMENTATION).toEqual({ name: 'toolsearch-mcp', version: pkg.version });
  });

  it.each([
    ['sessionIdleTimeoutMs', 0, 'must be a positive integer, got 0'],
    ['sessionIdleTimeoutMs', Number.NaN, 'must be a positive integer, got NaN'],
    ['sessionIdleTimeoutMs', '300', 'must be a positive integer, got "300"'],
    ['sessionIdleTimeoutMs', MAX_TIMER_MS + 1, `must be at most ${MAX_TIMER_MS}, got ${MAX_TIMER_MS + 1}`],
    ['maxSessions', 2.5, 'must be a positive integer, got 2.5'],
  ] as const)('checkSetting(%s, %j) fails naming the field: %s', (setting, value, message) => {
    let err: unknown;
    try {
      checkSetting(setting, value, `toolsearch.${setting}`);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as AdapterError).message).toBe(`toolsearch-mcp: toolsearch.${setting} ${message}`);
    expect((err as AdapterError).details).toEqual({ field: `toolsearch.${setting}` });
  });

  it('returns a setting that fits', () => {
    expect(checkSetting('maxSessions', 3)).toBe(3);
    expect(checkSetting('sessionIdleTimeoutMs', MAX_TIMER_MS)).toBe(MAX_TIMER_MS);
  });
});
