import { analyzeWords } from '../analysis/analyze.js';
import { stem } from '../analysis/stem.js';
import type { AnalyzedQuery } from '../retriever.js';
import { BUILTIN_IDIOMS, BUILTIN_SYNONYMS } from './synonym-data.js';

/**
 * A synonym map keyed by stemmed single words or stemmed phrases ("pull request" ->
 * "pull request" stems), valued by the analysed terms each expands to. Built from the
 * built-in vocabulary plus the user's `synonyms` option (which extends, never replaces).
 */
export interface SynonymMap {
  /** key (stemmed words joined by one space) -> expansion terms (stemmed) */
  readonly entries: ReadonlyMap<string, readonly string[]>;
  /** Idioms (see BUILTIN_IDIOMS): stemmed multi-word key -> the words that replace it. */
  readonly idioms: ReadonlyMap<
    string,
    { readonly words: readonly string[]; readonly terms: readonly string[] }
  >;
  /** Longest key, in words, so phrase lookup knows how far to look ahead. */
  readonly maxKeyWords: number;
}

function keyOf(text: string): string {
  return analyzeWords(text).map(stem).join(' ');
}

/**
 * Build the map. Relations are symmetric ("bug" -> "issue" also gives "issue" -> "bug",
 * "pr" -> "pull request" also "pull request" -> "pr"): users and tool authors pick
 * either side. Idioms are one-directional and kept apart (see rewriteIdioms).
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
  const idioms = new Map<string, { words: string[]; terms: string[] }>();
  for (const [phrase, targets] of Object.entries(BUILTIN_IDIOMS)) {
    const key = keyOf(phrase);
    if (key.split(' ').length < 2) continue; // stop words ate the phrase
    const words = [...new Set(targets.flatMap((target) => analyzeWords(target)))];
    idioms.set(key, { words, terms: words.map(stem) });
  }
  return { entries: frozen, idioms, maxKeyWords };
}

/**
 * Expansion terms for a query's terms: every key found as a word or a phrase, minus
 * terms the query already has. Sorted, so the same query always expands the same way.
 */
export function expandTerms(terms: readonly string[], map: SynonymMap): string[] {
  const own = new Set(terms);
  const found = new Set<string>();
  for (let i = 0; i < terms.length; i++) {
    for (let n = Math.min(map.maxKeyWords, terms.length - i); n >= 1; n--) {
      // A single word is its own key: no slice and join per word per search.
      const key = n === 1 ? terms[i]! : terms.slice(i, i + n).join(' ');
      const expansion = map.entries.get(key);
      if (expansion === undefined) continue;
      // Indexed, not for-of: once per search, unoptimised for the first thousand or so.
      for (let e = 0; e < expansion.length; e++) if (!own.has(expansion[e]!)) found.add(expansion[e]!);
    }
  }
  return found.size === 0 ? [] : Array.from(found).sort();
}

/**
 * Replace idioms in a query by what they mean ("file a bug" -> "create issue report")
 * before any strategy sees it: the idiom's own words would send every strategy to the
 * wrong tools (files). Words and terms stay aligned. Unchanged query when none matches.
 */
export function rewriteIdioms(query: AnalyzedQuery, map: SynonymMap): AnalyzedQuery {
  if (map.idioms.size === 0 || query.terms.length < 2) return query;
  const words: string[] = [];
  const terms: string[] = [];
  let changed = false;
  for (let i = 0; i < query.terms.length; ) {
    let matched = 0;
    for (let n = Math.min(IDIOM_MAX_WORDS, query.terms.length - i); n >= 2 && matched === 0; n--) {
      const idiom = map.idioms.get(query.terms.slice(i, i + n).join(' '));
      if (!idiom) continue;
      words.push(...idiom.words);
      terms.push(...idiom.terms);
      matched = n;
    }
    if (matched > 0) {
      changed = true;
      i += matched;
    } else {
      words.push(query.words[i] ?? query.terms[i]!);
      terms.push(query.terms[i]!);
      i++;
    }
  }
  return changed ? { ...query, words, terms } : query;
}

/** Longest idiom, in analysed words. */
const IDIOM_MAX_WORDS = 3;
