/** The engine's factory for the `embedding` strategy: on unless `embedding: false`. */

import type { RetrieverContext } from '../retrieval/context.js';
import type { Retriever } from '../retriever.js';
import { createEmbeddingRetriever } from './retriever.js';

export function createEmbeddingStrategy(context: RetrieverContext): Retriever | undefined {
  if (context.embedding === false) return undefined;
  return createEmbeddingRetriever(context.embedding ?? {});
}
