/**
 * Identifier splitting: tool names mix every case style, so "browser_takeScreenshot",
 * "get-file.contents", "server-github__create_issue" and "HTTPRequest2JSON" all have
 * to become plain lower-case words before anything else can match them.
 */
import { DEFAULTS } from '../defaults.js';

/** Separators inside identifiers: snake, kebab, dots, slashes, `@scope`, `server__tool`. */
const SEPARATORS = /[\s_\-./:@\\|]+/u;

/**
 * Camel-case boundaries: "takeScreenshot" -> "take Screenshot", "HTTPRequest" -> "HTTP Request",
 * "v2Api" -> "v2 Api". Digits stay attached to the letters before them ("s3", "v2", "oauth2").
 */
const CAMEL_LOWER_UPPER = /(\p{Ll}|\p{N})(\p{Lu})/gu;
const CAMEL_ACRONYM = /(\p{Lu})(\p{Lu}\p{Ll})/gu;

/**
 * Identifiers repeat (a server's name is split for each of its tools, and the Unicode
 * regular expressions below were the largest single cost of indexing), so splits are
 * memoised. Bounded, like the other analysis memos.
 */
const splitCache = new Map<string, readonly string[]>();

/** Split one identifier into lower-case words, in order. Empty parts are dropped. */
export function splitIdentifier(identifier: string): string[] {
  return identifierWords(identifier).slice(); // callers may extend their copy
}

/**
 * splitIdentifier's words, read-only and shared: the array the memo holds, so documents
 * with the same bare name (a server's forks and mirrors) hold one array, not a copy each.
 */
export function identifierWords(identifier: string): readonly string[] {
  let words = splitCache.get(identifier);
  if (words === undefined) {
    words = split(identifier);
    if (splitCache.size >= DEFAULTS.memos.maxIdentifierSplits) splitCache.clear();
    splitCache.set(identifier, words);
  }
  return words;
}

function split(identifier: string): string[] {
  const words: string[] = [];
  for (const part of identifier.split(SEPARATORS)) {
    if (part === '') continue;
    const spaced = part.replace(CAMEL_LOWER_UPPER, '$1 $2').replace(CAMEL_ACRONYM, '$1 $2');
    for (const word of spaced.split(' ')) {
      const lower = word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
      if (lower !== '') words.push(lower);
    }
  }
  return words;
}

/** The part of a `server__tool` name after the last `__`; the name itself when there is none. */
export function bareName(name: string): string {
  const at = name.lastIndexOf('__');
  return at >= 0 && at + 2 < name.length ? name.slice(at + 2) : name;
}

/** The `server` part of a `server__tool` name, or undefined. */
export function serverPrefix(name: string): string | undefined {
  const at = name.lastIndexOf('__');
  return at > 0 ? name.slice(0, at) : undefined;
}

/**
 * A case- and separator-insensitive key: "Server-GitHub create_issue" and
 * "server_github__createIssue" both become "servergithubcreateissue". Exact-name
 * matching compares these keys.
 */
export function compactKey(text: string): string {
  // NFKC and the Unicode classes reduce to the ASCII ones on ASCII text, much faster.
  if (PRINTABLE_ASCII.test(text)) return text.toLowerCase().replace(/[^a-z0-9]+/g, '');
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

const PRINTABLE_ASCII = /^[ -~]*$/;

/** Spellings only code uses. */
const IDENTIFIER_SYNTAX = [
  /\p{L}[_.]\p{L}|__/u, // snake_case, dotted.name, server__tool
  /\p{Ll}\p{Lu}/u, // camelCase
  /\p{L}-\p{L}/u, // kebab-case
  /^\p{L}+\d+\p{L}*$/u, // s3, v2, oauth2
];

/** True when a token looks like code rather than a word: snake, kebab, dotted, camelCase. */
export function looksLikeIdentifier(token: string): boolean {
  return IDENTIFIER_SYNTAX.some((pattern) => pattern.test(token));
}
