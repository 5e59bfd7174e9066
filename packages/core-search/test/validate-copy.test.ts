// validateTools copies plain data directly instead of through JSON (validate.ts plainCopy):
// the copy must be exactly what the JSON round trip gives, whatever the input, and the
// size limit must reject and accept exactly as JSON's length does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolSearchError } from '../src/errors.js';
import { validateTools } from '../src/validate.js';
import { fuzzTool } from './fuzz-inputs.js';
import { random } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const viaJson = (tool: unknown) => JSON.parse(JSON.stringify(tool)) as unknown;
const none = () => false;

/** The copy, or the error code and issues, for one tool. */
function outcome(tool: unknown, maxChars?: number): unknown {
  try {
    return validateTools([tool], none, maxChars)[0];
  } catch (error) {
    return { code: (error as ToolSearchError).code, issues: (error as ToolSearchError).issues };
  }
}

/** A null-prototype object with these properties. */
const bare = (props: Record<string, unknown>) => Object.assign(Object.create(null) as object, props);

describe('validateTools copies', () => {
  it('every fixture tool exactly as a JSON round trip does, into new objects', () => {
    const tools = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'registry', 'tools.json'), 'utf8')) as {
      tools?: unknown[];
    };
    const list = (Array.isArray(tools) ? tools : (tools.tools ?? [])) as Record<string, unknown>[];
    expect(list.length).toBeGreaterThan(100);
    const copies = validateTools(list, none);
    copies.forEach((copy, i) => {
      expect(copy).toStrictEqual(viaJson(list[i]));
      expect(copy).not.toBe(list[i]);
      if (list[i]!.inputSchema) expect(copy.inputSchema).not.toBe(list[i]!.inputSchema);
    });
  });

  it('values JSON changes or drops (-0, NaN, undefined, functions, toJSON, Dates, class instances, holes) as JSON does', () => {
    class Schema {
      type = 'object';
      describe() {
        return 'x';
      }
    }
    const holey: unknown[] = new Array(3); // [1, <hole>, 3]
    holey[0] = 1;
    holey[2] = 3;
    const odd: Record<string, unknown>[] = [
      { name: 'a', description: 'd', inputSchema: { type: 'object', minimum: -0, maximum: Number.NaN } },
      { name: 'b', description: undefined, title: 't', extra: () => 1 },
      { name: 'c', inputSchema: { type: 'object', default: new Date(0) } },
      { name: 'd', inputSchema: new Schema() },
      { name: 'e', tags: ['x'], inputSchema: { type: 'object', enum: holey } },
      { name: 'f', inputSchema: bare({ type: 'object', properties: bare({ p: { type: 'string' } }) }) },
      { name: 'g', inputSchema: { type: 'object', toJSON: () => ({ type: 'object', replaced: true }) } },
      JSON.parse('{"name":"h","inputSchema":{"type":"object","__proto__":{"polluted":true}}}'),
      { name: 'i', description: 'quote " backslash \\ newline \n tab \t nul \u0000 lone \ud800 emoji 😀' },
      { name: 'j', inputSchema: { type: 'object', big: 1e300, small: 5e-324, int: 2 ** 53 } },
      { name: 'k', inputSchema: { type: 'object', 2: 'two', 1: 'one', b: 'b', a: 'a' } },
      // Symbol keys (a spread would copy them) and getters (read once, kept as values).
      { name: 'l', [Symbol('meta')]: 1, inputSchema: { type: 'object', [Symbol.for('x')]: 'y' } },
      {
        name: 'm',
        get description() {
          return 'computed';
        },
      },
      // An array's own toJSON, as an object's.
      { name: 'n', tags: Object.assign(['a'], { toJSON: () => ['b'] }) },
    ];
    for (const tool of odd) expect(outcome(tool), String(tool.name)).toStrictEqual(viaJson(tool));
    // Nesting deeper than the direct copy goes still copies (through JSON).
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 200; i++) deep = { type: 'object', properties: { p: deep } };
    expect(outcome({ name: 'deep', inputSchema: deep })).toStrictEqual(
      viaJson({ name: 'deep', inputSchema: deep }),
    );
  });

  it('an enumerable key on Object.prototype is not copied (JSON lists own keys only)', () => {
    const tool = { name: 'inherits', inputSchema: { type: 'object', properties: { p: { type: 'string' } } } };
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 'yes';
    let copy: unknown;
    try {
      copy = outcome(tool);
    } finally {
      delete proto.polluted;
    }
    expect(Object.keys(copy as object)).toEqual(['name', 'inputSchema']);
    expect(copy).toStrictEqual(viaJson(tool));
  });

  it('a toJSON JSON would call, own but not enumerable or inherited, as JSON does', () => {
    const hidden = { type: 'object' };
    Object.defineProperty(hidden, 'toJSON', { value: () => ({ type: 'object', hidden: true }) });
    class Tags extends Array<string> {
      toJSON() {
        return ['replaced'];
      }
    }
    const tags = Tags.from(['a']);
    for (const tool of [
      { name: 'hidden', inputSchema: hidden },
      { name: 'subclass', tags },
    ]) {
      expect(outcome(tool)).toStrictEqual(viaJson(tool));
    }
    // An inherited toJSON: on Object.prototype (arrays inherit it too), then on Array.prototype.
    const marks: [object, object, (this: never) => unknown][] = [
      [
        Object.prototype,
        { name: 'inherited', inputSchema: { type: 'object' } },
        function (this: object) {
          return { ...this, via: 'toJSON' };
        },
      ],
      [
        Array.prototype,
        { name: 'inherited', tags: ['a'] },
        function (this: unknown[]) {
          return [...this, 'via toJSON'];
        },
      ],
    ];
    for (const [proto, plain, toJSON] of marks) {
      Object.defineProperty(proto, 'toJSON', { value: toJSON, configurable: true });
      let copy: unknown;
      let expected: unknown;
      try {
        copy = outcome(plain);
        expected = viaJson(plain);
      } finally {
        delete (proto as { toJSON?: unknown }).toJSON;
      }
      expect(copy).toStrictEqual(expected);
      expect(JSON.stringify(copy)).toContain('via');
    }
  });

  it('rejects cycles and BigInts as unserialisable, naming the tool', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    for (const inputSchema of [cyclic, { type: 'object', n: 10n }]) {
      const result = outcome({ name: 'bad', inputSchema }) as { code: string; issues: { message: string }[] };
      expect(result.code).toBe('INVALID_TOOL');
      expect(result.issues[0]!.message).toContain('serialised');
    }
  });

  it('applies maxChars to the JSON length exactly, at and around the limit', () => {
    for (const description of ['plain words', 'with "quotes" and \\ and \n', 'ünïcödé 😀']) {
      const tool = { name: 'sized', description, inputSchema: { type: 'object', n: 1.5, b: true, z: null } };
      const length = JSON.stringify(tool).length;
      expect(outcome(tool, length)).toStrictEqual(viaJson(tool));
      const over = outcome(tool, length - 1) as { code: string; issues: { message: string }[] };
      expect(over.code).toBe('INVALID_TOOL');
      expect(over.issues[0]!.message).toContain(`is ${length} characters as JSON`);
    }
  });

  it('fuzzed tools: the same copy or the same issues as the JSON round trip', () => {
    const next = random(11);
    for (let i = 0; i < 300; i++) {
      const tool = fuzzTool(next, i);
      let serialisable = true;
      try {
        JSON.stringify(tool);
      } catch {
        serialisable = false;
      }
      const result = outcome(tool);
      // Valid or not, the copy (or the issues found in it) is the round trip's.
      if (serialisable) expect(result).toStrictEqual(outcome(viaJson(tool)));
      else expect((result as { code: string }).code).toBe('INVALID_TOOL');
    }
  });
});

