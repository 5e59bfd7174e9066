import { splitIdentifier } from './identifier.js';

/**
 * Word tokenisation. A regular-expression tokenizer rather than wink-nlp's: on the
 * 9,970-tool Smithery corpus wink's readDoc alone took ~1 s for the descriptions,
 * half the indexing budget; wink-nlp still provides the stemmer and the stop list.
 *
 * A raw token is a run of letters/digits joined by code punctuation, so identifiers
 * in prose ("call list_pages first") are split like tool names are.
 */
const RAW_TOKEN = /[\p{L}\p{N}]+(?:[_.\-'’@/:]+[\p{L}\p{N}]+)*/gu;
const CAMEL = /\p{Ll}\p{Lu}/u;

/**
 * Lower-case words of a text, identifiers split. A camelCase segment also yields its
 * joined form, so "GitHub" matches both "github" and "git hub".
 */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(RAW_TOKEN)) {
    let raw = match[0];
    // Possessives and contractions: "user's" -> "user", "don't" -> "dont".
    raw = raw.replace(/['’]s$/u, '').replace(/['’]/gu, '');
    const parts = splitIdentifier(raw);
    for (const part of parts) words.push(part);
    if (parts.length > 1 && CAMEL.test(raw)) {
      for (const segment of raw.split(/[_\-./:@]+/u)) {
        if (CAMEL.test(segment)) words.push(segment.toLowerCase());
      }
    }
  }
  return words;
}
