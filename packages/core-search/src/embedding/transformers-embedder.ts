/**
 * An Embedder backed by @huggingface/transformers (ONNX Runtime): a hub model id or
 * a local folder (the bundled static model runs without it, see static-embedder.ts).
 * The library is an optional peer dependency, imported lazily, and told to stay
 * quiet: nothing of it may reach stdout, which an MCP stdio server reserves for
 * protocol messages.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DEFAULTS } from '../defaults.js';
import { ToolSearchError } from '../errors.js';
import { embedderId, type ModelSource } from './model-source.js';
import { spellerForTokenizer, type WordSpeller } from './speller.js';
import type { Embedder, EmbedKind } from './types.js';

type Extractor = (
  texts: string[],
  options: { pooling: 'mean'; normalize: boolean },
) => Promise<{ data: ArrayLike<number>; dims: number[] }>;

export interface TransformersEmbedderOptions {
  source: ModelSource;
  dtype?: string;
  queryPrefix?: string;
  documentPrefix?: string;
  /** Where hub downloads are cached; undefined = transformers.js' default. */
  modelCacheDir?: string;
  allowRemoteModels?: boolean;
  /** Base URL of the hub (or a mirror) for downloads; default transformers.js' own (the public hub). */
  remoteHost?: string;
  batchSize?: number;
}

/** transformers.js' default hub, restored for embedders that set no host (env is global). */
let defaultRemoteHost: string | undefined;

// transformers.js reads the local model root from a global; loads are
// serialised so two embedders with different folders cannot race on it.
let loadQueue: Promise<unknown> = Promise.resolve();

export class TransformersEmbedder implements Embedder {
  readonly id: string;
  private readonly dtype: string;
  private readonly queryPrefix: string;
  private readonly documentPrefix: string;
  private readonly batchSize: number;
  private extractor?: Promise<Extractor>;
  /** Set at load for word-level vocabularies (see speller.ts); corrects query words only. */
  private speller?: WordSpeller;
  /** The model's vector width (its config's hidden_size), once loaded; checks the disk cache. */
  private width?: number;

  get dims(): number | undefined {
    return this.width;
  }

  constructor(private readonly options: TransformersEmbedderOptions) {
    this.dtype = options.dtype ?? DEFAULTS.embedding.dtype;
    this.queryPrefix = options.queryPrefix ?? '';
    this.documentPrefix = options.documentPrefix ?? '';
    this.batchSize = Math.max(1, options.batchSize ?? DEFAULTS.embedding.batchSize);
    this.id = embedderId(options.source, this.dtype, this.queryPrefix, this.documentPrefix);
  }

