import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ToolSearchError } from './errors.js';

/**
 * The bundled registry: in the repository, fixtures/registry/tools.json; in the
 * published package, dist/registry/tools.json (copied there by the prepack script,
 * into dist/ so packing leaves nothing untracked behind).
 * Paths are relative to this file, which is src/registry.ts or dist/registry.js.
 * The CLI searches it by default; the phrasing pack (pack.ts) fingerprints its tools.
 */
export function bundledRegistryPath(): string {
  const candidates = ['../../../fixtures/registry/tools.json', './registry/tools.json'].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  );
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) {
    throw new ToolSearchError(
      'INVALID_DATASET',
      `no bundled registry found (looked at ${candidates.join(', ')}); pass --tools FILE`,
    );
  }
  return found;
}
