import { DEFAULTS } from '../defaults.js';

/**
 * Printable ASCII with single spaces between words and none at the ends (most queries):
 * what normalizeText would return unchanged, found without its two regular expressions.
 */
function alreadyNormal(text: string): boolean {
  const last = text.length - 1;
  for (let i = 0; i <= last; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x20 ? i === 0 || i === last || text.charCodeAt(i - 1) === 0x20 : code < 0x20 || code > 0x7e)
      return false;
  }
  return true;
}

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
  if (alreadyNormal(bounded)) return bounded;
  // NFKC cannot change plain ASCII; skipping it there halves normalisation time.
  const folded = NON_ASCII.test(bounded) ? bounded.normalize('NFKC') : bounded;
  return folded.replace(/\s+/gu, ' ').trim();
}