  load(): Promise<void> {
    return this.getExtractor().then(() => undefined);
  }

  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    const extractor = await this.getExtractor();
    const prefix = kind === 'query' ? this.queryPrefix : this.documentPrefix;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const speller = kind === 'query' ? this.speller : undefined;
      const batch = texts
        .slice(start, start + this.batchSize)
        .map((text) => prefix + (speller ? speller.correct(text) : text));
      const output = await extractor(batch, { pooling: 'mean', normalize: true });
      const dims = output.dims[output.dims.length - 1]!;
      const data = Float32Array.from(output.data);
      for (let row = 0; row < batch.length; row++) vectors.push(data.slice(row * dims, (row + 1) * dims));
    }
    return vectors;
  }

  private getExtractor(): Promise<Extractor> {
    if (!this.extractor) {
      const loading = loadQueue.then(() => this.createExtractor());
      loadQueue = loading.catch(() => undefined);
      this.extractor = loading;
    }
    return this.extractor;
  }

  private async createExtractor(): Promise<Extractor> {
    const { source } = this.options;
    if (source.kind === 'path' && !existsSync(join(source.path, 'config.json'))) {
      throw new ToolSearchError(
        'MODEL_LOAD_FAILED',
        `embedding model folder not found or incomplete (no config.json): ${source.path}`,
      );
    }
    const { env, LogLevel, pipeline } = await importTransformers();
    // Only errors, and those go to stderr (console.error); info/debug would go to stdout.
    env.logLevel = LogLevel.ERROR;
    if (env.backends.onnx) env.backends.onnx.logLevel = 'error';
    const remote = source.kind === 'hub' && this.options.allowRemoteModels !== false;
    env.allowRemoteModels = remote;
    defaultRemoteHost ??= env.remoteHost;
    env.remoteHost = remote
      ? (remoteHostUrl(this.options.remoteHost) ?? defaultRemoteHost)
      : defaultRemoteHost;
    // Offline, a hub model can still load from the download cache; transformers.js treats
    // that as a local load, which it refuses while local models are disabled.
    env.allowLocalModels = source.kind === 'path' || !remote;
    if (source.kind === 'path') env.localModelPath = dirname(source.path) + '/';
    else if (this.options.modelCacheDir) env.localModelPath = this.options.modelCacheDir + '/';
    const modelId = source.kind === 'path' ? basename(source.path) : source.model;
    try {
      const extractor = await pipeline('feature-extraction', modelId, {
        dtype: this.dtype as 'q8',
        local_files_only: !remote,
        ...(this.options.modelCacheDir ? { cache_dir: this.options.modelCacheDir } : {}),
      });
      if (source.kind === 'path') this.speller = readSpeller(source.path);
      // Mean pooling keeps the hidden size; a model without one is simply not width-checked.
      const hidden = (extractor as { model?: { config?: { hidden_size?: unknown } } }).model?.config
        ?.hidden_size;
      if (typeof hidden === 'number' && Number.isInteger(hidden) && hidden > 0) this.width = hidden;
      return extractor as unknown as Extractor;
    } catch (error) {
      const where = source.kind === 'path' ? source.path : `model "${source.model}"`;
      const reason = error instanceof Error ? error.message : String(error);
      throw new ToolSearchError(
        'MODEL_LOAD_FAILED',
        `embedding model could not be loaded from ${where}: ${reason}`,
      );
    }
  }
}

/** The npm package transformer models (by id, or folders that are not static tables) need. */
export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';

type TransformersModule = typeof import('@huggingface/transformers');

// Not exported: its type names the optional package, which a declaration file must not.
async function importTransformers(): Promise<TransformersModule> {
  try {
    return await import('@huggingface/transformers');
  } catch (error) {
    throw transformersImportError(error);
  }
}

/**
 * @huggingface/transformers is an optional peer dependency (it brings ~450 MB of ONNX
 * runtimes). When it is not installed, the error names the package to install.
 */
export function transformersImportError(error: unknown): ToolSearchError {
  const reason = error instanceof Error ? error.message : String(error);
  const missing =
    (error as NodeJS.ErrnoException | null)?.code === 'ERR_MODULE_NOT_FOUND' &&
    reason.includes(TRANSFORMERS_PACKAGE);
  if (missing) {
    return new ToolSearchError(
      'MISSING_DEPENDENCY',
      `this embedding model needs the optional package ${TRANSFORMERS_PACKAGE} (an ONNX runtime), which is not installed: run "npm install ${TRANSFORMERS_PACKAGE}" (the bundled model needs no runtime)`,
    );
  }
  return new ToolSearchError('MODEL_LOAD_FAILED', `${TRANSFORMERS_PACKAGE} could not be loaded: ${reason}`);
}

/** A hub base URL with the trailing slash transformers.js joins paths onto; throws on anything but http(s). */
function remoteHostUrl(host: string | undefined): string | undefined {
  if (host === undefined || host === '') return undefined;
  let url: URL;
  try {
    url = new URL(host);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolSearchError('MODEL_LOAD_FAILED', `model host must be an http(s) URL, got "${host}"`);
  }
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

/** The typo corrector for a model folder's word-level vocabulary; none for subword models or an unreadable file. */
function readSpeller(folder: string): WordSpeller | undefined {
  try {
    return spellerForTokenizer(JSON.parse(readFileSync(join(folder, 'tokenizer.json'), 'utf8')));
  } catch {
    return undefined;
  }
}
