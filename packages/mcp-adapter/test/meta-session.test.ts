import { describe, expect, it } from 'vitest';
import { SessionState } from '../src/session.js';
import { schemaProblems } from '../src/validate.js';

describe('SessionState: bound tools under an LRU cap', () => {
  it('loads, reports already-loaded tools and keeps always-loaded ones first', () => {
    const s = new SessionState({ alwaysLoaded: ['core__ping'], maxBoundTools: 3 });
    expect(s.load(['a', 'b', 'core__ping'])).toEqual({
      loaded: ['a', 'b'],
      already: ['core__ping'],
      evicted: [],
      overCap: [],
    });
    expect(s.load(['a']).already).toEqual(['a']);
    expect(s.bound()).toEqual(['core__ping', 'b', 'a']);
  });

  it('evicts the least recently used tool beyond the cap, counting calls as use', () => {
    const s = new SessionState({ maxBoundTools: 3 });
    s.load(['a', 'b', 'c']);
    s.touch('a'); // a is now the most recently used
    const out = s.load(['d']);
    expect(out.evicted).toEqual(['b']);
    expect(s.loaded()).toEqual(['c', 'a', 'd']);
  });

  it('never evicts tools of the same request for each other and reports the overflow', () => {
    const s = new SessionState({ maxBoundTools: 2 });
    s.load(['x']);
    const out = s.load(['a', 'b', 'c']);
    expect(out).toEqual({ loaded: ['a', 'b'], already: [], evicted: ['x'], overCap: ['c'] });
  });

  it('keeps always-loaded tools on unload', () => {
    const s = new SessionState({ alwaysLoaded: ['keep'] });
    s.load(['a']);
    expect(s.unload(['a', 'keep', 'zzz'])).toEqual({ unloaded: ['a'], kept: ['keep'], notLoaded: ['zzz'] });
    expect(s.bound()).toEqual(['keep']);
  });
});

describe('SessionState: does the client follow list_changed?', () => {
  it('is "yes" when tools/list follows the notification within the window', () => {
    let now = 0;
    const s = new SessionState({ listChangedWindowMs: 100, now: () => now });
    expect(s.listChangedSupport()).toBe('unknown');
    s.listChangedSent();
    now = 50;
    s.toolsListed();
    now = 1000;
    expect(s.listChangedSupport()).toBe('yes');
  });

  it('is "no" once a notification goes unanswered past the window, and recovers if the client lists later', () => {
    let now = 0;
    const s = new SessionState({ listChangedWindowMs: 100, now: () => now });
    s.listChangedSent();
    now = 99;
    expect(s.listChangedSupport()).toBe('unknown');
    now = 101;
    expect(s.listChangedSupport()).toBe('no');
    s.listChangedSent();
    now = 150;
    s.toolsListed();
    expect(s.listChangedSupport()).toBe('yes');
  });

  it('ignores tools/list calls with no notification pending', () => {
    const s = new SessionState({ listChangedWindowMs: 100, now: () => 0 });
    s.toolsListed();
    expect(s.listChangedSupport()).toBe('unknown');
  });
});

describe('schemaProblems', () => {
  const schema = {
    type: 'object',
    properties: {
      path: { type: 'string' },
      edits: {
        type: 'array',
        items: { type: 'object', properties: { line: { type: 'integer' } }, required: ['line'] },
      },
      mode: { enum: ['r', 'w'] },
    },
    required: ['path'],
    additionalProperties: false,
  };

  it('names the failing path of each problem', () => {
    const problems = schemaProblems(schema, { edits: [{ line: 'x' }, {}], mode: 'z', extra: 1 });
    expect(problems).toContain('arguments.path: is required');
    expect(problems).toContain('arguments.edits[0].line: must be integer');
    expect(problems).toContain('arguments.edits[1].line: is required');
    expect(problems).toContain('arguments.mode: must be one of ["r","w"]');
    expect(problems).toContain('arguments.extra: is not allowed here');
  });

  it('accepts valid input, 2020-12 schemas and lets uncompilable schemas through', () => {
    expect(schemaProblems(schema, { path: '/tmp/a', edits: [{ line: 1 }] })).toEqual([]);
    const modern = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      required: ['q'],
    };
    expect(schemaProblems(modern, {})).toEqual(['arguments.q: is required']);
    expect(schemaProblems({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }, { a: 1 })).toEqual(
      [],
    );
  });

  // With the built-in engine the first check below doubles in time with each character
  // (490 ms at 28); the timeout is only a hang guard.
  it('checks upstream patterns in linear time: a catastrophic pattern cannot hang it', {
    timeout: 20_000,
  }, () => {
    const evil = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    expect(schemaProblems(evil, { s: `${'a'.repeat(100_000)}!` })).toEqual([
      'arguments.s: must match pattern "^(a+)+$"',
    ]);
    expect(schemaProblems(evil, { s: 'a'.repeat(100_000) })).toEqual([]);
    const keys = { type: 'object', patternProperties: { '^(x+x+)+y$': { type: 'number' } } };
    expect(schemaProblems(keys, { [`${'x'.repeat(5000)}y`]: 'nan' })).toHaveLength(1);
  });

  it('enforces ordinary patterns, and lets through patterns a linear engine cannot express', () => {
    const email = { type: 'object', properties: { to: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' } } };
    expect(schemaProblems(email, { to: 'a@b.c' })).toEqual([]);
    expect(schemaProblems(email, { to: 'not an address' })).toHaveLength(1);
    const unicode = { type: 'object', properties: { w: { type: 'string', pattern: '^\\p{L}+$' } } };
    expect(schemaProblems(unicode, { w: 'héllo' })).toEqual([]);
    const backReference = { type: 'object', properties: { d: { type: 'string', pattern: '^(a)\\1$' } } };
    expect(schemaProblems(backReference, { d: 'zz' })).toEqual([]);
  });
});
