/** Public types of the embedding strategy. */

/** Queries and documents may be embedded differently (e5 "query: " / "passage: ", bge instructions). */
export type EmbedKind = 'query' | 'document';

/**
 * Anything that turns texts into vectors: the bundled model, a transformers.js
 * model, or your own (an API, another runtime). Vectors should be L2-normalised:
 * ranking uses the dot product.
 */
export interface Embedder {
  /** Identifies the model and everything that changes its vectors; part of the cache key. */
  readonly id: string;
  /** Vector length, when known before the first call. */
  readonly dims?: number;
  /** Optional eager load; a rejection marks the strategy unavailable. */
  load?(): Promise<void>;
  /** One vector per text, in order. */
  embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]>;
}

export interface EmbeddingProgress {
  phase: string;
  done: number;
  total: number;
}

export interface EmbeddingOptions {
  /** A feature-extraction model id, downloaded and cached where the hub is reachable ("Xenova/bge-small-en-v1.5"). */
  model?: string;
  /** A local model folder in transformers.js layout (config.json, tokenizer.json, onnx/). */
  modelPath?: string;
  /** Your own embedder; `model`/`modelPath` are then ignored. */
  embedder?: Embedder;
  /** ONNX weights variant; default DEFAULTS.embedding.dtype ('q8', onnx/model_quantized.onnx). */
  dtype?: string;
  /** Prepended to queries, e.g. "query: " (e5) or a bge instruction. */
  queryPrefix?: string;
  /** Prepended to documents, e.g. "passage: " (e5). */
  documentPrefix?: string;
  /** Where document vectors (and downloaded models) are cached; false = no disk cache. Default: $XDG_CACHE_HOME/toolsearch or ~/.cache/toolsearch. */
  cacheDir?: string | false;
  /**
   * Where `model` is downloaded from: a Hugging Face hub mirror's base URL (http or https).
   * Default: the HF_ENDPOINT environment variable, else the public hub.
   */
  modelHost?: string;
  /** Allow downloading `model` from the hub; default true for `model`, never for local folders. */
  allowRemoteModels?: boolean;
  /** Texts per inference call; default 64. */
  batchSize?: number;
  /** Called once when the model cannot be used (default: a line on stderr). */
  onWarning?: (message: string) => void;
  /** Indexing progress for 1,000 documents or more. */
  onProgress?: (progress: EmbeddingProgress) => void;
  /** Environment to read TOOLSEARCH_MODEL / TOOLSEARCH_MODEL_PATH / HF_ENDPOINT from; default process.env. */
  env?: Record<string, string | undefined>;
}
