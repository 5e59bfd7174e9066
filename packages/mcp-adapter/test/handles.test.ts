import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseGatewayConfig } from '../src/gateway/config.js';
import { takeFollowed } from '../src/handles.js';
import { AdapterError, HandleCodec } from '../src/index.js';

const KEY = 'a-handle-key-of-at-least-32-bytes!!';

async function refusal(promise: Promise<unknown>): Promise<{ code: string; reason: unknown }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AdapterError);
  return { code: (err as AdapterError).code, reason: (err as AdapterError).details.reason };
}

afterEach(() => vi.useRealTimers());

describe('HandleCodec', () => {
  it('round-trips what a conversation searched and loaded', async () => {
    const codec = new HandleCodec({ key: KEY, maxLoaded: 3 });
    const handle = await codec.mint({ search: { query: 'send mail', offered: ['a', 'b'] }, loaded: ['x'] });
    expect(await codec.open(handle)).toEqual({
      search: { query: 'send mail', offered: ['a', 'b'] },
      loaded: ['x'],
    });
    // Another process with the same key opens it: nothing lives in the process that minted it.
    expect(await new HandleCodec({ key: KEY, maxLoaded: 3 }).open(handle)).toMatchObject({ loaded: ['x'] });
  });

  it('bounds what a handle names: the latest loaded tools, the first offered ones, a truncated query', async () => {
    const codec = new HandleCodec({ key: KEY, maxLoaded: 2 });
    const offered = Array.from({ length: 30 }, (_, i) => `tool${i}`);
    const handle = await codec.mint({ search: { query: 'q'.repeat(500), offered }, loaded: ['a', 'b', 'c'] });
    const state = await codec.open(handle);
    expect(state.loaded).toEqual(['b', 'c']);
    expect(state.search?.offered).toEqual(offered.slice(0, 20));
    expect(state.search?.query).toHaveLength(200);
    expect(handle.length).toBeLessThan(1200);
  });

  it('refuses a handle signed with another key, altered, malformed, expired or oversized', async () => {
    const codec = new HandleCodec({ key: KEY, maxLoaded: 3 });
    const handle = await codec.mint({ loaded: ['x'] });
    const other = new HandleCodec({ key: 'b'.repeat(32), maxLoaded: 3 });
    expect(await refusal(other.open(handle))).toEqual({ code: 'INVALID_HANDLE', reason: 'mac' });
    const [v, body, mac] = handle.split('.') as [string, string, string];
    const altered = Buffer.from(body, 'base64url').toString('utf8').replace('"x"', '"y"');
    const forged = `${v}.${Buffer.from(altered).toString('base64url')}.${mac}`;
    expect(await refusal(codec.open(forged))).toEqual({ code: 'INVALID_HANDLE', reason: 'mac' });
    expect(await refusal(codec.open('not a handle'))).toMatchObject({ code: 'INVALID_HANDLE' });
    expect(await refusal(codec.open('x'.repeat(10_000)))).toEqual({
      code: 'INVALID_HANDLE',
      reason: 'too-long',
    });

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 25 * 60 * 60 * 1000);
    expect(await refusal(codec.open(handle))).toEqual({ code: 'INVALID_HANDLE', reason: 'expired' });
  });

  it('refuses a key shorter than 32 bytes as INVALID_CONFIG, and makes its own key when given none', async () => {
    expect(() => new HandleCodec({ key: 'short', maxLoaded: 3 })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
    const a = new HandleCodec({ maxLoaded: 3 });
    const b = new HandleCodec({ maxLoaded: 3 });
    expect(a.ephemeralKey).toBe(true);
    expect(await refusal(b.open(await a.mint({ loaded: [] })))).toMatchObject({ reason: 'mac' });
  });
});

describe('takeFollowed', () => {
  it('reports each offered tool once, in the order used, and ignores tools not offered', () => {
    const search = { query: 'q', offered: ['a', 'b', 'c'] };
    expect(takeFollowed(search, ['c', 'z', 'a', 'c'])).toEqual(['c', 'a']);
    expect(takeFollowed(search, ['a', 'b'])).toEqual(['b']);
    expect(search.offered).toEqual([]);
  });
});

describe('handle key in the gateway config', () => {
  const mcp = (toolsearch: unknown) => ({ mcpServers: {}, toolsearch });
  it('reads toolsearch.handleKey, lets TOOLSEARCH_HANDLE_KEY win, and refuses a non-string', () => {
    expect(parseGatewayConfig(mcp({ handleKey: KEY }), 'mcp.json', {}).handleKey).toBe(KEY);
    expect(
      parseGatewayConfig(mcp({ handleKey: KEY }), 'mcp.json', { TOOLSEARCH_HANDLE_KEY: 'from-env' })
        .handleKey,
    ).toBe('from-env');
    expect(parseGatewayConfig(mcp({}), 'mcp.json', {}).handleKey).toBeUndefined();
    expect(() => parseGatewayConfig(mcp({ handleKey: 42 }), 'mcp.json', {})).toThrow(/toolsearch.handleKey/);
  });
});
