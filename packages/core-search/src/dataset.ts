/**
 * Reading tool lists and labelled query sets from disk.
 *
 * One reader accepts every shape a user is likely to have at hand:
 *   (a) a JSON array of tools;
 *   (b) an MCP `tools/list` result `{ tools: [...], nextCursor? }` (or the whole
 *       JSON-RPC response `{ result: { tools } }`); one page only, nextCursor is ignored;
 *   (c) a dataset file `{ name, source, license, notes, tools, queries }`
 *       (the format of ../shared/datasets/README.md);
 *   (d) a dataset file with `"toolsFrom": "<path>"` instead of `tools`: the tools
 *       are read from that file (any of these shapes), relative to the dataset file.
 *
 * Dataset files name a tool's group `category`; it becomes `toolset` here when
 * the tool has none, so every consumer sees one field. Problems are reported as
 * ToolSearchError('INVALID_DATASET') naming the file and the query index/field.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { ToolSearchError, type ToolSearchIssue } from './errors.js';
import type { ToolDefinition } from './types.js';

/** One labelled query: the request and the tool names that answer it. */
export interface LabelledQuery {
  id: string;
  query: string;
  /** Names of the relevant tools; never empty, each present in the dataset's tools. */
  relevant: string[];
  /** User segment ("new", "experienced", "power", ...); metrics are also reported per segment. */
  segment?: string;
  /** When given, toolset accuracy is measured: is the top suggested toolset one of these? */
  relevantToolsets?: string[];
  /** Source-specific subset label (e.g. "simple_python"), kept for analysis. */
  subset?: string;
}

export interface Dataset {
  name: string;
  source?: string;
  license?: string;
  notes?: string;
  tools: ToolDefinition[];
  /** Empty for tool-only files (shapes a, b, and datasets without queries). */
  queries: LabelledQuery[];
  /** The file (or label) it was read from, for messages. */
  origin: string;
}

/** Read any supported file (shapes a-d). Tool-only files give `queries: []`. */
export function readDataset(path: string): Dataset {
  return parseDataset(readJson(path), path);
}

/** Read only the tools of any supported file (shapes a-d). */
export function readTools(path: string): ToolDefinition[] {
  return readDataset(path).tools;
}

/**
 * Validate parsed JSON. `origin` names the source in messages; when it is a file
 * path, `toolsFrom` is resolved relative to its directory (else to the cwd).
 */
export function parseDataset(json: unknown, origin: string): Dataset {
  if (Array.isArray(json)) {
    return { name: basename(origin), tools: parseTools(json, origin, 'tools'), queries: [], origin };
  }
  if (!isRecord(json)) {
    fail(origin, 'expected a JSON array of tools, a tools/list result or a dataset object');
  }
  // A JSON-RPC response to tools/list: unwrap `result`.
  if (isRecord(json.result) && Array.isArray(json.result.tools) && json.tools === undefined) {
    return parseDataset(json.result, origin);
  }
  const tools = datasetTools(json, origin);
  const queries = json.queries === undefined ? [] : parseQueries(json.queries, origin, tools);
  const dataset: Dataset = {
    name: typeof json.name === 'string' && json.name !== '' ? json.name : basename(origin),
    tools,
    queries,
    origin,
  };
  for (const key of ['source', 'license', 'notes'] as const) {
    const value = json[key];
    if (typeof value === 'string') dataset[key] = value;
  }
  return dataset;
}

function datasetTools(json: Record<string, unknown>, origin: string): ToolDefinition[] {
  if (json.toolsFrom !== undefined) {
    if (json.tools !== undefined) fail(origin, 'has both "tools" and "toolsFrom"; keep one');
    if (typeof json.toolsFrom !== 'string' || json.toolsFrom === '') {
      fail(origin, '"toolsFrom" must be a non-empty relative path string');
    }
    const target = resolve(dirname(origin), json.toolsFrom);
    return readTools(target);
  }
  if (json.tools === undefined) fail(origin, 'has neither "tools" nor "toolsFrom"');
  if (!Array.isArray(json.tools)) fail(origin, '"tools" must be an array');
  return parseTools(json.tools, origin, 'tools');
}

