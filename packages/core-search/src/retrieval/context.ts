import type { Corpus } from '../corpus.js';
import type { EmbeddingOptions } from '../embedding/types.js';
import type { IndexedDoc, Retriever } from '../retriever.js';
import type { SynonymMap } from './synonym-map.js';
import type { Vocabulary } from './vocabulary.js';

/**
 * What the engine hands every retriever factory: the shared corpus index (maintained by
 * the engine before retrievers' add() runs), the documents by id and the synonym map.
 */
export interface RetrieverContext {
  readonly corpus: Corpus;
  /**
   * The documents by id. A retriever's remove() still finds the removed documents here
   * (the engine drops them after), so retrievers need not keep their own copy of what
   * they indexed a document by.
   */
  readonly docs: ReadonlyMap<number, IndexedDoc>;
  readonly synonyms: SynonymMap;
  /** The corpus vocabulary, sorted and length-bucketed (typo and prefix matching). */
  readonly vocabulary: Vocabulary;
  /** The engine's `embedding` option, for the embedding retriever's factory. */
  readonly embedding: EmbeddingOptions | false | undefined;
}

export type { EmbeddingOptions };

/**
 * Creates one retriever for an engine; injected at construction (see engine.ts).
 * Returning undefined leaves the strategy out (e.g. embedding: false).
 */
export type RetrieverFactory = (context: RetrieverContext) => Retriever | undefined;
