import { createEmbeddingStrategy } from '../embedding/factory.js';
import type { RetrieverFactory } from './context.js';
import { createExactRetriever } from './exact.js';
import { createKeywordRetriever } from './keyword.js';
import { createSynonymsRetriever } from './synonyms.js';

export type { RetrieverContext, RetrieverFactory } from './context.js';

/**
 * The strategies an engine is built with, in the order their rankings are fused and
 * reported. Injected into the engine (options.retrievers) so a strategy, such as the
 * embedding one, is added with a one-line change here.
 */
export const DEFAULT_RETRIEVERS: readonly RetrieverFactory[] = [
  createExactRetriever,
  createKeywordRetriever,
  createSynonymsRetriever,
  createEmbeddingStrategy,
];
