/** Where the benchmarks read and write, relative to this file (benchmarks/src/). */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** benchmarks/src/ itself (scripts run from it spawn their siblings). */
export const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(HERE, '../..');
export const RESULTS = join(REPO, 'benchmarks/results');
/** Public datasets next to the repository (not in it); absent in a plain checkout. */
export const SHARED_DATASETS = join(REPO, '../shared/datasets');
/** Models next to the repository (timing-only transformer weights for the embedding benchmark). */
export const SHARED_MODELS = join(REPO, '../shared/models');

/** True when this module is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}
