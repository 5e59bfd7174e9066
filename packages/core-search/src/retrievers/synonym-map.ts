import { analyzeWords } from '../analysis/analyze.js';
import { stem } from '../analysis/stem.js';
import { BUILTIN_IDIOMS, BUILTIN_SYNONYMS } from './synonym-data.js';

/**
 * A synonym map keyed by stemmed single words or stemmed phrases ("pull request" ->
 * "pull request" stems), valued by the analysed terms each expands to. Built from the
 * built-in vocabulary plus the user's `synonyms` option (which extends, never replaces).
 */
export interface SynonymMap {
  /** key (stemmed words joined by one space) -> expansion terms (stemmed) */
  readonly entries: ReadonlyMap<string, readonly string[]>;
  /** Idioms (see BUILTIN_IDIOMS): stemmed multi-word key -> expansion terms. */
  readonly idioms: ReadonlyMap<string, readonly string[]>;
  /** Longest key, in words, so phrase lookup knows how far to look ahead. */
  readonly maxKeyWords: number;
}

function keyOf(text: string): string {
  return analyzeWords(text).map(stem).join(' ');
}

/**
 * Build the map. Relations are made symmetric for single words ("bug" -> "issue" also
 * gives "issue" -> "bug"), because users and tool authors pick either side.
 */
export function buildSynonymMap(extra: Record<string, readonly string[]> = {}): SynonymMap {
  const entries = new Map<string, Set<string>>();
  const link = (from: string, to: string) => {
    const key = keyOf(from);
    const terms = analyzeWords(to).map(stem);
    if (key === '' || terms.length === 0) return;
    const set = entries.get(key) ?? new Set<string>();
    entries.set(key, set);
    for (const term of terms) if (!key.split(' ').includes(term)) set.add(term);
  };
  for (const source of [BUILTIN_SYNONYMS, extra]) {
    for (const [word, targets] of Object.entries(source)) {
      for (const target of targets) {
        link(word, target);
        link(target, word);
      }
    }
  }
  let maxKeyWords = 1;
  const frozen = new Map<string, readonly string[]>();
  for (const [key, set] of entries) {
    if (set.size === 0) continue;
    frozen.set(key, [...set].sort());
    maxKeyWords = Math.max(maxKeyWords, key.split(' ').length);
  }
  const idioms = new Map<string, readonly string[]>();
  for (const [phrase, targets] of Object.entries(BUILTIN_IDIOMS)) {
    const key = keyOf(phrase);
    if (key.split(' ').length < 2) continue; // stop words ate the phrase
    idioms.set(key, [...new Set(targets.flatMap((target) => analyzeWords(target).map(stem)))].sort());
    maxKeyWords = Math.max(maxKeyWords, key.split(' ').length);
  }
  return { entries: frozen, idioms, maxKeyWords };
}

/** Synonym expansion of one query: synonym terms, idiom terms, and query words inside matched idioms. */
export interface Expansion {
  words: string[];
  phrases: string[];
  /** Query terms that are part of a matched idiom. */
  inPhrases: string[];
}

/**
 * Expand a query's terms: every key found as a word or a phrase (longest first), minus
 * terms the query already has. Sorted, so the same query always expands the same way.
 */
export function expandQuery(terms: readonly string[], map: SynonymMap): Expansion {
  const own = new Set(terms);
  const words = new Set<string>();
  const phrases = new Set<string>();
  const inPhrases = new Set<string>();
  for (let i = 0; i < terms.length; i++) {
    for (let n = Math.min(map.maxKeyWords, terms.length - i); n >= 1; n--) {
      const key = terms.slice(i, i + n).join(' ');
      const idiom = map.idioms.get(key);
      if (idiom) {
        for (const term of idiom) phrases.add(term);
        for (const term of terms.slice(i, i + n)) inPhrases.add(term);
      }
      for (const term of map.entries.get(key) ?? []) if (!own.has(term)) words.add(term);
    }
  }
  for (const term of phrases) words.delete(term);
  return { words: [...words].sort(), phrases: [...phrases].sort(), inPhrases: [...inPhrases].sort() };
}

/** All expansion terms of a query, sorted (explain output). */
export function expandTerms(terms: readonly string[], map: SynonymMap): string[] {
  const { words, phrases } = expandQuery(terms, map);
  return [...new Set([...phrases, ...words])].sort();
}
