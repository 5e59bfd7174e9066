/**
 * Learning from use: what people searched for, then loaded or called, is the best phrasing
 * a tool can have. This module keeps those (query, tool) uses aggregated, bounded and
 * ageing, and turns each tool's uses into the terms of its `learned` BM25F field.
 *
 * Deterministic by construction: uses are keyed by their normalised query, counts add
 * up, `lastSeen` keeps the latest, and age is measured from the newest use the engine
 * has seen (never the wall clock), so the same uses in any order, in one call or many,
 * give the same field terms and the same ranking.
 */
import { analyze } from './analysis/analyze.js';
import { normalizeText } from './analysis/normalize.js';
import { DEFAULTS } from './defaults.js';
import { ToolSearchError, type ToolSearchIssue } from './errors.js';

/** One use: a request, and the tool it led to. */
export interface ToolUse {
  /** What the user searched for. Normalised (case, spacing) and cut to the query budget. */
  query: string;
  /** The tool's name as indexed. */
  tool: string;
  /** How many times; default 1. */
  count?: number;
  /** When it last happened, epoch milliseconds; absent: as recent as the newest use. */
  lastSeen?: number;
}

/** A use as kept: aggregated per (tool, normalised query). */
export interface LearnedUse {
  query: string;
  tool: string;
  count: number;
  lastSeen?: number;
}

/** The uses of one tool by normalised query. */
export type ToolUses = Map<string, LearnedUse>;

