import { DEFAULTS } from './defaults.js';
import { ToolSearchError, type ToolSearchIssue } from './errors.js';
import type { ToolDefinition } from './types.js';

/** Check one tool's shape; every problem is reported with its index and field. */
function toolIssues(tool: unknown, index: number): ToolSearchIssue[] {
  if (tool === null || typeof tool !== 'object' || Array.isArray(tool)) {
    return [{ index, message: 'a tool must be an object' }];
  }
  const t = tool as Record<string, unknown>;
  const name = typeof t.name === 'string' ? t.name : undefined;
  const issues: ToolSearchIssue[] = [];
  const issue = (field: string, message: string) => issues.push({ index, name, field, message });
  if (typeof t.name !== 'string') issue('name', 'name must be a string');
  else if (t.name.trim() === '') issue('name', 'name must not be empty');
  for (const field of ['title', 'description', 'toolset'] as const) {
    if (t[field] !== undefined && typeof t[field] !== 'string') issue(field, `${field} must be a string`);
  }
  if (t.category !== undefined && t.category !== null && typeof t.category !== 'string') {
    issue('category', 'category must be a string or null');
  }
  if (
    t.inputSchema !== undefined &&
    (t.inputSchema === null || typeof t.inputSchema !== 'object' || Array.isArray(t.inputSchema))
  ) {
    issue('inputSchema', 'inputSchema must be an object');
  }
  if (t.annotations !== undefined && (t.annotations === null || typeof t.annotations !== 'object')) {
    issue('annotations', 'annotations must be an object');
  }
  for (const field of ['tags', 'examples', 'phrasings'] as const) {
    const value = t[field];
    if (value === undefined) continue;
    if (!Array.isArray(value)) issue(field, `${field} must be an array of strings`);
    else
      value.forEach((item, i) => {
        if (typeof item !== 'string') issue(`${field}[${i}]`, `${field} must contain only strings`);
      });
  }
  return issues;
}

/**
 * The engine's own copy of a tool, as JSON would save it: a caller mutating its object
 * after add() cannot change what is indexed (or make a later search throw), and what is
 * indexed always survives toJSON(). Cycles, BigInts and tools over `maxChars` are issues.
 *
 * Plain data (what a parsed tool list is) is copied directly (plainCopy), which costs a
 * fifth of JSON.stringify + JSON.parse, the largest single cost of indexing; anything
 * else, or a tool that might be over the limit, takes the JSON round trip.
 */
function ownCopy(tool: unknown, index: number, maxChars: number, issues: ToolSearchIssue[]): unknown {
  if (tool === null || typeof tool !== 'object' || Array.isArray(tool)) return tool;
  const budget = { chars: maxChars };
  const copy = plainCopy(tool, 0, budget);
  if (copy !== NOT_PLAIN) return copy;
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
/** Deeper than this, the JSON round trip decides (and reports a cycle). */
const MAX_PLAIN_DEPTH = 64;
/** Characters JSON.stringify escapes in a string (so its JSON is longer than length + 2). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The same value JSON.parse(JSON.stringify(value)) gives, for plain data only: strings,
 * finite numbers other than -0, booleans, null, arrays, and objects whose prototype is
 * Object.prototype or null, without toJSON, undefined, functions or a "__proto__" key.
 * Anything else returns NOT_PLAIN, as does a value whose JSON could exceed
 * `budget.chars` (an upper bound is counted: exact for strings without escapes, six
 * characters per code unit for the rest), so the exact check and its message stay
 * JSON's. Key order is Object.keys', which is JSON.stringify's.
 */
function plainCopy(value: unknown, depth: number, budget: { chars: number }): unknown {
  switch (typeof value) {
    case 'string':
      budget.chars -= ESCAPED.test(value) ? 6 * value.length + 2 : value.length + 2;
      return budget.chars < 0 ? NOT_PLAIN : value;
    case 'number':
      if (!Number.isFinite(value) || Object.is(value, -0)) return NOT_PLAIN;
      budget.chars -= 24; // the longest a double prints as
      return budget.chars < 0 ? NOT_PLAIN : value;
    case 'boolean':
      budget.chars -= 5;
      return budget.chars < 0 ? NOT_PLAIN : value;
    case 'object':
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) {
    budget.chars -= 4;
    return budget.chars < 0 ? NOT_PLAIN : null;
  }
  if (depth >= MAX_PLAIN_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return NOT_PLAIN;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    budget.chars -= 2 + value.length;
    for (let i = 0; i < value.length; i++) {
      const item = plainCopy(value[i], depth + 1, budget);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return out;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  budget.chars -= 2;
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return NOT_PLAIN;
    budget.chars -= ESCAPED.test(key) ? 6 * key.length + 4 : key.length + 4;
    const item = plainCopy((value as Record<string, unknown>)[key], depth + 1, budget);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
}

/**
 * Validate a batch before anything is indexed, so add() is all-or-nothing, and return
 * the engine's own copies (see ownCopy). Malformed tools throw INVALID_TOOL; names used
 * twice (in the batch, or already indexed) throw DUPLICATE_TOOL naming both places.
 * Every issue is listed, not just the first.
 */
export function validateTools(
  tools: unknown,
  existing: (name: string) => boolean,
  maxChars: number = DEFAULTS.limits.maxToolChars,
): ToolDefinition[] {
  if (!Array.isArray(tools)) {
    throw new ToolSearchError('INVALID_TOOL', 'toolsearch: tools must be an array of tool definitions');
  }
  const issues: ToolSearchIssue[] = [];
  const copies = tools.map((tool, index) => {
    const before = issues.length;
    const copy = ownCopy(tool, index, maxChars, issues);
    if (issues.length === before) issues.push(...toolIssues(copy, index));
    return copy;
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
  const seen = new Map<string, number>();
  valid.forEach((tool, index) => {
    const earlier = seen.get(tool.name);
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
    seen.set(tool.name, earlier ?? index);
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
