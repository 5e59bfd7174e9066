/**
 * The `embedding` strategy: cosine similarity between the query vector and each
 * tool's vector. Startup never blocks on the model: documents are embedded in
 * the background (from the disk cache when their text is unchanged), and until
 * that is done status() says 'loading' and retrieve() has no opinion. A model
 * that cannot be used gives one warning and status 'unavailable', never a throw.
 */
import { join } from 'node:path';
import { DEFAULTS } from '../defaults.js';
import type {
  AnalyzedQuery,
  IndexedDoc,
  RetrievalHit,
  Retriever,
  RetrieverStatus,
  SavedState,
} from '../retriever.js';
import { invalidIndex } from '../serialize.js';
import { defaultCacheDir, EmbeddingDiskCache, textKey } from './disk-cache.js';
import { LruCache } from './lru.js';
import { ModelEmbedder } from './model-embedder.js';
import { resolveModelSource } from './model-source.js';
import { embeddingInput, queryEmbeddingInput } from './text.js';
import type { Embedder, EmbeddingOptions } from './types.js';
import { VectorStore } from './vector-store.js';

export class EmbeddingRetriever implements Retriever {
  readonly name = 'embedding' as const;
  readonly embedder: Embedder;
  private readonly store = new VectorStore();
  private readonly queryVectors = new LruCache<string, Float32Array>(DEFAULTS.embedding.queryCacheSize);
  private readonly diskCache?: EmbeddingDiskCache;
  private readonly batchSize: number;
  /** The model load. Never rejects. */
  private readonly loading: Promise<void>;
  /** Background indexing, each add in order. Never rejects. */
  private work: Promise<void> = Promise.resolve();
  private pendingAdds = 0;
  private loaded = false;
  private failed = false;
  private cacheWarned = false;
  /** Ids removed while their add was still pending. */
  private readonly removedPending = new Set<number>();

  constructor(private readonly options: EmbeddingOptions = {}) {
    this.batchSize = Math.max(1, options.batchSize ?? DEFAULTS.embedding.batchSize);
    const cacheDir = options.cacheDir === undefined ? defaultCacheDir(options.env) : options.cacheDir;
    this.embedder =
      options.embedder ??
      new ModelEmbedder({
        source: resolveModelSource(options),
        dtype: options.dtype ?? DEFAULTS.embedding.dtype,
        queryPrefix: options.queryPrefix ?? '',
        documentPrefix: options.documentPrefix ?? '',
        modelCacheDir: cacheDir ? join(cacheDir, 'models') : undefined,
        allowRemoteModels: options.allowRemoteModels ?? true,
        remoteHost: options.modelHost ?? (options.env ?? process.env).HF_ENDPOINT,
        batchSize: this.batchSize,
      });
    if (cacheDir) {
      this.diskCache = new EmbeddingDiskCache(cacheDir, this.embedder.id, (text) => this.warn(text));
    }
    // Loading runs alongside the first add: a warm cache fills the store meanwhile.
    this.loading = Promise.resolve()
      .then(() => this.embedder.load?.())
      .then(() => {
        this.loaded = true;
      })
      .catch((error: unknown) => this.fail(error));
  }

  status(): RetrieverStatus {
    if (this.failed) return 'unavailable';
    return this.loaded && this.pendingAdds === 0 ? 'ready' : 'loading';
  }

  async ready(): Promise<void> {
    while (this.status() === 'loading') await Promise.all([this.loading, this.work]);
  }

  /** Fusion-weight multiplier: 1 up to DEFAULTS.embedding.lengthPivot content words, then (pivot / words)^2. */
  weightFor(query: AnalyzedQuery): number {
    return Math.min(1, (DEFAULTS.embedding.lengthPivot / Math.max(1, query.words.length)) ** 2);
  }