/** Validate learn() input into a list; INVALID_PHRASING names `uses[i].field`. */
export function validateUses(input: unknown): ToolUse[] {
  const list = Array.isArray(input) ? input : [input];
  const { maxUsesPerCall, maxCount } = DEFAULTS.learning;
  if (list.length > maxUsesPerCall) {
    throw new ToolSearchError(
      'INVALID_PHRASING',
      `toolsearch: learn() takes at most ${maxUsesPerCall} uses per call, got ${list.length}`,
    );
  }
  const issues: ToolSearchIssue[] = [];
  list.forEach((use: unknown, index) => {
    const issue = (field: string, message: string): void => {
      issues.push({ index, field: `uses[${index}]${field === '' ? '' : `.${field}`}`, message });
    };
    if (use === null || typeof use !== 'object' || Array.isArray(use)) {
      issue('', 'must be an object');
      return;
    }
    const u = use as Record<string, unknown>;
    if (typeof u.query !== 'string' || u.query.trim() === '') issue('query', 'must be a non-empty string');
    if (typeof u.tool !== 'string' || u.tool === '') issue('tool', 'must be a non-empty string');
    if (
      u.count !== undefined &&
      (typeof u.count !== 'number' || !Number.isInteger(u.count) || u.count < 1 || u.count > maxCount)
    ) {
      issue('count', `must be an integer from 1 to ${maxCount}`);
    }
    if (
      u.lastSeen !== undefined &&
      (typeof u.lastSeen !== 'number' || !Number.isFinite(u.lastSeen) || u.lastSeen < 0)
    ) {
      issue('lastSeen', 'must be a time in epoch milliseconds (a finite number >= 0)');
    }
  });
  if (issues.length > 0) {
    const first = issues[0]!;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue(s))` : '';
    throw new ToolSearchError(
      'INVALID_PHRASING',
      `toolsearch: ${first.field} ${first.message}${more}`,
      issues,
    );
  }
  return list as ToolUse[];
}

/** The key (and kept text) of a query: normalised, lower case, within the query budget. */
export function useKey(query: string): string {
  return normalizeText(query, DEFAULTS.analysis.maxQueryChars).toLowerCase();
}

/** Merge one use into a tool's uses. */
export function mergeUse(uses: ToolUses, use: ToolUse): void {
  const key = useKey(use.query);
  if (key === '') return;
  const count = use.count ?? 1;
  const known = uses.get(key);
  if (!known) {
    const learned: LearnedUse = { query: key, tool: use.tool, count };
    if (use.lastSeen !== undefined) learned.lastSeen = use.lastSeen;
    uses.set(key, learned);
    return;
  }
  known.count = Math.min(DEFAULTS.learning.maxCount, known.count + count);
  if (use.lastSeen !== undefined) known.lastSeen = Math.max(known.lastSeen ?? use.lastSeen, use.lastSeen);
}

/**
 * A use's strength: its count, halved every `halfLifeDays` of age, age measured from
 * `now` (the newest lastSeen the engine holds). A use without lastSeen does not age.
 */
export function strength(use: LearnedUse, now: number | undefined): number {
  if (use.lastSeen === undefined || now === undefined) return use.count;
  const days = (now - use.lastSeen) / 86_400_000;
  return use.count * 0.5 ** (days / DEFAULTS.learning.halfLifeDays);
}

/** Strongest first; ties by query text (deterministic). */
function byStrength(now: number | undefined) {
  return (a: LearnedUse, b: LearnedUse) =>
    strength(b, now) - strength(a, now) || (a.query < b.query ? -1 : a.query > b.query ? 1 : 0);
}

/**
 * Drop a tool's uses that have aged out (strength below DEFAULTS.learning.minStrength)
 * and, beyond DEFAULTS.learning.maxPerTool, the weakest. Returns how many were dropped.
 */
export function pruneUses(uses: ToolUses, now: number | undefined): number {
  const { maxPerTool, minStrength } = DEFAULTS.learning;
  const kept = [...uses.values()].filter((use) => strength(use, now) >= minStrength).sort(byStrength(now));
  const keep = new Set(kept.slice(0, maxPerTool).map((use) => use.query));
  let dropped = 0;
  for (const key of [...uses.keys()]) {
    if (!keep.has(key)) {
      uses.delete(key);
      dropped++;
    }
  }
  return dropped;
}

/**
 * The clauses of a request: sentences, and parts joined by a sequencing word ("then",
 * "after that", "finally"...). A request that asks for several things in turn is
 * learned, for each tool it led to, only in the part that is about that tool.
 * Linear: one pass of a regular expression without nested quantifiers.
 */
export function requestClauses(text: string): string[] {
  return text
    .split(SENTENCE_END)
    .flatMap((sentence) => sentence.replace(LEADING_SEQUENCE, '').split(SEQUENCE))
    .map((clause) => clause.trim())
    .filter((clause) => clause !== '');
}

/** Words that start the next of several needs in turn. Not "next" or "also": "next week", "also known as". */
const SEQUENCE_WORDS = '(?:and then|then|after that|afterwards|afterward|finally|lastly|additionally)';
const SENTENCE_END = /[.!?;]+(?:\s+|$)/;
const SEQUENCE = new RegExp(`,?\\s+${SEQUENCE_WORDS}[,:]?\\s+`, 'i');
const LEADING_SEQUENCE = new RegExp(`^\\s*${SEQUENCE_WORDS}[,:]?\\s+`, 'i');

/**
 * The words a use teaches its tool. A one-clause request teaches all its words. A request
 * of several clauses (several needs in turn, each served by its own tool) teaches only the
 * clauses sharing the most words with the tool's own text (`own`: its analysed name,
 * description, schema and phrasings), so "get the patient's profile, then the health
 * statistics of China" does not teach the profile tool about statistics. When no clause
 * shares a word, the tool cannot be told apart: the whole request is kept.
 * Measured at 4564462 (learn 80% of queries by a seeded hash, test on the rest, fused; not the
 * split of benchmarks/results/learning.json): Seal-Tools,
 * whose requests chain two to six unrelated needs, has nDCG@10 .914 without learning,
 * .806 learning whole requests, .908 learning clauses (.910 with the learned backoff of
 * Corpus.fieldWeightedTfs); BFCL .856 -> .865; MetaTool, one need per request, .853 -> .850.
 */
export function useTerms(query: string, own: ReadonlySet<string> | undefined): string[] {
  const maxChars = DEFAULTS.analysis.maxQueryChars;
  const clauses = own === undefined ? [] : requestClauses(query);
  if (clauses.length < 2) return analyze(query, maxChars);
  const analysed = clauses.map((clause) => analyze(clause, maxChars));
  const overlap = analysed.map((words) => new Set(words.filter((word) => own!.has(word))).size);
  const best = Math.max(...overlap);
  if (best === 0) return analyze(query, maxChars);
  return analysed.flatMap((words, i) => (overlap[i] === best ? words : []));
}

/**
 * The `learned` field of a tool: each use's query terms (useTerms), repeated by how often
 * it recurs (1 + log2 of its strength, at most DEFAULTS.learning.maxRepeat): a request made
 * a hundred times counts more than one made once, but not a hundred times more.
 */
export function learnedTerms(
  uses: ToolUses | undefined,
  now: number | undefined,
  own?: ReadonlySet<string>,
): string[] {
  if (!uses || uses.size === 0) return [];
  const terms: string[] = [];
  for (const use of [...uses.values()].sort((a, b) => (a.query < b.query ? -1 : a.query > b.query ? 1 : 0))) {
    const s = strength(use, now);
    const repeat = Math.min(DEFAULTS.learning.maxRepeat, 1 + Math.floor(Math.log2(Math.max(1, s))));
    const words = useTerms(use.query, own);
    for (let r = 0; r < repeat; r++) terms.push(...words);
  }
  return terms;
}
