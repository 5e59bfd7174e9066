import { DEFAULTS } from '../defaults.js';
import type { PhrasingSource } from '../types.js';
import { normalizeText } from './normalize.js';

export type { PhrasingSource };

/** An everyday request for a tool ("show me what's in notes.txt"). */
export interface Phrasing {
  readonly text: string;
  readonly source: PhrasingSource;
}

/** What two phrasings are compared by: case and spacing do not make a new phrasing. */
export function phrasingKey(text: string): string {
  return normalizeText(text, DEFAULTS.phrasings.maxChars).toLowerCase();
}

/**
 * A tool's phrasings from all sources, in priority order (the tool's own, then added ones,
 * then the pack's), each cut to DEFAULTS.phrasings.maxChars, blanks and repeats (by
 * phrasingKey) dropped, at most DEFAULTS.phrasings.maxPerTool kept.
 */
export function mergePhrasings(...groups: readonly (readonly Phrasing[])[]): Phrasing[] {
  const { maxChars, maxPerTool } = DEFAULTS.phrasings;
  const seen = new Set<string>();
  const merged: Phrasing[] = [];
  for (const group of groups) {
    for (const { text, source } of group) {
      if (merged.length >= maxPerTool) return merged;
      const normalized = normalizeText(text, maxChars);
      const key = normalized.toLowerCase();
      if (key === '' || seen.has(key)) continue;
      seen.add(key);
      merged.push({ text: normalized, source });
    }
  }
  return merged;
}

/** Phrasings of one source from a list of strings. */
export function fromSource(texts: readonly string[] | undefined, source: PhrasingSource): Phrasing[] {
  return (texts ?? []).map((text) => ({ text, source }));
}
