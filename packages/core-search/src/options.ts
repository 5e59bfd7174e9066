import { DEFAULTS } from './defaults.js';
import { ToolSearchError } from './errors.js';
import { STRATEGY_NAMES, type StrategyName } from './types.js';

/** Throws UNKNOWN_STRATEGY unless `value` is an array of strategy names. */
export function strategyList(value: unknown, option: string): StrategyName[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new ToolSearchError(
      'INVALID_OPTION',
      `toolsearch: option "${option}" must be an array of strategy names`,
    );
  }
  const unknown = value.filter((name) => !(STRATEGY_NAMES as readonly unknown[]).includes(name));
  if (unknown.length > 0) {
    throw new ToolSearchError(
      'UNKNOWN_STRATEGY',
      `toolsearch: option "${option}" names unknown strategy ${unknown.map((n) => JSON.stringify(n)).join(', ')}; known: ${STRATEGY_NAMES.join(', ')}`,
    );
  }
  return value as StrategyName[];
}

/** Throws INVALID_OPTION unless `value` is a boolean (or undefined: `fallback`). */
export function booleanOption(value: unknown, option: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new ToolSearchError('INVALID_OPTION', `toolsearch: option "${option}" must be true or false`);
  }
  return value;
}

export function positiveNumber(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ToolSearchError('INVALID_OPTION', `toolsearch: option "${option}" must be a positive number`);
  }
  return value;
}

export function integerInRange(value: unknown, option: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new ToolSearchError(
      'INVALID_OPTION',
      `toolsearch: option "${option}" must be an integer from 1 to ${max}`,
    );
  }
  return value;
}

export function weightMap(value: unknown): Partial<Record<StrategyName, number>> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolSearchError(
      'INVALID_OPTION',
      'toolsearch: option "weights" must be an object of strategy -> number',
    );
  }
  strategyList(Object.keys(value), 'weights');
  for (const [name, weight] of Object.entries(value)) {
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
      throw new ToolSearchError('INVALID_OPTION', `toolsearch: weights.${name} must be a number >= 0`);
    }
  }
  return value as Partial<Record<StrategyName, number>>;
}

export function synonymOption(
  value: unknown,
  limits: Pick<Limits, 'maxSynonymPairs' | 'maxSynonymChars'> = DEFAULTS.limits,
): Record<string, string[]> {
  if (value === undefined) return {};
  const valid =
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every(
      (list) => Array.isArray(list) && list.every((item) => typeof item === 'string'),
    );
  if (!valid) {
    throw new ToolSearchError(
      'INVALID_OPTION',
      'toolsearch: option "synonyms" must map words to arrays of strings',
    );
  }
  // Bounded: building the map costs time per pair, and phrase lookup per query grows
  // with the longest phrase (100,000 keys once took 10 s to construct).
  const synonyms = value as Record<string, string[]>;
  let pairs = 0;
  for (const [word, targets] of Object.entries(synonyms)) {
    pairs += targets.length;
    if (pairs > limits.maxSynonymPairs) {
      throw new ToolSearchError(
        'INVALID_OPTION',
        `toolsearch: option "synonyms" has more than ${limits.maxSynonymPairs} word -> target pairs (limits.maxSynonymPairs)`,
      );
    }
    const long = [word, ...targets].find((text) => text.length > limits.maxSynonymChars);
    if (long !== undefined) {
      throw new ToolSearchError(
        'INVALID_OPTION',
        `toolsearch: option "synonyms": "${long.slice(0, 40)}..." (under "${word.slice(0, 40)}") is longer than ${limits.maxSynonymChars} characters (limits.maxSynonymChars)`,
      );
    }
  }
  return synonyms;
}

/** The engine's size budgets (ToolSearchOptions.limits). */
export type Limits = { -readonly [K in keyof typeof DEFAULTS.limits | 'maxQueryChars']: number };

/** ToolSearchOptions.limits over the defaults; each must be a positive integer. */
export function limitOptions(value: unknown): Limits {
  const limits: Limits = { ...DEFAULTS.limits, maxQueryChars: DEFAULTS.analysis.maxQueryChars };
  if (value === undefined) return limits;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolSearchError('INVALID_OPTION', 'toolsearch: option "limits" must be an object');
  }
  for (const [key, limit] of Object.entries(value)) {
    if (!(key in limits)) {
      throw new ToolSearchError(
        'INVALID_OPTION',
        `toolsearch: option "limits" has unknown key "${key}"; known: ${Object.keys(limits).join(', ')}`,
      );
    }
    if (limit === undefined) continue;
    limits[key as keyof Limits] = integerInRange(limit, `limits.${key}`, 0, Number.MAX_SAFE_INTEGER);
  }
  return limits;
}

export function stringList(value: unknown, option: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new ToolSearchError('INVALID_OPTION', `toolsearch: option "${option}" must be an array of strings`);
  }
  return value as string[];
}
