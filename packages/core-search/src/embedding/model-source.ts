/**
 * Which model to run: explicit options first, then the TOOLSEARCH_MODEL_PATH /
 * TOOLSEARCH_MODEL environment variables, then the model bundled in the package.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmbeddingOptions } from './types.js';

export const DEFAULT_MODEL_NAME = 'glove-100d-sif-tuned';

/** packages/core-search/models/<name>, from src/embedding/ and dist/embedding/ alike. */
export const DEFAULT_MODEL_PATH = fileURLToPath(
  new URL(`../../models/${DEFAULT_MODEL_NAME}`, import.meta.url),
);

export type ModelSource = { kind: 'path'; path: string; bundled: boolean } | { kind: 'hub'; model: string };

export function resolveModelSource(
  options: Pick<EmbeddingOptions, 'model' | 'modelPath' | 'env'>,
): ModelSource {
  const env = options.env ?? process.env;
  if (options.modelPath) return { kind: 'path', path: resolve(options.modelPath), bundled: false };
  if (options.model) return { kind: 'hub', model: options.model };
  if (env.TOOLSEARCH_MODEL_PATH)
    return { kind: 'path', path: resolve(env.TOOLSEARCH_MODEL_PATH), bundled: false };
  if (env.TOOLSEARCH_MODEL) return { kind: 'hub', model: env.TOOLSEARCH_MODEL };
  return { kind: 'path', path: DEFAULT_MODEL_PATH, bundled: true };
}

/**
 * A stable identity for a model, for the cache key: the hub id, or for a folder
 * its name plus a hash of its CHECKSUMS (or its config and weight file sizes and
 * dates), so rebuilt weights never reuse stale vectors.
 */
export function modelFingerprint(source: ModelSource): string {
  if (source.kind === 'hub') return `hub:${source.model}`;
  const hash = createHash('sha256');
  const checksums = join(source.path, 'CHECKSUMS');
  if (existsSync(checksums)) {
    hash.update(readFileSync(checksums));
  } else {
    const config = join(source.path, 'config.json');
    if (existsSync(config)) hash.update(readFileSync(config));
    const onnxDir = join(source.path, 'onnx');
    if (existsSync(onnxDir)) {
      for (const file of readdirSync(onnxDir).sort()) {
        const stat = statSync(join(onnxDir, file));
        hash.update(`${file}:${stat.size}:${stat.mtimeMs}`);
      }
    }
  }
  return `local:${basename(source.path)}:${hash.digest('hex').slice(0, 16)}`;
}

/** An embedder's cache identity: the model, the weights variant and the prefixes (all change the vectors). */
export function embedderId(
  source: ModelSource,
  dtype: string,
  queryPrefix: string,
  documentPrefix: string,
): string {
  const prefixes = queryPrefix || documentPrefix ? `|q=${queryPrefix}|d=${documentPrefix}` : '';
  return `${modelFingerprint(source)}|${dtype}${prefixes}`;
}
