import { DEFAULTS } from '../defaults.js';
import { splitIdentifier } from './identifier.js';

/**
 * Word tokenisation. A regular-expression tokenizer rather than wink-nlp's: on the
 * 9,970-tool Smithery corpus wink's readDoc alone took ~1 s for the descriptions,
 * half the indexing budget.
 *
 * A raw token is a run of letters/digits joined by code punctuation, so identifiers
 * in prose ("call list_pages first") are split like tool names are.
 */
export const RAW_TOKEN = /[\p{L}\p{N}]+(?:[_.\-'’@/:]+[\p{L}\p{N}]+)*/gu;
const CAMEL = /\p{Ll}\p{Lu}/u;
/** A plain word ("file", "File", "s3"): nothing to split. */
const SIMPLE = /^[A-Za-z]?[a-z0-9]*$/;

/**
 * Raw token -> lower-case words. Tokens repeat heavily across a registry ("the",
 * "file", "repository"), so identifier splitting runs once per distinct token. Bounded.
 */
const cache = new Map<string, readonly string[]>();

/**
 * The words of one raw token, identifiers split. A camelCase segment also yields its
 * joined form, so "GitHub" matches both "github" and "git hub".
 */
export function tokenWords(token: string): readonly string[] {
  let words = cache.get(token);
  if (words !== undefined) return words;
  if (SIMPLE.test(token)) {
    words = [token.toLowerCase()];
    if (cache.size >= DEFAULTS.memos.maxTokens) cache.clear();
    cache.set(token, words);
    return words;
  }
  // Possessives and contractions: "user's" -> "user", "don't" -> "dont".
  const raw = token.replace(/['’]s$/u, '').replace(/['’]/gu, '');
  const parts = splitIdentifier(raw);
  if (parts.length > 1 && CAMEL.test(raw)) {
    for (const segment of raw.split(/[_\-./:@]+/u)) {
      if (CAMEL.test(segment)) parts.push(segment.toLowerCase());
    }
  }
  words = parts;
  if (cache.size >= DEFAULTS.memos.maxTokens) cache.clear();
  cache.set(token, words);
  return words;
}

/** Lower-case words of a (normalised) text, identifiers split. */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(RAW_TOKEN)) {
    for (const word of tokenWords(match[0])) words.push(word);
  }
  return words;
}
