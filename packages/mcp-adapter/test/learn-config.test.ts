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

  it('lists every problem of learn and enrich at once, with the rest of the file, in one typed error', () => {
    let caught: unknown;
    try {
      parseGatewayConfig(
        {
          mcpServers: { a: { command: 'x', disabled: 'no' } },
          toolsearch: {
            maxSessions: 0,
            learn: { store: '  ', refreshMs: 1.5, where: 'x' },
            enrich: {
              endpoint: 'ftp://h',
              apiKey: 'sk-secret',
              apiKeyEnv: 'not a name',
              concurrency: 0,
              timeoutMs: 'soon',
              temperature: 1,
            },
          },
        },
        'mcp.json',
        {},
      );
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AdapterError);
    const err = caught as AdapterError;
    expect(err.code).toBe('INVALID_CONFIG');
    const problems = err.details.problems as { field: string; message: string }[];
    expect(problems.map((p) => p.field).sort()).toEqual(
      [
        'mcpServers.a.disabled',
        'toolsearch.maxSessions',
        'toolsearch.learn.store',
        'toolsearch.learn.refreshMs',
        'toolsearch.learn.where',
        'toolsearch.enrich.endpoint',
        'toolsearch.enrich.model',
        'toolsearch.enrich.apiKey',
        'toolsearch.enrich.apiKeyEnv',
        'toolsearch.enrich.concurrency',
        'toolsearch.enrich.timeoutMs',
        'toolsearch.enrich.temperature',
      ].sort(),
    );
    const byField = new Map(problems.map((p) => [p.field, p.message]));
    expect(byField.get('toolsearch.learn.where')).toBe('is not a known setting (known: store, refreshMs)');
    expect(byField.get('toolsearch.enrich.temperature')).toBe(
      'is not a known setting (known: endpoint, model, apiKeyEnv, concurrency, timeoutMs)',
    );
    expect(byField.get('toolsearch.enrich.apiKey')).toBe(
      'is not allowed: name an environment variable in apiKeyEnv',
    );
    expect(byField.get('toolsearch.enrich.endpoint')).toBe('must be an http(s) URL');
    expect(byField.get('toolsearch.learn.refreshMs')).toBe(`must be an integer from 0 to ${2 ** 31 - 1}`);
    expect(err.message).toMatch(/mcp\.json: 12 problems: mcpServers\.a\.disabled /);
    // The refused key is named, never echoed.
    expect(err.message).not.toContain('sk-secret');
    expect(JSON.stringify(err.details)).not.toContain('sk-secret');
  });

  it('says what learn and enrich must be when they have the wrong type', () => {
    const messages = (toolsearch: unknown) => {
      try {
        parse(toolsearch);
      } catch (err) {
        return ((err as AdapterError).details.problems as { field: string; message: string }[]).map(
          (p) => `${p.field} ${p.message}`,
        );
      }
      throw new Error('no error');
    };
    expect(messages({ learn: 'redis://h', enrich: [] })).toEqual([
      'toolsearch.learn must be false or an object { store?, refreshMs? }',
      'toolsearch.enrich must be an object { endpoint, model, apiKeyEnv?, concurrency?, timeoutMs? }',
    ]);
    expect(messages({ learn: { refreshMs: 2 ** 31 }, enrich: { endpoint: '', model: 7 } })).toEqual([
      `toolsearch.learn.refreshMs must be an integer from 0 to ${2 ** 31 - 1}`,
      'toolsearch.enrich.endpoint must be an http(s) URL',
      'toolsearch.enrich.model must be a non-empty string',
    ]);
  });

  it('TOOLSEARCH_NO_LEARN switches learning off for 1/true/yes, not for 0/false/empty', () => {
    for (const v of ['1', 'true', 'yes'])
      expect(learningDisabledByEnv({ TOOLSEARCH_NO_LEARN: v })).toBe(true);
    for (const v of ['0', 'false', '', undefined])
      expect(learningDisabledByEnv({ TOOLSEARCH_NO_LEARN: v })).toBe(false);
  });
});
