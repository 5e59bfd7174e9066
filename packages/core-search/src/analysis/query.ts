import { DEFAULTS } from '../defaults.js';
import type { AnalyzedQuery } from '../retriever.js';
import type { QueryShape } from '../types.js';
import { analyzeWords } from './analyze.js';
import { looksLikeIdentifier } from './identifier.js';
import { normalizeText } from './normalize.js';
import { stem } from './stem.js';
import { STOP_WORDS } from './stopwords.js';

/**
 * Query shape: an `identifier` ("takeScreenshot", "server-github create_issue") is
 * code-like; `keywords` ("github issue", "weather") are a few words with no sentence
 * around them; `natural` is a request in prose. The shape picks strategy weights.
 */
export function detectShape(normalized: string): QueryShape {
  const tokens = normalized.split(' ').filter((token) => token !== '');
  if (tokens.length <= 3 && tokens.some(looksLikeIdentifier)) return 'identifier';
  if (tokens.length <= DEFAULTS.analysis.maxKeywordWords) {
    const stopWords = tokens.filter((token) => STOP_WORDS.has(token.toLowerCase())).length;
    // "screenshoot the page" is still keywords; "how do I ..." is a sentence even when short.
    if (stopWords * 2 < tokens.length || tokens.length <= 2) return 'keywords';
  }
  return 'natural';
}

export function analyzeQuery(raw: string): AnalyzedQuery {
  const normalized = normalizeText(raw, DEFAULTS.analysis.maxQueryChars).toLowerCase();
  const shape = detectShape(normalizeText(raw, DEFAULTS.analysis.maxQueryChars));
  const words = analyzeWords(raw, DEFAULTS.analysis.maxQueryChars);
  return { raw, normalized, shape, words, terms: words.map(stem) };
}
