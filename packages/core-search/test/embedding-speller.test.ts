// Typo correction of queries for word-level embedding models (src/embedding/speller.ts).
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_PATH } from '../src/embedding/index.js';
import { spellerForTokenizer, WordSpeller } from '../src/embedding/speller.js';
import { TransformersEmbedder } from '../src/embedding/transformers-embedder.js';

/** Ranks in frequency order, like a GloVe-derived vocabulary. */
const ranks = (words: string[]) => new Map(words.map((word, rank) => [word, rank]));
const speller = new WordSpeller(ranks(['video', 'address', 'message', 'appointment', 'window', 'vide']));

describe('WordSpeller', () => {
  it('replaces an unknown word by the vocabulary word one edit away', () => {
    expect(speller.correct('record a vidoe of the checkout')).toBe('record a video of the checkout'); // swap
    expect(speller.correct('my email adress')).toBe('my email address'); // missing letter
    expect(speller.correct('reply to the messsage')).toBe('reply to the message'); // extra letter
    expect(speller.correct('cancel my appointmnet')).toBe('cancel my appointment');
  });

  it('prefers the more frequent of several one-edit neighbours, and never goes two edits', () => {
    // "vidoe" is one edit from both "video" (a swap) and "vide" (a deletion).
    expect(speller.correct('vidoe')).toBe('video');
    expect(new WordSpeller(ranks(['vide', 'video'])).correct('vidoe')).toBe('vide');
    expect(speller.correct('vidoes')).toBe('vidoes'); // two edits from "video": left alone
  });

  it('keeps known words, short words and words it cannot place', () => {
    expect(speller.correct('video message')).toBe('video message');
    expect(speller.correct('vdeo cv sql')).toBe('vdeo cv sql'); // "vdeo" is too short to correct
    expect(speller.correct('taobao 3000')).toBe('taobao 3000');
  });
});

describe('spellerForTokenizer', () => {
  it('builds one for a whole-word vocabulary only', () => {
    const words = { model: { type: 'WordPiece', vocab: { '[UNK]': 0, video: 1, message: 2 } } };
    expect(spellerForTokenizer(words)?.correct('vidoe')).toBe('video');
    const subwords = { model: { type: 'WordPiece', vocab: { '[UNK]': 0, video: 1, '##s': 2 } } };
    expect(spellerForTokenizer(subwords)).toBeUndefined();
    expect(spellerForTokenizer({ model: { type: 'BPE', vocab: { video: 1 } } })).toBeUndefined();
    expect(spellerForTokenizer(null)).toBeUndefined();
    expect(spellerForTokenizer({ model: { type: 'WordPiece', vocab: ['video'] } })).toBeUndefined();
  });
});

describe('the bundled (word-level) model', () => {
  it('embeds a misspelt query like the corrected one, and leaves documents as written', async () => {
    const embedder = new TransformersEmbedder({
      source: { kind: 'path', path: DEFAULT_MODEL_PATH, bundled: true },
    });
    const [typo, fixed] = await embedder.embed(
      ['record a vidoe of the checkout', 'record a video of the checkout'],
      'query',
    );
    expect([...typo!]).toEqual([...fixed!]);
    const [typoDoc, fixedDoc] = await embedder.embed(['record a vidoe', 'record a video'], 'document');
    expect([...typoDoc!]).not.toEqual([...fixedDoc!]);
  });
});
