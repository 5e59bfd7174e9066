import { describe, expect, it } from 'vitest';
import { AdapterError } from '../src/errors.js';
import { parseGatewayConfig } from '../src/gateway/config.js';
import { learningDisabledByEnv } from '../src/learn/open.js';

const servers = { mcpServers: { a: { command: 'x' } } };
const parse = (toolsearch: unknown) => parseGatewayConfig({ ...servers, toolsearch }, 'mcp.json', {});
const fieldOf = (toolsearch: unknown) => {
  try {
    parse(toolsearch);
  } catch (err) {
    expect(err).toBeInstanceOf(AdapterError);
    return (err as AdapterError).details.field;
  }
  throw new Error('no error');
};

describe('toolsearch.learn and toolsearch.enrich in mcp.json', () => {
  it('reads learn: false, a store and a refresh interval', () => {
    expect(parse({ learn: false }).learn).toBe(false);
    expect(parse({ learn: { store: 'redis://127.0.0.1:6379', refreshMs: 500 } }).learn).toEqual({
      store: 'redis://127.0.0.1:6379',
      refreshMs: 500,
    });
    expect(parse({}).learn).toBeUndefined();
  });

  it('reads enrich settings, and never a key in the file', () => {
    expect(
      parse({ enrich: { endpoint: 'http://127.0.0.1:11434/v1', model: 'm', apiKeyEnv: 'MY_KEY' } }).enrich,
    ).toEqual({
      endpoint: 'http://127.0.0.1:11434/v1',
      model: 'm',
      apiKeyEnv: 'MY_KEY',
    });
    expect(fieldOf({ enrich: { endpoint: 'http://h', model: 'm', apiKey: 'sk-1' } })).toBe(
      'toolsearch.enrich.apiKey',
    );
  });

  it('names the bad field', () => {
    expect(fieldOf({ learn: true })).toBe('toolsearch.learn');
    expect(fieldOf({ learn: { store: '' } })).toBe('toolsearch.learn.store');
    expect(fieldOf({ learn: { refreshMs: -1 } })).toBe('toolsearch.learn.refreshMs');
    expect(fieldOf({ learn: { where: 'x' } })).toBe('toolsearch.learn.where');
    expect(fieldOf({ enrich: { model: 'm' } })).toBe('toolsearch.enrich.endpoint');
    expect(fieldOf({ enrich: { endpoint: 'http://h', model: 'm', concurrency: 0 } })).toBe(
      'toolsearch.enrich.concurrency',
    );
    expect(fieldOf({ enrich: { endpoint: 'http://h', model: 'm', apiKeyEnv: 'not a name' } })).toBe(
      'toolsearch.enrich.apiKeyEnv',
    );
  });

  it('TOOLSEARCH_NO_LEARN switches learning off for 1/true/yes, not for 0/false/empty', () => {
    for (const v of ['1', 'true', 'yes'])
      expect(learningDisabledByEnv({ TOOLSEARCH_NO_LEARN: v })).toBe(true);
    for (const v of ['0', 'false', '', undefined])
      expect(learningDisabledByEnv({ TOOLSEARCH_NO_LEARN: v })).toBe(false);
  });
});
