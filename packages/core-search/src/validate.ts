import { DEFAULTS } from './defaults.js';
import { ToolSearchError, type ToolSearchIssue } from './errors.js';
import type { ToolDefinition } from './types.js';

/**
 * Check one tool's shape; every problem is added to `issues` with its index and field
 * (there, not to an array of its own per tool that the batch's list then spreads:
 * validateTools of the ~100k-tool corpus 1184 -> 1158 and 1133 -> 1092 ms CPU, median of
 * 9 and 11, old and new interleaved in one process, load 6-7: small, but nothing to pay).
 */
function toolIssues(tool: unknown, index: number, issues: ToolSearchIssue[]): void {
  if (tool === null || typeof tool !== 'object' || Array.isArray(tool)) {
    issues.push({ index, message: 'a tool must be an object' });
    return;
  }
  const t = tool as Record<string, unknown>;
  const name = typeof t.name === 'string' ? t.name : undefined;
  // No closures or callbacks here: this runs once per tool of every add().
  if (typeof t.name !== 'string')
    issues.push({ index, name, field: 'name', message: 'name must be a string' });
  else if (t.name.trim() === '')
    issues.push({ index, name, field: 'name', message: 'name must not be empty' });
  for (const field of STRING_FIELDS) {
    if (t[field] !== undefined && typeof t[field] !== 'string')
      issues.push({ index, name, field, message: `${field} must be a string` });
  }
  if (t.category !== undefined && t.category !== null && typeof t.category !== 'string') {
    issues.push({ index, name, field: 'category', message: 'category must be a string or null' });
  }
  if (
    t.inputSchema !== undefined &&
    (t.inputSchema === null || typeof t.inputSchema !== 'object' || Array.isArray(t.inputSchema))
  ) {
    issues.push({ index, name, field: 'inputSchema', message: 'inputSchema must be an object' });
  }
  if (t.annotations !== undefined && (t.annotations === null || typeof t.annotations !== 'object')) {
    issues.push({ index, name, field: 'annotations', message: 'annotations must be an object' });
  }
  for (const field of LIST_FIELDS) {
    const value = t[field];
    if (value === undefined) continue;
    if (!Array.isArray(value)) {
      issues.push({ index, name, field, message: `${field} must be an array of strings` });
      continue;
    }
    for (let i = 0; i < value.length; i++) {
      if (typeof value[i] !== 'string')
        issues.push({ index, name, field: `${field}[${i}]`, message: `${field} must contain only strings` });
    }
  }
}

const STRING_FIELDS = ['title', 'description', 'toolset'] as const;
const LIST_FIELDS = ['tags', 'examples', 'phrasings'] as const;

/**
 * The engine's own copy of a tool, as JSON would save it: a caller mutating its object
 * after add() cannot change what is indexed (or make a later search throw), and what is
 * indexed always survives toJSON(). Cycles, BigInts and tools over `maxChars` are issues.
 *
 * Plain data (what a parsed tool list is) is copied directly (plainCopy), which costs a
 * fifth of JSON.stringify + JSON.parse, the largest single cost of indexing; anything
 * else, or a tool that might be over the limit, takes the JSON round trip. With `copy`
 * false (owned input: see validateTools) plain data is only checked, not copied, and the
 * tool itself is kept: it is already what JSON would give back.
 */
function ownCopy(
  tool: unknown,
  index: number,
  maxChars: number,
  issues: ToolSearchIssue[],
  direct: boolean,
  copy: boolean,
): unknown {
  if (tool === null || typeof tool !== 'object' || Array.isArray(tool)) return tool;
  if (direct) {
    // First with the cheap bound (every string as if all its characters were escaped); only
    // a tool near the limit pays for looking at its strings (the exact bound).
    let own = plainCopy(tool, 0, { chars: maxChars, exact: false, copy });
    if (own === OVER_CHEAP_BOUND) own = plainCopy(tool, 0, { chars: maxChars, exact: true, copy });
    if (own !== NOT_PLAIN && own !== OVER_CHEAP_BOUND) return own;
  }
  const name =
    typeof (tool as { name?: unknown }).name === 'string' ? (tool as { name: string }).name : undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(tool);
  } catch (error) {
    issues.push({ index, name, message: `cannot be serialised as JSON (${(error as Error).message})` });
    return undefined;
  }
  if (json === undefined) return undefined; // toJSON() returned undefined: "must be an object"
  if (json.length > maxChars) {
    issues.push({
      index,
      name,
      message: `is ${json.length} characters as JSON, over the limit of ${maxChars} (limits.maxToolChars)`,
    });
    return undefined;
  }
  return JSON.parse(json);
}

