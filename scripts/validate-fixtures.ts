/**
 * Checks a labelled query file (fixtures/queries/*.json, the dataset format of
 * ../shared/datasets/README.md with `toolsFrom` instead of `tools`) and lists every
 * problem at once, so a label fix is one pass, not one run per mistake.
 *
 *   npx tsx scripts/validate-fixtures.ts [query-file.json ...]   # default: every committed file
 *
 * Errors: a relevant name missing from the registry, repeated ids, a segment outside
 * the file's segments (new/experienced/power unless told), relevantToolsets that differ
 * from the relevant tools' toolsets, empty relevant lists, repeated query texts, a query
 * text that also appears in a file this one must be disjoint from (a held-out file and
 * the team's fixtures), fewer than the minimum queries in a segment. Warning only: how
 * many `new` queries share content words with their relevant tools' names (such queries
 * test vocabulary the segment is meant to avoid).
 *
 * Stand-alone on purpose (no engine import): it judges the labels, not an engine,
 * and keeps working while the engine changes.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
// The engine's own rules, so the validator and the engine cannot disagree on a name.
import { type ToolDefinition, toolsetOf } from '@toolsearch/core-search';
import { bareName } from '@toolsearch/core-search/internals';

export const SEGMENTS = ['new', 'experienced', 'power'] as const;
export type Segment = (typeof SEGMENTS)[number];
export const DEFAULT_MIN_PER_SEGMENT = 80;

export type ProblemKind =
  | 'unreadable'
  | 'shape'
  | 'unknown-tool'
  | 'duplicate-id'
  | 'bad-segment'
  | 'toolset-mismatch'
  | 'empty-relevant'
  | 'duplicate-relevant'
  | 'duplicate-query'
  | 'shared-query'
  | 'segment-count'
  | 'vocabulary-overlap';

export interface FixtureProblem {
  kind: ProblemKind;
  severity: 'error' | 'warning';
  /** Where: "queries[12] (new-013)", a field name, or the file itself. */
  where: string;
  message: string;
}

type Report = (kind: ProblemKind, where: string, message: string) => void;

export interface ValidateOptions {
  /** Least number of queries each of `segments` must have; 80 unless told. */
  minPerSegment?: number;
  /** The segments the file may hold; a query in any other is an error. All three unless told. */
  segments?: readonly Segment[];
  /**
   * Other query files that must not share a query text with this one (case and spacing
   * ignored), so a held-out file cannot quietly repeat what the pack's authors saw.
   */
  disjointFrom?: readonly string[];
}

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The committed query files, relative to the repository, and what each must hold. */
export const COMMITTED_QUERY_FILES: ReadonlyArray<{ file: string; options: ValidateOptions }> = [
  { file: 'fixtures/queries/toolsearch-queries.json', options: {} },
  {
    // New users only, held out from the phrasing pack (fixtures/README.md).
    file: 'fixtures/queries/new-users-holdout.json',
    options: {
      segments: ['new'],
      minPerSegment: 90,
      disjointFrom: ['fixtures/queries/toolsearch-queries.json'],
    },
  },
];

/** The options a committed file is checked with; defaults for any other path. */
export function optionsFor(path: string): ValidateOptions {
  const absolute = resolve(path);
  const known = COMMITTED_QUERY_FILES.find((entry) => resolve(REPO_ROOT, entry.file) === absolute);
  if (known === undefined) return {};
  const disjointFrom = known.options.disjointFrom?.map((file) => resolve(REPO_ROOT, file));
  return disjointFrom === undefined ? known.options : { ...known.options, disjointFrom };
}

interface RegistryTool {
  name: string;
  toolset: string;
}

/** Every problem in one query file; an empty list means the file is sound. */
export function validateQueryFile(path: string, options: ValidateOptions = {}): FixtureProblem[] {
  const problems: FixtureProblem[] = [];
  const error: Report = (kind, where, message) => {
    problems.push({ kind, severity: 'error', where, message });
  };

  const json = readJson(path);
  if ('failure' in json) {
    error('unreadable', path, json.failure);
    return problems;
  }
  const file = json.value;
  if (!isRecord(file)) {
    error('shape', path, 'expected a JSON object {name, source, license, notes, toolsFrom, queries}');
    return problems;
  }
  for (const key of ['name', 'source', 'license'] as const) {
    if (typeof file[key] !== 'string' || file[key] === '') error('shape', key, 'must be a non-empty string');
  }
  const registry = loadRegistry(file, path, error);
  if (!Array.isArray(file.queries)) {
    error('shape', 'queries', 'must be an array');
    return problems;
  }
  const segments = options.segments ?? SEGMENTS;
  checkQueries(file.queries, segments, registry, error);
  for (const other of options.disjointFrom ?? []) checkDisjoint(file.queries, other, error);
  checkSegmentCounts(file.queries, segments, options.minPerSegment ?? DEFAULT_MIN_PER_SEGMENT, error);
  const overlap = vocabularyOverlap(file.queries, registry);
  if (overlap !== undefined) problems.push(overlap);
  return problems;
}

