import { DEFAULTS } from '../defaults.js';

/** Anything beyond printable ASCII and ordinary whitespace (where NFKC cannot change the text). */
export const NON_ASCII = /[^\t\n\r -~]/u;

/**
 * Unicode normalisation (NFKC folds full-width letters, ligatures and compatibility
 * forms) and whitespace collapsing; case is kept for identifier splitting, which
 * lower-cases. Input longer than `maxChars` is truncated, never rejected: a runaway
 * description must not stall indexing.
 */
export function normalizeText(text: string, maxChars: number = DEFAULTS.analysis.maxTextChars): string {
  const bounded = text.length > maxChars ? text.slice(0, maxChars) : text;
  // NFKC cannot change plain ASCII; skipping it there halves normalisation time.
  const folded = NON_ASCII.test(bounded) ? bounded.normalize('NFKC') : bounded;
  return folded.replace(/\s+/gu, ' ').trim();
}