  /** Queues the documents for embedding; returns at once (see ready()). */
  add(docs: readonly IndexedDoc[]): void {
    if (this.failed || docs.length === 0) return;
    // A re-indexed tool (new phrasings) comes back under its id: removed while its earlier
    // vector was still queued, it must not be skipped now. Batches run in order, so the
    // new vector replaces the old one.
    for (const doc of docs) this.removedPending.delete(doc.id);
    this.pendingAdds++;
    this.work = this.work
      .then(() => (this.failed ? undefined : this.embedDocuments(docs)))
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        this.pendingAdds--;
        if (this.pendingAdds === 0) this.removedPending.clear();
      });
  }

  remove(ids: readonly number[]): void {
    for (const id of ids) if (!this.store.has(id) && this.pendingAdds > 0) this.removedPending.add(id);
    this.store.remove(ids);
  }

  /**
   * Synchronous when the query's vector is cached (a repeated query): the engine then
   * fuses it without waiting a turn of the event loop. Only a query the model has to
   * embed returns a promise.
   */
  retrieve(
    query: AnalyzedQuery,
    limit: number,
    accept?: (id: number) => boolean,
  ): RetrievalHit[] | Promise<RetrievalHit[]> {
    if (this.status() !== 'ready' || this.store.size === 0) return [];
    // Keyed by the query as searched (already bounded by boundQuery, so the key is too): the
    // model input is a function of it, and its regular expressions cost a tenth of the
    // strategy's search when the vector was already known.
    const vector = this.queryVectors.get(query.raw);
    if (vector) return this.nearest(vector, limit, accept);
    const text = queryEmbeddingInput(query.raw);
    if (!text) return [];
    return this.embedQuery(query.raw, text).then((embedded) =>
      embedded ? this.nearest(embedded, limit, accept) : [],
    );
  }

  /** The vector of `text`, the model input of query `raw`, cached by raw; undefined when the model failed or gave none. */
  private async embedQuery(raw: string, text: string): Promise<Float32Array | undefined> {
    let vector: Float32Array | undefined;
    try {
      [vector] = await this.embedder.embed([text], 'query');
    } catch (error) {
      this.fail(error);
      return undefined;
    }
    if (vector) this.queryVectors.set(raw, vector);
    return vector;
  }

  /** The documents nearest the query vector; none for a vector without direction. */
  private nearest(vector: Float32Array, limit: number, accept?: (id: number) => boolean): RetrievalHit[] {
    // A query made only of words the model does not know has no direction: no opinion.
    let norm = 0;
    for (const value of vector) norm += value * value;
    if (norm < 1e-12) return [];
    return this.store.search(vector, limit, accept);
  }

  /**
   * The document vectors for a saved index, with the embedder's id: loading them skips
   * embedding (and hashing every text for the disk cache). Nothing while vectors are
   * still being computed, or after the model failed: the loaded engine embeds then.
   */
  exportState(dense: Int32Array): SavedState | undefined {
    if (this.failed || this.pendingAdds > 0 || this.store.size === 0) return undefined;
    const { ids, vectors } = this.store.exportRows(dense);
    return { meta: { embedder: this.embedder.id, dims: this.store.dims }, arrays: { ids, vectors } };
  }

  /** Saved vectors of this embedder are adopted; another embedder's are not (false: embed again). */
  importState(state: SavedState, count: number): boolean {
    const meta = state.meta as { embedder?: unknown; dims?: unknown } | undefined;
    if (this.failed || meta?.embedder !== this.embedder.id) return false;
    const dims = meta.dims;
    const { ids, vectors } = state.arrays ?? {};
    if (typeof dims !== 'number' || !Number.isInteger(dims) || dims <= 0)
      invalidIndex('embedding: dims must be a positive integer');
    if (
      !(ids instanceof Int32Array) ||
      !(vectors instanceof Float32Array) ||
      vectors.length !== ids.length * dims
    )
      invalidIndex(`embedding: ${ids?.length} ids need ${dims} floats each`);
    const seen = new Uint8Array(count);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (!(id >= 0 && id < count) || seen[id])
        invalidIndex(`embedding: id ${id} repeated or not below ${count}`);
      seen[id] = 1;
    }
    this.store.addAll(Array.from(ids, (id, i) => [id, vectors.subarray(i * dims, (i + 1) * dims)] as const));
    return true;
  }

  /** Number of live document vectors. */
  get size(): number {
    return this.store.size;
  }

  private async embedDocuments(docs: readonly IndexedDoc[]): Promise<void> {
    const total = docs.length;
    const report = (done: number) => {
      if (total >= DEFAULTS.embedding.progressMinDocs)
        this.options.onProgress?.({ phase: 'embedding', done, total });
    };
    report(0);
    // Keyed by the document's embedding text: the model input (embeddingInput, a function
    // of it) is made only for the texts not cached, which was a sixth of a warm build.
    const raw = docs.map((doc) => doc.embeddingText);
    const keys = raw.map(textKey);
    const cached = await this.readCache();
    const vectors: (Float32Array | undefined)[] = keys.map((key) => cached.get(key));
    // Each distinct missing text once: registries repeat descriptions verbatim.
    const copies = new Map<string, number>();
    const unique: number[] = [];
    vectors.forEach((vector, index) => {
      if (vector) return;
      const key = keys[index]!;
      if (!copies.has(key)) unique.push(index);
      copies.set(key, (copies.get(key) ?? 0) + 1);
    });
    let done = total - [...copies.values()].reduce((sum, n) => sum + n, 0);
    report(done);
    if (unique.length > 0) await this.loading;
    if (this.failed) return;
    // By document index (sparse): two Map look-ups per comparison were most of the sort.
    const texts = new Array<string>(raw.length);
    for (const index of unique) texts[index] = embeddingInput(raw[index]!);
    // Similar lengths in one batch waste less padding.
    unique.sort((a, b) => texts[a]!.length - texts[b]!.length || a - b);
    const fresh = new Map<string, Float32Array>();
    for (let start = 0; start < unique.length; start += this.batchSize) {
      const batch = unique.slice(start, start + this.batchSize);
      const out = await this.embedder.embed(
        batch.map((index) => texts[index]!),
        'document',
      );
      batch.forEach((index, i) => {
        const vector = out[i];
        if (!vector) throw new Error(`the embedder returned ${out.length} vectors for ${batch.length} texts`);
        fresh.set(keys[index]!, vector);
        done += copies.get(keys[index]!)!;
      });
      report(done);
    }
    keys.forEach((key, index) => {
      vectors[index] ??= fresh.get(key);
    });
    this.store.addAll(
      docs.flatMap((doc, index) =>
        this.removedPending.has(doc.id) ? [] : [[doc.id, vectors[index]!] as const],
      ),
    );
    if (fresh.size > 0) await this.writeCache(fresh, new Set(keys));
    this.diskCache?.release();
  }

  private async readCache(): Promise<Map<string, Float32Array>> {
    if (!this.diskCache) return new Map();
    // The model's width is known once it is loaded: the cache is checked against it.
    await this.loading;
    return this.diskCache.load(this.embedder.dims);
  }

  private async writeCache(fresh: Map<string, Float32Array>, inUse: Set<string>): Promise<void> {
    if (!this.diskCache) return;
    try {
      await this.diskCache.save(fresh, inUse);
    } catch (error) {
      // A read-only or full disk costs speed next time, not correctness now: say so once.
      if (this.cacheWarned) return;
      this.cacheWarned = true;
      this.warn(`toolsearch: embedding cache not written (${this.diskCache.file}): ${message(error)}`);
    }
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.warn(
      `${message(error).startsWith('toolsearch: ') ? '' : 'toolsearch: embedding strategy disabled: '}${message(error)}; search continues with the lexical strategies only`,
    );
  }

  private warn(text: string): void {
    if (this.options.onWarning) this.options.onWarning(text);
    else process.stderr.write(`${text}\n`);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createEmbeddingRetriever(options: EmbeddingOptions = {}): EmbeddingRetriever {
  return new EmbeddingRetriever(options);
}
