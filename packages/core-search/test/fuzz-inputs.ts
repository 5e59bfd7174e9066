/**
 * Seeded adversarial inputs for the fuzz suite (test/fuzz.test.ts) and the worst-case
 * benchmark (benchmarks/src/fuzz.ts): queries built to hit every known super-linear
 * path (long runs for backtracking patterns, long words for the speller and the stemmer,
 * camelCase and acronyms for identifier splitting, web addresses and paths), random text
 * from the whole Unicode range, and malformed tool definitions.
 */
import { random } from './helpers.js';

/** Runs that defeated a backtracking pattern or a quadratic loop before issue 9. */
export const ADVERSARIAL_UNITS = [
  'q',
  'A',
  'a.',
  'a-',
  '/a',
  'a/',
  '_a',
  'aB',
  'AB',
  'www.',
  'a:',
  'c:\\',
  '../',
  'a.b/',
  'https://a.b/',
  '1',
  '😀',
  '\u0301',
  'ß',
  ' ',
  'take ',
  'takeScreenshot ',
  'server-github__create_issue ',
  'vidoe ',
] as const;

export interface FuzzQuery {
  family: string;
  query: string;
}

/** One unit repeated up to `chars` characters (never splitting a unit). */
export function repeatTo(unit: string, chars: number): string {
  return unit.repeat(Math.max(1, Math.floor(chars / unit.length)));
}

/** Random text of `chars` UTF-16 units: printable ASCII, punctuation, any code point, lone surrogates. */
export function randomText(next: () => number, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const kind = next();
    let piece: string;
    if (kind < 0.5) piece = String.fromCharCode(32 + Math.floor(next() * 95));
    else if (kind < 0.7) piece = ' ';
    else if (kind < 0.8) piece = '_-./:@\\'[Math.floor(next() * 7)]!;
    else if (kind < 0.97) piece = String.fromCodePoint(Math.floor(next() * 0x110000));
    else piece = String.fromCharCode(0xd800 + Math.floor(next() * 0x800)); // a lone surrogate
    parts.push(piece);
    length += piece.length;
  }
  return parts.join('');
}

/**
 * Every adversarial unit at each size, plus `randomCount` seeded random queries of random
 * sizes up to `maxChars`. Deterministic for a seed.
 */
export function fuzzQueries(seed: number, sizes: readonly number[], randomCount: number, maxChars: number) {
  const next = random(seed);
  const out: FuzzQuery[] = [];
  for (const size of sizes) {
    for (const unit of ADVERSARIAL_UNITS)
      out.push({ family: `repeat ${JSON.stringify(unit)}`, query: repeatTo(unit, size) });
  }
  for (let i = 0; i < randomCount; i++) {
    const size = Math.max(1, Math.floor(maxChars ** next()));
    out.push({ family: 'random', query: randomText(next, size) });
  }
  return out;
}

/** A tool definition, valid or subtly not: wrong types, empty names, cycles, huge text. */
export function fuzzTool(next: () => number, i: number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const text = () => randomText(next, Math.floor(next() * 200));
  const tool: Record<string, unknown> = {
    name: pick([`tool_${i}`, `srv__tool_${i}`, `t${i}CamelName`, '', 5, null, `dup`, text()]),
    description: pick([text(), 'Reads a file.', 42, undefined, repeatTo('aB', 5000)]),
  };
  if (next() < 0.3) tool.tags = pick([['a', 'b'], [1], 'tag', []]);
  if (next() < 0.3)
    tool.inputSchema = pick([{ type: 'object', properties: { p: { type: 'string' } } }, 'x', null, []]);
  if (next() < 0.05) {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    tool.inputSchema = cyclic;
  }
  if (next() < 0.2) tool.examples = pick([[text()], [null], 'example']);
  return tool;
}
