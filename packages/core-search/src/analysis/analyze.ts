import { normalizeText } from './normalize.js';
import { stem } from './stem.js';
import { STOP_WORDS } from './stopwords.js';
import { tokenize } from './tokenize.js';

/** Surface words of a text: normalised, identifiers split, stop words removed, not stemmed. */
export function analyzeWords(text: string, maxChars?: number): string[] {
  return tokenize(normalizeText(text, maxChars)).filter((word) => !STOP_WORDS.has(word));
}

/**
 * The analysis every field and every query goes through: NFKC + lower case, identifier
 * splitting, stop-word removal, Porter2 stemming. Same text in, same terms out.
 */
export function analyze(text: string, maxChars?: number): string[] {
  return analyzeWords(text, maxChars).map(stem);
}
