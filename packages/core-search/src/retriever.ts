/**
 * The one small interface every strategy implements. A retriever indexes
 * analysed documents and, given an analysed query, returns its own ranking.
 * Fusion (fusion.ts) is separate: retrievers never see each other's scores.
 */
import type { Phrasing } from './analysis/phrasings.js';
import type { QueryShape, StrategyName, ToolDefinition } from './types.js';

/** A tool after validation and text analysis, as retrievers see it. */
export interface IndexedDoc {
  /**
   * Internal id, assigned in insertion order and never given to another tool; the stable
   * tie-break. A tool re-indexed in place (addPhrasings, learn) keeps its id: retrievers
   * see remove([id]) then add() of the new document with the same id.
   */
  readonly id: number;
  readonly name: string;
  readonly toolset: string;
  readonly tool: ToolDefinition;
  /** Analysed (normalised, stop-worded, stemmed) terms per field. */
  readonly fields: {
    readonly name: readonly string[];
    readonly title: readonly string[];
    readonly tags: readonly string[];
    readonly toolset: readonly string[];
    readonly description: readonly string[];
    readonly schema: readonly string[];
    /** The tool's phrasings (own, added, pack), analysed together. */
    readonly phrasings: readonly string[];
    /** Requests learned from use (engine.learn), repeated by how often they recur. */
    readonly learned: readonly string[];
  };
  /** The tool's phrasings with their sources, bounded and de-duplicated (analysis/phrasings.ts). */
  readonly phrasings: readonly Phrasing[];
  /** The name split into lower-case words, unstemmed: "browser_takeScreenshot" -> ["browser","take","screenshot"]. */
  readonly nameWords: readonly string[];
  /** The text an embedding model sees: split name, description and toolset. */
  readonly embeddingText: string;
}

/** A query after analysis. Built once per search and shared by all retrievers. */
export interface AnalyzedQuery {
  /** The query as searched: at most maxQueryChars (analysis/query.ts boundQuery); never the full input. */
  readonly raw: string;
  /** Unicode-normalised, lower-cased, length-bounded. */
  readonly normalized: string;
  readonly shape: QueryShape;
  /** Analysed terms (same analysis as documents). */
  readonly terms: readonly string[];
  /** Surface words, lower-cased, identifiers split, stop words removed, unstemmed. */
  readonly words: readonly string[];
}

export interface RetrievalHit {
  /** IndexedDoc.id */
  id: number;
  score: number;
  /** What matched, for explain output. */
  matched?: string[];
  /**
   * The hit must rank above every fused result (the exact-name strategy sets it for a
   * query that is a tool's name). Pinned hits keep their order among themselves.
   */
  pinned?: boolean;
}

/**
 * A retriever's index in a saved file (saved-index.ts): arrays stored as they are, a few
 * lists of strings, and small JSON values. Ids in it are positions in the file (0..count-1).
 */
export interface SavedState {
  /** Small JSON values (sizes, the model id). */
  meta?: unknown;
  strings?: Record<string, readonly string[]>;
  arrays?: Record<string, Int32Array | Float32Array | Float64Array | Uint8Array>;
}

export type RetrieverStatus = 'ready' | 'loading' | 'unavailable';

export interface Retriever {
  readonly name: StrategyName;
  /** Index new documents. Called on every engine.add(); must not rebuild everything. */
  add(docs: readonly IndexedDoc[]): void | Promise<void>;
  /** Forget documents by id. */
  remove(ids: readonly number[]): void;
  /**
   * The best `limit` hits, best first; equal scores ordered by ascending id.
   * `accept` filters ids (toolset filter). An empty array means "no opinion".
   */
  retrieve(
    query: AnalyzedQuery,
    limit: number,
    accept?: (id: number) => boolean,
  ): RetrievalHit[] | Promise<RetrievalHit[]>;
  /** Retrievers backed by a model report whether they can answer yet. Absent means always ready. */
  status?(): RetrieverStatus;
  /** Resolves when status() is no longer 'loading'. */
  ready?(): Promise<void>;
  /**
   * Optional per-query multiplier (0..1) on this strategy's fusion weight, for a
   * strategy whose reliability depends on the query itself (e.g. embeddings add
   * little to long requests that already share many words with the tool).
   */
  weightFor?(query: AnalyzedQuery): number;
  /**
   * Its index for a saved file, ids renumbered by `dense` (old id -> position in the file,
   * ascending with the old ids), or undefined when there is nothing worth saving (add()
   * is cheap, or work is still pending). Retrievers without it are rebuilt by add().
   */
  exportState?(dense: Int32Array): SavedState | undefined;
  /**
   * Adopt a saved state for documents 0..count-1 instead of add() (nothing added yet).
   * Returns false when it does not fit (vectors of another model): the engine calls
   * add() then. Throws INVALID_INDEX when the state is malformed.
   */
  importState?(state: SavedState, count: number): boolean;
}
