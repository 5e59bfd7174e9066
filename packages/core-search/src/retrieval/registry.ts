import { createEmbeddingStrategy } from '../embedding/factory.js';
import { createCategoryRetriever } from '../retrievers/category.js';
import { createExactRetriever } from '../retrievers/exact.js';
import { createFuzzyRetriever } from '../retrievers/fuzzy.js';
import { createKeywordRetriever } from '../retrievers/keyword.js';
import { createNgramRetriever } from '../retrievers/ngram.js';
import { createPrefixRetriever } from '../retrievers/prefix.js';
import { createSynonymsRetriever } from '../retrievers/synonyms.js';
import { createTfidfRetriever } from '../retrievers/tfidf.js';
import type { RetrieverFactory } from './context.js';

export type { RetrieverContext, RetrieverFactory } from './context.js';

/**
 * The strategies an engine is built with, in the order their rankings are fused and
 * reported. Injected into the engine (options.retrievers) so a strategy, such as the
 * embedding one, is added with a one-line change here.
 */
export const DEFAULT_RETRIEVERS: readonly RetrieverFactory[] = [
  createKeywordRetriever,
  createTfidfRetriever,
  createSynonymsRetriever,
  createFuzzyRetriever,
  createPrefixRetriever,
  createNgramRetriever,
  createCategoryRetriever,
  createExactRetriever,
  createEmbeddingStrategy,
];