/** validateTools of owned input (copy false): the tool itself, or the error code and issues. */
function ownedOutcome(tool: unknown, maxChars?: number): unknown {
  try {
    return validateTools([tool], none, maxChars, false)[0];
  } catch (error) {
    return { code: (error as ToolSearchError).code, issues: (error as ToolSearchError).issues };
  }
}

/** Owned input is checked as a copy is made: the same issues, and the same JSON when valid. */
function expectOwnedLikeCopy(tool: unknown, maxChars?: number): unknown {
  const copied = outcome(tool, maxChars);
  const owned = ownedOutcome(tool, maxChars);
  if ((copied as { code?: unknown }).code !== undefined) expect(owned).toStrictEqual(copied);
  else expect(JSON.stringify(owned)).toBe(JSON.stringify(copied));
  return owned;
}

describe('validateTools of owned input (copy false)', () => {
  it('keeps plain-data tools as given: every fixture tool is its own object', () => {
    const list = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'registry', 'tools.json'), 'utf8')) as
      | Record<string, unknown>[]
      | { tools: Record<string, unknown>[] };
    const tools = Array.isArray(list) ? list : list.tools;
    const owned = validateTools(tools, none, undefined, false);
    owned.forEach((tool, i) => {
      expect(tool).toBe(tools[i]);
      expect(tool).toStrictEqual(viaJson(tools[i]));
    });
  });

  it('still copies what JSON would change, and rejects what it cannot serialise', () => {
    const changed: Record<string, unknown>[] = [
      { name: 'a', inputSchema: { type: 'object', minimum: -0 } },
      { name: 'b', description: undefined },
      { name: 'c', inputSchema: { type: 'object', default: new Date(0) } },
      { name: 'g', inputSchema: { type: 'object', toJSON: () => ({ type: 'object', replaced: true }) } },
      JSON.parse('{"name":"h","inputSchema":{"type":"object","__proto__":{"polluted":true}}}'),
      { name: 'n', tags: Object.assign(['a'], { toJSON: () => ['b'] }) },
    ];
    for (const tool of changed) {
      const owned = expectOwnedLikeCopy(tool);
      expect(owned, String(tool.name)).not.toBe(tool);
      expect(owned, String(tool.name)).toStrictEqual(viaJson(tool));
    }
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    const result = ownedOutcome({ name: 'bad', inputSchema: cyclic }) as { code: string };
    expect(result.code).toBe('INVALID_TOOL');
    const plain = { name: 'plain', tags: ['x'], inputSchema: { type: 'object', n: 1.5, z: null } };
    expect(ownedOutcome(plain)).toBe(plain);
  });

  it('applies maxChars exactly as the copy does, at and around the limit', () => {
    for (const description of ['plain words', 'with "quotes" and \\ and \n', 'ünïcödé 😀']) {
      const tool = { name: 'sized', description, inputSchema: { type: 'object', n: 1.5, b: true, z: null } };
      const length = JSON.stringify(tool).length;
      // At the limit JSON itself measures (the direct bound counts numbers at their longest).
      expect(expectOwnedLikeCopy(tool, length)).toStrictEqual(viaJson(tool));
      expect((expectOwnedLikeCopy(tool, length - 1) as { code: string }).code).toBe('INVALID_TOOL');
    }
  });

  it('fuzzed tools: the same issues, or the same JSON, as a copy', () => {
    const next = random(12);
    for (let i = 0; i < 300; i++) expectOwnedLikeCopy(fuzzTool(next, i));
  });
});
