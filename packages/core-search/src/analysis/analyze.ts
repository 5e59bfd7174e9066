import { DEFAULTS } from '../defaults.js';
import { NON_ASCII, normalizeText } from './normalize.js';
import { stem } from './stem.js';
import { STOP_WORDS } from './stopwords.js';
import { tokenize, tokenWords } from './tokenize.js';

/** Anything that cannot be inside a token (see RAW_TOKEN in tokenize.ts). */
export const SEPARATOR = /[^\p{L}\p{N}_.\-'’@/:]+/u;

/** Surface words of a text: normalised, identifiers split, stop words removed, not stemmed. */
export function analyzeWords(text: string, maxChars?: number): string[] {
  return normalizedWords(normalizeText(text, maxChars));
}

/** analyzeWords of a text normalizeText has already normalised (a query is normalised once). */
export function normalizedWords(normalized: string): string[] {
  return tokenize(normalized).filter((word) => !STOP_WORDS.has(word));
}

/** Raw token -> analysed terms; one lookup per token is what makes indexing 10k tools fast. */
const termCache = new Map<string, readonly string[]>();

function tokenTerms(token: string): readonly string[] {
  let terms = termCache.get(token);
  if (terms === undefined) {
    terms = tokenWords(token)
      .filter((word) => !STOP_WORDS.has(word))
      .map(stem);
    if (termCache.size >= DEFAULTS.memos.maxTokens) termCache.clear();
    termCache.set(token, terms);
  }
  return terms;
}

/**
 * The analysis every field and every query goes through: NFKC + lower case, identifier
 * splitting, stop-word removal, Porter2 stemming. Same text in, same terms out.
 */
export function analyze(text: string, maxChars: number = DEFAULTS.analysis.maxTextChars): string[] {
  const terms: string[] = [];
  // normalizeText's whitespace collapsing cannot change where tokens are (whitespace is a
  // separator), so only its bound and its NFKC are applied here: collapsing was a third of
  // the time spent on a description.
  const bounded = text.length > maxChars ? text.slice(0, maxChars) : text;
  // Tokens are the runs between SEPARATOR matches, found by loops over character codes:
  // splitting with the regular expression cost ~25% more on ASCII text and ~50% more on the
  // rest (its Unicode classes on two-byte strings), and built an array of tokens.
  if (NON_ASCII.test(bounded)) unicodeTokens(terms, bounded.normalize('NFKC'));
  else asciiTokens(terms, bounded);
  return terms;
}

/** The tokens of printable ASCII text (most descriptions and schemas): a loop of its own, ~25% faster than one shared with unicodeTokens. */
function asciiTokens(terms: string[], text: string): void {
  let start = -1;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    if (ASCII_TOKEN_CHAR[text.charCodeAt(i)] === 1) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      pushTerms(terms, text.slice(start, i));
      start = -1;
    }
  }
  if (start >= 0) pushTerms(terms, text.slice(start));
}

/** The tokens of any text; a surrogate pair is one code point, in or out of a token as a whole. */
function unicodeTokens(terms: string[], text: string): void {
  let start = -1;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    const pair = code >= 0xd800 && code <= 0xdbff && i + 1 < length && isLowSurrogate(text.charCodeAt(i + 1));
    const inToken =
      code < 0x80
        ? ASCII_TOKEN_CHAR[code] === 1
        : pair
          ? !SEPARATOR.test(text.slice(i, i + 2))
          : bmpTokenChar(code);
    if (inToken) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      pushTerms(terms, text.slice(start, i));
      start = -1;
    }
    if (pair) i++;
  }
  if (start >= 0) pushTerms(terms, text.slice(start));
}

function pushTerms(terms: string[], token: string): void {
  for (const term of tokenTerms(token)) terms.push(term);
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** 1 for the ASCII characters SEPARATOR does not match: letters, digits, _ . - ' @ / : */
const ASCII_TOKEN_CHAR = new Uint8Array(0x80);
for (let code = 0; code < 0x80; code++) {
  ASCII_TOKEN_CHAR[code] = SEPARATOR.test(String.fromCharCode(code)) ? 0 : 1;
}

/** Other single code units, filled as met (0 not yet, 1 in a token, 2 a separator): 64 KB. */
const BMP_TOKEN_CHAR = new Uint8Array(0x10000);
function bmpTokenChar(code: number): boolean {
  let known = BMP_TOKEN_CHAR[code]!;
  if (known === 0) {
    known = SEPARATOR.test(String.fromCharCode(code)) ? 2 : 1;
    BMP_TOKEN_CHAR[code] = known;
  }
  return known === 1;
}

/**
 * analyze() remembered per text for the length of one add(): registries repeat text
 * (forks and mirrors of a server carry the same descriptions and schemas, a server's
 * tools share its toolset line), so each distinct text is analysed once and its
 * documents share one read-only term array, which also saves their memory.
 */
export class AnalysisMemo {
  private readonly byLimit = new Map<number | undefined, Map<string, readonly string[]>>();
  private readonly normalized = new Map<string, string>();
  private readonly objects = new Map<object, unknown>();
  private entries = 0;

  /** normalizeText(text) (default bound), remembered like analyze(). */
  normalize(text: string): string {
    let out = this.normalized.get(text);
    if (out === undefined) {
      out = normalizeText(text);
      this.count();
      this.normalized.set(text, out);
    }
    return out;
  }

  /** Starts afresh once DEFAULTS.memos.maxAnalysedTexts texts are held: the memo is a speed-up, never a requirement. */
  private count(): void {
    if (++this.entries <= DEFAULTS.memos.maxAnalysedTexts) return;
    for (const map of this.byLimit.values()) map.clear();
    this.normalized.clear();
    this.objects.clear();
    this.entries = 1;
  }

  /**
   * make(), once per `key` object for this add (the key is held, not read: a list the add
   * does not change, such as a pack entry's phrasings); what it returns is shared.
   */
  byObject<T>(key: object, make: () => T): T {
    if (this.objects.has(key)) return this.objects.get(key) as T;
    const value = make();
    this.count();
    this.objects.set(key, value);
    return value;
  }

  analyze(text: string, maxChars?: number): readonly string[] {
    let memo = this.byLimit.get(maxChars);
    if (!memo) {
      memo = new Map();
      this.byLimit.set(maxChars, memo);
    }
    let terms = memo.get(text);
    if (terms === undefined) {
      terms = analyze(text, maxChars);
      this.count();
      memo.set(text, terms);
    }
    return terms;
  }
}
