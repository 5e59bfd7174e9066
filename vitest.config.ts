import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Suites that start the CLIs as child processes (tsx compiles each at start: seconds per
 * test). They run as their own project, still part of `vitest run` / `pnpm test`, so the
 * unit suites report on their own and `--project unit` gives a fast loop.
 */
const PROCESS_SUITES = [
  'packages/core-search/test/cli.test.ts',
  'packages/mcp-adapter/test/gateway-stdio.test.ts',
  'benchmarks/test/run.test.ts',
];

// Every test runs with a home and cache directory of its own, removed when the run ends: a
// test that passes `env: {}` (to leave the switches below unset) would otherwise resolve the
// default cache directory to the developer's, and write learned uses, built indexes or
// embeddings there (learned uses change that developer's rankings; a stored index is served
// by the next start of the same configuration).
const testHome = mkdtempSync(join(tmpdir(), 'toolsearch-test-home-'));
process.on('exit', () => rmSync(testHome, { recursive: true, force: true }));

// Workspace packages export their TypeScript sources under the condition 'toolsearch-source'.
// The name is ours alone on purpose: a generic 'source' also matches dependencies that export
// 'source' -> src/*.ts (eventsource-parser, used by the MCP SDK), which Node cannot load.
export default defineConfig({
  resolve: { conditions: ['toolsearch-source'] },
  // Tests run in Vite's SSR environment, which takes its own conditions: without this a test
  // importing '@toolsearch/core-search' by name fails to resolve (the package has no built dist).
  ssr: { resolve: { conditions: ['toolsearch-source'] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // No test learns into the developer's cache directory (learned uses would change later
    // runs' rankings): a test that learns passes its own store and environment.
    // Nor keeps a built index there (a test that caches passes its own directory and environment).
    env: {
      TOOLSEARCH_NO_LEARN: '1',
      TOOLSEARCH_NO_INDEX_CACHE: '1',
      HOME: testHome,
      XDG_CACHE_HOME: join(testHome, '.cache'),
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'packages/*/test/**/*.test.ts',
            'benchmarks/test/**/*.test.ts',
            'fixtures/test/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, ...PROCESS_SUITES],
        },
      },
      // Each test waits on a few node + tsx start-ups, seconds apiece on a loaded 2-core machine.
      { extends: true, test: { name: 'processes', include: PROCESS_SUITES, testTimeout: 180_000 } },
    ],
  },
});
