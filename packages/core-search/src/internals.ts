// '@toolsearch/core-search/internals': the engine's building blocks (analysis, fusion,
// retrievers, concrete embedders, defaults) for the benchmarks, model scripts and advanced
// use (custom retrievers through the `retrievers` option). No compatibility promise: they
// change with the engine. See index.ts for the tiers.

export { fuseResponses } from './alternatives.js';
export { analyze, analyzeWords } from './analysis/analyze.js';
export { analyzeTool } from './analysis/document.js';
export { bareName, compactKey, serverPrefix, splitIdentifier } from './analysis/identifier.js';
export { analyzeQuery, detectShape } from './analysis/query.js';
export { QUOTED_QUERY_CHARS } from './analysis/summarize.js';
export { DEFAULTS } from './defaults.js';
export {
  createEmbeddingRetriever,
  DEFAULT_MODEL_NAME,
  DEFAULT_MODEL_PATH,
  embeddingInput,
  ModelEmbedder,
  StaticEmbedder,
  TransformersEmbedder,
} from './embedding/index.js';
export { VectorStore } from './embedding/vector-store.js';
export { ENRICH_DEFAULTS, enrichKey, enrichMessages, parseAnswer } from './enrich.js';
export type { FusedHit, StrategyRanking } from './fusion.js';
export { fuse } from './fusion.js';
export {
  defaultIndexCacheDir,
  indexCacheKey,
  openCachedIndex,
  readCachedIndex,
  writeCachedIndex,
} from './index-cache.js';
export { shippedPackDir } from './pack.js';
export { DEFAULT_RETRIEVERS } from './retrieval/registry.js';
export { SavedFile } from './saved-file.js';
export { crc32 } from './saved-index.js';
