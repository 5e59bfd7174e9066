import { DEFAULTS } from '../defaults.js';
import type { AnalyzedQuery } from '../retriever.js';
import type { QueryShape } from '../types.js';
import { normalizedWords } from './analyze.js';
import { looksLikeIdentifier } from './identifier.js';
import { normalizeText } from './normalize.js';
import { stem } from './stem.js';
import { STOP_WORDS } from './stopwords.js';

/**
 * Query shape, read from the already normalised query (normalizeText, case kept): an
 * `identifier` ("takeScreenshot", "server-github create_issue") is code-like; `keywords`
 * ("github issue", "weather") are a few words with no sentence around them; `natural` is a
 * request in prose. The shape picks strategy weights.
 */
export function detectShape(normalized: string): QueryShape {
  // Loops over the split, not filter/some closures: once per search, these stay unoptimised
  // for the first thousand or so searches.
  const tokens = normalized.split(' ');
  let count = 0;
  for (let i = 0; i < tokens.length; i++) if (tokens[i] !== '') count++;
  if (count <= 3) {
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i] !== '' && looksLikeIdentifier(tokens[i]!)) return 'identifier';
    }
  }
  if (count <= DEFAULTS.analysis.maxKeywordWords) {
    let stopWords = 0;
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i] !== '' && STOP_WORDS.has(tokens[i]!.toLowerCase())) stopWords++;
    }
    // "screenshoot the page" is still keywords; "how do I ..." is a sentence even when short.
    if (stopWords * 2 < count || count <= 2) return 'keywords';
  }
  return 'natural';
}

/**
 * The part of a query that is searched: leading whitespace dropped, then at most
 * `maxChars` characters (a lone high surrogate at the cut is dropped too). This is the
 * per-query work budget: it is applied once, before any stage runs, and every stage
 * (analysis, the embedding input, the speller, the query-vector cache) sees only it.
 */
export function boundQuery(raw: string, maxChars: number = DEFAULTS.analysis.maxQueryChars): string {
  // trimStart is linear and stops at the first non-space: a megabyte of spaces before
  // the words must not use up the budget.
  const text = raw.trimStart();
  if (text.length <= maxChars) return text;
  const last = text.charCodeAt(maxChars - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars);
}

/**
 * A query as every strategy sees it. The query is normalised once, here: the shape, the
 * words and the terms are all derived from that one normalised text.
 */
export function analyzeQuery(
  query: string,
  maxChars: number = DEFAULTS.analysis.maxQueryChars,
): AnalyzedQuery {
  const raw = boundQuery(query, maxChars);
  const text = normalizeText(raw, maxChars);
  const words = normalizedWords(text);
  return { raw, normalized: text.toLowerCase(), shape: detectShape(text), words, terms: words.map(stem) };
}