/** Tools by name, from `toolsFrom` (relative to the query file) or inline `tools`. */
function loadRegistry(
  file: Record<string, unknown>,
  path: string,
  error: Report,
): Map<string, RegistryTool> | undefined {
  let raw: unknown = file.tools;
  if (file.toolsFrom !== undefined) {
    if (typeof file.toolsFrom !== 'string' || file.toolsFrom === '') {
      error('shape', 'toolsFrom', 'must be a non-empty relative path');
      return undefined;
    }
    const target = resolve(dirname(path), file.toolsFrom);
    const read = readJson(target);
    if ('failure' in read) {
      error('unreadable', 'toolsFrom', `${target}: ${read.failure}`);
      return undefined;
    }
    raw = isRecord(read.value) ? read.value.tools : read.value;
  }
  if (!Array.isArray(raw)) {
    error('shape', 'tools', 'no tool list: give "toolsFrom" (a path) or "tools" (an array)');
    return undefined;
  }
  const tools = new Map<string, RegistryTool>();
  for (const item of raw) {
    if (isRecord(item) && typeof item.name === 'string') {
      tools.set(item.name, { name: item.name, toolset: toolsetOf(item as unknown as ToolDefinition) });
    }
  }
  return tools;
}

function checkQueries(
  queries: unknown[],
  segments: readonly Segment[],
  registry: Map<string, RegistryTool> | undefined,
  error: Report,
) {
  const seen: Seen = { ids: new Map(), texts: new Map() };
  queries.forEach((item, index) => {
    checkQuery(item, index, seen, segments, registry, error);
  });
}

/** Where a query is, for messages: "queries[12] (new-013)". */
function whereOf(item: unknown, index: number): string {
  return `queries[${index}]${isRecord(item) && typeof item.id === 'string' ? ` (${item.id})` : ''}`;
}

