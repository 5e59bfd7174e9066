// The embedding strategy: public factory, options and the Embedder plug-in interface.

export { defaultCacheDir } from './disk-cache.js';
export { createEmbeddingStrategy } from './factory.js';
export { ModelEmbedder } from './model-embedder.js';
export type { ModelSource } from './model-source.js';
export { DEFAULT_MODEL_NAME, DEFAULT_MODEL_PATH, resolveModelSource } from './model-source.js';
export { createEmbeddingRetriever, EmbeddingRetriever } from './retriever.js';
export type { StaticEmbedderOptions } from './static-embedder.js';
export { StaticEmbedder } from './static-embedder.js';
export { embeddingInput, queryEmbeddingInput } from './text.js';
export type { TransformersEmbedderOptions } from './transformers-embedder.js';
export { TransformersEmbedder } from './transformers-embedder.js';
export type { Embedder, EmbeddingOptions, EmbeddingProgress, EmbedKind } from './types.js';
