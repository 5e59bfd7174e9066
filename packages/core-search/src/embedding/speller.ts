/**
 * Typo correction for word-level embedding models. A static word-vector model has one
 * vector per whole word, so a misspelt word ("vidoe", "appointmnet") is unknown and
 * drops out of the query, often taking its meaning with it (subword models degrade
 * more gracefully and are left alone). An unknown query word is replaced by the most
 * frequent vocabulary word one edit away (deletion, insertion, substitution or swap of
 * neighbours), Norvig-style; short words have too many neighbours and are kept as they are.
 */

import { DEFAULTS } from '../defaults.js';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

export class WordSpeller {
  /** @param rank vocabulary word -> frequency rank (lower = more frequent). */
  constructor(
    private readonly rank: ReadonlyMap<string, number>,
    private readonly maxWordLength: number = DEFAULTS.embedding.spellerMaxWordLength,
  ) {}

  /** `text` with each unknown, correctable word replaced (lower-cased); other text unchanged. */
  correct(text: string): string {
    // Each distinct word once: a query repeating one unknown word must not pay per copy.
    const done = new Map<string, string>();
    return text.replace(/[a-z]+/gi, (word) => {
      let out = done.get(word);
      if (out === undefined) {
        const lower = word.toLowerCase();
        // A word's candidates cost ~54 x its length strings of its length each: quadratic.
        const skip =
          lower.length < DEFAULTS.embedding.spellerMinWordLength ||
          lower.length > this.maxWordLength ||
          this.rank.has(lower);
        out = skip ? word : (this.nearest(lower) ?? word);
        done.set(word, out);
      }
      return out;
    });
  }

  /** The most frequent vocabulary word one edit from `word`, if any. */
  private nearest(word: string): string | undefined {
    let best: string | undefined;
    let bestRank = Number.POSITIVE_INFINITY;
    const consider = (candidate: string) => {
      const rank = this.rank.get(candidate);
      if (rank !== undefined && rank < bestRank) {
        best = candidate;
        bestRank = rank;
      }
    };
    for (let i = 0; i <= word.length; i++) {
      const head = word.slice(0, i);
      const tail = word.slice(i);
      if (tail) consider(head + tail.slice(1));
      if (tail.length > 1) consider(head + tail[1] + tail[0] + tail.slice(2));
      for (const letter of LETTERS) {
        if (tail) consider(head + letter + tail.slice(1));
        consider(head + letter + tail);
      }
    }
    return best;
  }
}

/**
 * A speller for the vocabulary of a tokenizer.json, or undefined when the tokenizer is
 * not word-level (it has subword pieces, "##ing" or "Ġ"-prefixed BPE tokens).
 */
export function spellerForTokenizer(tokenizer: unknown): WordSpeller | undefined {
  const model = (tokenizer as { model?: { type?: string; vocab?: unknown } } | null)?.model;
  const vocab = model?.vocab;
  if (!vocab || typeof vocab !== 'object' || Array.isArray(vocab)) return undefined;
  const ids = new Map<string, number>();
  for (const [token, id] of Object.entries(vocab as Record<string, unknown>)) {
    if (typeof id === 'number') ids.set(token, id);
  }
  return spellerForVocab(model.type, ids);
}

/**
 * The same from the vocabulary as a map (token -> id), which the speller then uses as
 * its frequency ranks directly: it only ever asks about lower-case letter strings, so the
 * other tokens never answer (the static embedder's one map serves both).
 */
export function spellerForVocab(
  type: string | undefined,
  vocab: ReadonlyMap<string, number>,
): WordSpeller | undefined {
  if (type !== 'WordPiece' && type !== 'WordLevel') return undefined;
  let words = false;
  for (const token of vocab.keys()) {
    if (token.startsWith('##')) return undefined;
    words ||= /^[a-z]+$/.test(token);
  }
  return words ? new WordSpeller(vocab) : undefined;
}
