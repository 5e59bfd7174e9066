import { createEmbeddingStrategy } from '../embedding/factory.js';
import { createCategoryRetriever } from './category.js';
import type { RetrieverFactory } from './context.js';
import { createExactRetriever } from './exact.js';
import { createFuzzyRetriever } from './fuzzy.js';
import { createKeywordRetriever } from './keyword.js';
import { createNgramRetriever } from './ngram.js';
import { createPrefixRetriever } from './prefix.js';
import { createSynonymsRetriever } from './synonyms.js';
import { createTfidfRetriever } from './tfidf.js';

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
