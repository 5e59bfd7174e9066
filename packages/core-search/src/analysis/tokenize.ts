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
const WORD_CHAR = '[\\p{L}\\p{N}]';
const JOINER = "[_.\\-'’@/:]";
export const RAW_TOKEN = new RegExp(`${WORD_CHAR}+(?:${JOINER}+${WORD_CHAR}+)*`, 'gu');
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
  words = joinedAsciiWords(token) ?? splitWords(token);
  if (cache.size >= DEFAULTS.memos.maxTokens) cache.clear();
  cache.set(token, words);
  return words;
}

/** tokenWords of a token that is not SIMPLE, by the identifier rules (regular expressions). */
export function splitWords(token: string): string[] {
  // Possessives and contractions: "user's" -> "user", "don't" -> "dont".
  const raw = token.replace(/['’]s$/u, '').replace(/['’]/gu, '');
  const parts = splitIdentifier(raw);
  if (parts.length > 1 && CAMEL.test(raw)) {
    for (const segment of raw.split(/[_\-./:@]+/u)) {
      if (CAMEL.test(segment)) parts.push(segment.toLowerCase());
    }
  }
  return parts;
}

/**
 * splitWords of the ASCII tokens that need no case rule: words of letters and digits, each
 * lower case but perhaps its first letter, joined by _ - . / : @ and ASCII apostrophes
 * ("file.", "e.g.", "user_id", "'events'", "https://x.io/a-b", "Paris."). Those are a
 * separator split (an apostrophe is dropped, a final 's with it), which a loop finds
 * without splitWords' regular expressions and without filling the identifier memo; they
 * are about two fifths of a registry's distinct tokens, most of the rest simple words.
 * undefined for any other token (an upper-case letter inside a word, other characters).
 */
export function joinedAsciiWords(token: string): string[] | undefined {
  let end = token.length;
  // splitWords drops a final 's (an apostrophe, then s) before the other apostrophes.
  if (end >= 2 && token.charCodeAt(end - 1) === 0x73 && token.charCodeAt(end - 2) === 0x27) end -= 2;
  const words: string[] = [];
  let word = '';
  let start = 0; // where the part of `word` not yet taken from `token` begins
  let upper = false;
  for (let i = 0; i < end; i++) {
    const code = token.charCodeAt(i);
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39)) continue;
    if (code >= 0x41 && code <= 0x5a) {
      // Only a word's first letter: "Paris", not "fooBar" (a camel-case boundary).
      if (i > start || word !== '') return undefined;
      upper = true;
      continue;
    }
    if (code === 0x27) {
      word += token.slice(start, i);
    } else if (JOINS[code] === 1) {
      word += token.slice(start, i);
      if (word !== '') words.push(upper ? word.toLowerCase() : word);
      word = '';
      upper = false;
    } else {
      return undefined;
    }
    start = i + 1;
  }
  word += token.slice(start, end);
  if (word !== '') words.push(upper ? word.toLowerCase() : word);
  return words;
}

/** 1 for _ - . / : @, the separators of an identifier that can be inside a token. */
const JOINS = new Uint8Array(0x80);
for (const char of '_-./:@') JOINS[char.charCodeAt(0)] = 1;

/** Lower-case words of a (normalised) text, identifiers split. */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  if (asciiTokens(text, words)) return words;
  for (const match of text.matchAll(RAW_TOKEN)) {
    for (const word of tokenWords(match[0])) words.push(word);
  }
  return words;
}

/** 1 for the ASCII characters of RAW_TOKEN's WORD_CHAR (letters, digits), 2 for its JOINERs. */
const ASCII_CLASS = new Uint8Array(0x80);
{
  const word = new RegExp(WORD_CHAR, 'u');
  const joiner = new RegExp(JOINER, 'u');
  for (let code = 0; code < 0x80; code++) {
    const char = String.fromCharCode(code);
    ASCII_CLASS[code] = word.test(char) ? 1 : joiner.test(char) ? 2 : 0;
  }
}

/**
 * tokenize() of an ASCII text (every query in a latency run): RAW_TOKEN's matches found by
 * a loop over character codes, pushed into `words`; false (nothing pushed) for any other
 * text. A match is a run of letters and digits, extended over joiners only when letters or
 * digits follow them. With normalizeText's check for text already normal, analyzeQuery of the
 * latency queries went 3.5 -> 1.9 µs CPU (same process, interleaved, load 8): matchAll's
 * iterator and match arrays were most of it.
 */
function asciiTokens(text: string, words: string[]): boolean {
  const length = text.length;
  for (let i = 0; i < length; i++) if (text.charCodeAt(i) >= 0x80) return false;
  let i = 0;
  while (i < length) {
    if (ASCII_CLASS[text.charCodeAt(i)] !== 1) {
      i++;
      continue;
    }
    const start = i;
    let end = i;
    for (;;) {
      while (end < length && ASCII_CLASS[text.charCodeAt(end)] === 1) end++;
      let next = end;
      while (next < length && ASCII_CLASS[text.charCodeAt(next)] === 2) next++;
      if (next === end || next === length || ASCII_CLASS[text.charCodeAt(next)] !== 1) break;
      end = next;
    }
    for (const word of tokenWords(text.slice(start, end))) words.push(word);
    i = end;
  }
  return true;
}
