import { DEFAULTS } from '../defaults.js';

/**
 * Unicode normalisation (NFKC folds full-width letters, ligatures and compatibility
 * forms), lower-casing and whitespace collapsing. Input longer than `maxChars` is
 * truncated, never rejected: a runaway description must not stall indexing.
 */
export function normalizeText(text: string, maxChars: number = DEFAULTS.analysis.maxTextChars): string {
  const bounded = text.length > maxChars ? text.slice(0, maxChars) : text;
  return bounded.normalize('NFKC').replace(/\s+/gu, ' ').trim();
}