/** The form two query texts are compared in: trimmed, lower case, spacing collapsed. */
function textKey(query: string): string {
  return query.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** Error for each query whose text also appears in `other` (a query file). */
function checkDisjoint(queries: unknown[], other: string, error: Report) {
  const read = readJson(other);
  if ('failure' in read) {
    error('unreadable', other, read.failure);
    return;
  }
  if (!isRecord(read.value) || !Array.isArray(read.value.queries)) {
    error('shape', other, 'has no "queries" array to compare with');
    return;
  }
  const texts = new Set<string>();
  for (const item of read.value.queries)
    if (isRecord(item) && typeof item.query === 'string') texts.add(textKey(item.query));
  queries.forEach((item, index) => {
    if (isRecord(item) && typeof item.query === 'string' && texts.has(textKey(item.query))) {
      error('shared-query', whereOf(item, index), `query text also appears in ${other}`);
    }
  });
}

/** Where each id and (normalised) query text was first seen, to name the earlier one. */
interface Seen {
  ids: Map<string, string>;
  texts: Map<string, string>;
}

function checkQuery(
  item: unknown,
  index: number,
  seen: Seen,
  segments: readonly Segment[],
  registry: Map<string, RegistryTool> | undefined,
  error: Report,
): void {
  const where = whereOf(item, index);
  if (!isRecord(item)) {
    error('shape', where, 'is not an object');
    return;
  }
  const { id, query, segment } = item;
  if (typeof id !== 'string' || id === '') error('shape', where, 'id must be a non-empty string');
  else if (seen.ids.has(id))
    error('duplicate-id', where, `id "${id}" is already used by ${seen.ids.get(id)}`);
  else seen.ids.set(id, where);

  if (typeof query !== 'string' || query.trim() === '')
    error('shape', where, 'query must be a non-empty string');
  else {
    const key = textKey(query);
    const previous = seen.texts.get(key);
    if (previous !== undefined) error('duplicate-query', where, `query text repeats ${previous}`);
    else seen.texts.set(key, where);
  }

  if (!segments.includes(segment as Segment)) {
    error('bad-segment', where, `segment ${JSON.stringify(segment)} is not one of ${segments.join(', ')}`);
  }
  checkLabels(item, where, registry, error);
}

/** `relevant` names known tools, once each; `relevantToolsets` are exactly their toolsets. */
function checkLabels(
  item: Record<string, unknown>,
  where: string,
  registry: Map<string, RegistryTool> | undefined,
  error: Report,
): void {
  const { relevant, relevantToolsets } = item;
  if (!isStringArray(relevant)) {
    error('shape', where, 'relevant must be an array of tool names');
    return;
  }
  if (relevant.length === 0) {
    error('empty-relevant', where, 'relevant is empty');
    return;
  }
  const repeated = relevant.filter((name, i) => relevant.indexOf(name) !== i);
  if (repeated.length > 0) error('duplicate-relevant', where, `relevant repeats ${repeated.join(', ')}`);
  if (registry === undefined) return;
  const unknown = relevant.filter((name) => !registry.has(name));
  if (unknown.length > 0) {
    error('unknown-tool', where, `relevant names unknown tools: ${unknown.join(', ')}`);
    return;
  }
  const expected = [...new Set(relevant.map((name) => registry.get(name)!.toolset))].sort();
  if (!isStringArray(relevantToolsets)) {
    error('toolset-mismatch', where, `relevantToolsets missing; expected ${expected.join(', ')}`);
    return;
  }
  const given = [...new Set(relevantToolsets)].sort();
  if (given.join('\n') !== expected.join('\n')) {
    error(
      'toolset-mismatch',
      where,
      `relevantToolsets [${given.join(', ')}] differ from the relevant tools' toolsets [${expected.join(', ')}]`,
    );
  }
}

function checkSegmentCounts(queries: unknown[], segments: readonly Segment[], min: number, error: Report) {
  for (const segment of segments) {
    const count = queries.filter((item) => isRecord(item) && item.segment === segment).length;
    if (count < min)
      error('segment-count', 'queries', `segment "${segment}" has ${count} queries; at least ${min} needed`);
  }
}

// Words too common to count as shared vocabulary between a request and a tool name.
const STOPWORDS = new Set(
  (
    'the and for with from into onto this that these those what whats which who whom when where why how ' +
    'are was were been being have has had can could would should will just all any some get got use using ' +
    'you your our ours mine please want need there their them they its than then out off not now'
  ).split(' '),
);

/** Lower-case content words; splits camelCase, snake_case and kebab-case; drops a plural "s". */
export function contentWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length >= 3 && !STOPWORDS.has(word))
    .map((word) =>
      word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word,
    );
}

/** Warning: `new` queries whose words appear in their relevant tools' (bare) names. */
function vocabularyOverlap(queries: unknown[], registry: Map<string, RegistryTool> | undefined) {
  if (registry === undefined) return undefined;
  const hits: string[] = [];
  let total = 0;
  for (const item of queries) {
    if (!isRecord(item) || item.segment !== 'new' || typeof item.query !== 'string') continue;
    if (!isStringArray(item.relevant)) continue;
    total++;
    const nameWords = new Set(item.relevant.flatMap((name) => contentWords(bareName(name))));
    const shared = [...new Set(contentWords(item.query).filter((word) => nameWords.has(word)))];
    if (shared.length > 0) hits.push(`${String(item.id)} (${shared.join(', ')})`);
  }
  if (hits.length === 0) return undefined;
  const problem: FixtureProblem = {
    kind: 'vocabulary-overlap',
    severity: 'warning',
    where: 'segment new',
    message: `${hits.length} of ${total} new queries share content words with their relevant tools' names: ${hits.join('; ')}`,
  };
  return problem;
}

function readJson(path: string): { value: unknown } | { failure: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    return { failure: `cannot be read (${(cause as NodeJS.ErrnoException).code ?? String(cause)})` };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (cause) {
    return { failure: `is not valid JSON (${(cause as Error).message})` };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function main(argv: string[]): number {
  const files = argv.length > 0 ? argv : COMMITTED_QUERY_FILES.map((entry) => resolve(REPO_ROOT, entry.file));
  let errors = 0;
  for (const file of files) {
    const problems = validateQueryFile(file, optionsFor(file));
    for (const problem of problems) {
      const line = `toolsearch: ${file}: ${problem.severity}: ${problem.where}: ${problem.message}`;
      if (problem.severity === 'error') {
        errors++;
        console.error(line);
      } else console.warn(line);
    }
    const warnings = problems.filter((problem) => problem.severity === 'warning').length;
    console.log(`${file}: ${problems.length - warnings} errors, ${warnings} warnings`);
  }
  return errors > 0 ? 1 : 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
