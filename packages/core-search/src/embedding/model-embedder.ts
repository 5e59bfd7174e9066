/**
 * The embedder the strategy builds from its options: a model folder whose weight file
 * is a static word-embedding table (the bundled model, or one built by
 * scripts/build-model.ts) runs in TypeScript with no ONNX runtime; a hub model id or
 * any other folder goes to @huggingface/transformers, the optional peer dependency.
 * Which one is decided at load, from the weight file itself.
 */
import { existsSync } from 'node:fs';
import { DEFAULTS } from '../defaults.js';
import { embedderId } from './model-source.js';
import { NotStaticModelError, onnxFileFor, StaticEmbedder } from './static-embedder.js';
import { TransformersEmbedder, type TransformersEmbedderOptions } from './transformers-embedder.js';
import type { Embedder, EmbedKind } from './types.js';

export class ModelEmbedder implements Embedder {
  readonly id: string;
  private chosen?: Promise<Embedder>;

  constructor(private readonly options: TransformersEmbedderOptions) {
    this.id = embedderId(
      options.source,
      options.dtype ?? DEFAULTS.embedding.dtype,
      options.queryPrefix ?? '',
      options.documentPrefix ?? '',
    );
  }

  /** Loads the model; afterwards `runtime` says which implementation runs it. */
  async load(): Promise<void> {
    await this.choose();
  }

  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    return (await this.choose()).embed(texts, kind);
  }

  /** 'static' (TypeScript) or 'transformers' once loaded; undefined before. */
  runtime?: 'static' | 'transformers';

  private picked?: Embedder;

  /** The chosen runtime's vector width, once loaded. */
  get dims(): number | undefined {
    return this.picked?.dims;
  }

  private choose(): Promise<Embedder> {
    this.chosen ??= this.pick();
    return this.chosen;
  }

  private async pick(): Promise<Embedder> {
    const { source } = this.options;
    if (
      source.kind === 'path' &&
      existsSync(onnxFileFor(source.path, this.options.dtype ?? DEFAULTS.embedding.dtype))
    ) {
      const embedder = new StaticEmbedder({ ...this.options, source });
      try {
        await embedder.load();
        this.runtime = 'static';
        this.picked = embedder;
        return embedder;
      } catch (error) {
        if (!(error instanceof NotStaticModelError)) throw error;
      }
    }
    const embedder = new TransformersEmbedder(this.options);
    await embedder.load();
    this.runtime = 'transformers';
    this.picked = embedder;
    return embedder;
  }
}