const NOT_PLAIN: unique symbol = Symbol('not plain');
/** The copy might be over the limit by the cheap bound: try again with the exact one. */
const OVER_CHEAP_BOUND: unique symbol = Symbol('over the cheap bound');
/** Deeper than this, the JSON round trip decides (and reports a cycle). */
const MAX_PLAIN_DEPTH = 64;
/** Characters JSON.stringify escapes in a string (so its JSON is longer than length + 2). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * What a copy may still spend, in JSON characters; `exact` looks at each string for
 * escapes; `copy` false only checks (plainCopy then returns the value itself).
 */
interface CopyBudget {
  chars: number;
  readonly exact: boolean;
  readonly copy: boolean;
}

/** JSON characters of a string (or a key, with `extra` for its quotes and colon) at most. */
function stringChars(text: string, extra: number, budget: CopyBudget): number {
  // Six characters per code unit (\uXXXX) bounds any escape; testing for escapes was 2-3%
  // of a 10k build, and no tool of the shared datasets comes near the limit by this bound.
  if (!budget.exact || ESCAPED.test(text)) return 6 * text.length + extra;
  return text.length + extra;
}

/**
 * The same value JSON.parse(JSON.stringify(value)) gives, for plain data only: strings,
 * finite numbers other than -0, booleans, null, arrays, and objects whose prototype is
 * Object.prototype or null, without toJSON, undefined, functions or a "__proto__" key
 * (symbol keys are left out, as JSON leaves them). Anything else returns NOT_PLAIN, as
 * does a value whose JSON could exceed `budget.chars` (an upper bound is counted: with
 * `exact`, exact for strings without escapes; six characters per code unit for the
 * rest), so the exact check and its message stay JSON's; OVER_CHEAP_BOUND when only the cheap bound was exceeded.
 * Key order is Object.keys', which is JSON.stringify's.
 */
function plainCopy(value: unknown, depth: number, budget: CopyBudget): unknown {
  return typeof value === 'object' && value !== null
    ? plainObject(value, depth, budget)
    : plainLeaf(value, budget);
}

/**
 * plainCopy of anything but an object: the value itself when JSON keeps it as it is. The
 * copy stores only copied objects, not every leaf: validateTools of the ~100k-tool corpus
 * 1478 -> 1385 ms CPU (median of 7, old and new interleaved in one process, load 10).
 */
function plainLeaf(value: unknown, budget: CopyBudget): unknown {
  switch (typeof value) {
    case 'string':
      budget.chars -= stringChars(value, 2, budget);
      break;
    case 'number':
      if (!Number.isFinite(value) || Object.is(value, -0)) return NOT_PLAIN;
      budget.chars -= 24; // the longest a double prints as
      break;
    case 'boolean':
      budget.chars -= 5;
      break;
    case 'object': // null
      budget.chars -= 4;
      break;
    default:
      return NOT_PLAIN;
  }
  return budget.chars < 0 ? over(budget) : value;
}

/** plainCopy of an array or object. */
function plainObject(value: object, depth: number, budget: CopyBudget): unknown {
  // An own toJSON (enumerable or not) sends the tool to JSON; an inherited one cannot be met
  // here (validateTools checks the two prototypes once, and others are not plain). hasOwn
  // looks among the object's own keys, where reading toJSON missed along the prototype chain
  // from one of thousands of hidden classes: validateTools of the ~100k-tool corpus 1105 ->
  // 1025 and 1085 -> 1060 ms CPU, of it as parsed JSON 1191 -> 1103 (median of 9, the old and
  // new validate.ts interleaved in one process, load 10-15).
  if (depth >= MAX_PLAIN_DEPTH || Object.hasOwn(value, 'toJSON')) return NOT_PLAIN;
  const prototype = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype) return NOT_PLAIN;
    const length = value.length;
    const out: unknown[] | undefined = budget.copy ? new Array(length) : undefined;
    budget.chars -= 2 + length;
    for (let i = 0; i < length; i++) {
      const copy = plainCopy(value[i], depth + 1, budget);
      if (copy === NOT_PLAIN || copy === OVER_CHEAP_BOUND) return copy;
      if (out) out[i] = copy;
    }
    return out ?? value;
  }
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  // Keys are added one by one to a fresh literal as for-in lists them. A spread (V8 clones
  // the hidden class) wins on one shape, but a tool list has thousands (each schema's
  // properties differ), and it needed a getOwnPropertySymbols array per object (a spread
  // copies symbol keys, which JSON drops) and a hasOwn per key: validateTools of the
  // ~100k-tool corpus 1203 -> 850 and 1516 -> 1146 ms CPU (two runs, median of 7, the old
  // and new validate.ts interleaved in one process, load 3.5-5). for-in lists only own
  // string keys here (validateTools sends everything through JSON when Object.prototype
  // has an enumerable key), in Object.keys' order, which is JSON's.
  const out: Record<string, unknown> | undefined = budget.copy ? {} : undefined;
  budget.chars -= 2;
  for (const key in value) {
    // A "__proto__" key (JSON.parse makes one) would set the copy's prototype here.
    if (key === '__proto__') return NOT_PLAIN;
    budget.chars -= stringChars(key, 4, budget);
    const copy = plainCopy((value as Record<string, unknown>)[key], depth + 1, budget);
    if (copy === NOT_PLAIN || copy === OVER_CHEAP_BOUND) return copy;
    if (out) out[key] = copy;
  }
  return out ?? value;
}