function parseTools(raw: unknown[], origin: string, field: string): ToolDefinition[] {
  const issues: ToolSearchIssue[] = [];
  const tools: ToolDefinition[] = [];
  raw.forEach((item, index) => {
    if (!isRecord(item)) {
      issues.push({ index, field: `${field}[${index}]`, message: 'is not an object' });
      return;
    }
    if (typeof item.name !== 'string' || item.name.trim() === '') {
      issues.push({ index, field: `${field}[${index}].name`, message: 'must be a non-empty string' });
      return;
    }
    const tool = { ...item } as ToolDefinition;
    if (tool.toolset === undefined && typeof item.category === 'string' && item.category !== '') {
      tool.toolset = item.category;
    }
    tools.push(tool);
  });
  if (issues.length > 0) failIssues(origin, issues);
  return tools;
}

function parseQueries(raw: unknown, origin: string, tools: readonly ToolDefinition[]): LabelledQuery[] {
  if (!Array.isArray(raw)) fail(origin, '"queries" must be an array');
  const known = new Set(tools.map((tool) => tool.name));
  const seenIds = new Map<string, number>();
  const issues: ToolSearchIssue[] = [];
  const queries: LabelledQuery[] = [];
  for (const [index, item] of raw.entries()) {
    const parsed = parseQuery(item, index, known, seenIds);
    if ('message' in parsed) issues.push(parsed);
    else queries.push(parsed);
  }
  if (issues.length > 0) failIssues(origin, issues);
  return queries;
}

/** One query, or the first problem found in it. */
function parseQuery(
  item: unknown,
  index: number,
  known: ReadonlySet<string>,
  seenIds: Map<string, number>,
): LabelledQuery | ToolSearchIssue {
  const issue = (field: string, message: string): ToolSearchIssue => ({
    index,
    field: `queries[${index}]${field === '' ? '' : `.${field}`}`,
    message,
  });
  if (!isRecord(item)) return issue('', 'is not an object');
  const { id, query, relevant, segment, relevantToolsets, subset } = item;
  if (typeof id !== 'string' && typeof id !== 'number') return issue('id', 'must be a string or number');
  const idText = String(id);
  const previous = seenIds.get(idText);
  if (previous !== undefined) return issue('id', `"${idText}" repeats queries[${previous}].id`);
  seenIds.set(idText, index);
  if (typeof query !== 'string' || query.trim() === '') return issue('query', 'must be a non-empty string');
  if (!isStringArray(relevant) || relevant.length === 0) {
    return issue('relevant', 'must be a non-empty array of tool names');
  }
  const missing = relevant.filter((name) => !known.has(name));
  if (missing.length > 0) return issue('relevant', `names tools not in the file: ${missing.join(', ')}`);
  const labelled: LabelledQuery = { id: idText, query, relevant: [...new Set(relevant)] };
  if (segment !== undefined && segment !== null) {
    if (typeof segment !== 'string') return issue('segment', 'must be a string');
    labelled.segment = segment;
  }
  if (relevantToolsets !== undefined && relevantToolsets !== null) {
    if (!isStringArray(relevantToolsets) || relevantToolsets.length === 0) {
      return issue('relevantToolsets', 'must be a non-empty array of toolset names');
    }
    labelled.relevantToolsets = relevantToolsets;
  }
  if (typeof subset === 'string') labelled.subset = subset;
  return labelled;
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    fail(path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    fail(path, `is not valid JSON (${(error as Error).message})`);
  }
}

function failIssues(origin: string, issues: ToolSearchIssue[]): never {
  const shown = issues
    .slice(0, 5)
    .map((issue) => `${issue.field} ${issue.message}`)
    .join('; ');
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : '';
  throw new ToolSearchError('INVALID_DATASET', `${origin}: ${shown}${more}`, issues);
}

function fail(origin: string, message: string): never {
  throw new ToolSearchError('INVALID_DATASET', `${origin}: ${message}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
