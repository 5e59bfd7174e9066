import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the condition 'toolsearch-source'.
// The name is ours alone on purpose: a generic 'source' also matches dependencies that export
// 'source' -> src/*.ts (eventsource-parser, used by the MCP SDK), which Node cannot load.
export default defineConfig({
  resolve: { conditions: ['toolsearch-source'] },
  // Tests run in Vite's SSR environment, which takes its own conditions: without this a test
  // importing '@toolsearch/core-search' by name fails to resolve (the package has no built dist).
  ssr: { resolve: { conditions: ['toolsearch-source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'benchmarks/test/**/*.test.ts', 'fixtures/test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // No test learns into the developer's cache directory (learned uses would change later
    // runs' rankings): a test that learns passes its own store and environment.
    env: { TOOLSEARCH_NO_LEARN: '1' },
  },
});