/** Whether for-in lists any key of `value` (own or inherited). */
function hasEnumerableKey(value: object): boolean {
  for (const _ in value) return true;
  return false;
}

/** A copy over budget: NOT_PLAIN (JSON decides) when the bound was exact, else try it exactly. */
function over(budget: CopyBudget): typeof NOT_PLAIN | typeof OVER_CHEAP_BOUND {
  return budget.exact ? NOT_PLAIN : OVER_CHEAP_BOUND;
}

/**
 * Validate a batch before anything is indexed, so add() is all-or-nothing, and return
 * the engine's own copies (see ownCopy). Malformed tools throw INVALID_TOOL; names used
 * twice (in the batch, or already indexed) throw DUPLICATE_TOOL naming both places.
 * Every issue is listed, not just the first.
 *
 * `copy` false is for owned input, objects nothing else holds (a tools file the caller
 * has just parsed): the same checks, errors and size limit, but a plain-data tool is kept
 * as given instead of copied. The copy and the collection of what it allocates were a
 * fifth of indexing ~100k tools (profile.ts build100k; the figures are in DESIGN.md).
 *
 * `names` receives each tool's name with its index in the batch (the duplicate check's own
 * map; complete only when nothing is thrown): an engine's first add keeps it as its map of
 * names to ids instead of hashing every name into a second one.
 */
export function validateTools(
  tools: unknown,
  existing: (name: string) => boolean,
  maxChars: number = DEFAULTS.limits.maxToolChars,
  copy = true,
  names: Map<string, number> = new Map(),
): ToolDefinition[] {
  if (!Array.isArray(tools)) {
    throw new ToolSearchError('INVALID_TOOL', 'toolsearch: tools must be an array of tool definitions');
  }
  const issues: ToolSearchIssue[] = [];
  // plainCopy's for-in would also list an enumerable key someone put on Object.prototype,
  // and it looks for toJSON among an object's own keys only.
  const direct =
    !hasEnumerableKey(Object.prototype) && !('toJSON' in Object.prototype) && !('toJSON' in Array.prototype);
  const copies = tools.map((tool, index) => {
    const before = issues.length;
    const own = ownCopy(tool, index, maxChars, issues, direct, copy);
    if (issues.length === before) toolIssues(own, index, issues);
    return own;
  });
  if (issues.length > 0) {
    const first = issues[0]!;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue(s))` : '';
    throw new ToolSearchError(
      'INVALID_TOOL',
      `toolsearch: invalid tool at index ${first.index}, field "${first.field ?? '(tool)'}": ${first.message}${more}`,
      issues,
    );
  }
  const valid = copies as ToolDefinition[];
  const duplicates: ToolSearchIssue[] = [];
  valid.forEach((tool, index) => {
    const earlier = names.get(tool.name);
    if (earlier !== undefined) {
      duplicates.push({
        index,
        name: tool.name,
        field: 'name',
        message: `same name as the tool at index ${earlier}`,
      });
    } else if (existing(tool.name)) {
      duplicates.push({
        index,
        name: tool.name,
        field: 'name',
        message: 'a tool with this name is already indexed',
      });
    }
    names.set(tool.name, earlier ?? index);
  });
  if (duplicates.length > 0) {
    const list = duplicates.map((d) => `"${d.name}" at index ${d.index} (${d.message})`).join('; ');
    throw new ToolSearchError('DUPLICATE_TOOL', `toolsearch: duplicate tool names: ${list}`, duplicates);
  }
  return valid;
}

/**
 * A list of everyday requests given through the API (addPhrasings). Throws
 * INVALID_PHRASING naming the option and the index of each bad item.
 */
export function validatePhrasings(value: unknown, option: string): string[] {
  if (!Array.isArray(value)) {
    throw new ToolSearchError('INVALID_PHRASING', `toolsearch: ${option} must be an array of strings`, [
      { field: option, message: 'must be an array of strings' },
    ]);
  }
  const issues: ToolSearchIssue[] = [];
  value.forEach((item, index) => {
    if (typeof item !== 'string')
      issues.push({ index, field: `${option}[${index}]`, message: 'must be a string' });
  });
  if (issues.length > 0) {
    throw new ToolSearchError(
      'INVALID_PHRASING',
      `toolsearch: ${issues[0]!.field} ${issues[0]!.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`,
      issues,
    );
  }
  return value as string[];
}
