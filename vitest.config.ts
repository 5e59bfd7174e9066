import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['source'] },
  // Tests run in Vite's SSR environment, which takes its own conditions: without this a test
  // importing '@toolsearch/core-search' by name fails to resolve (the package has no built dist).
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    // The 'source' condition above also reaches dependencies: eventsource-parser (used by the MCP SDK's
    // HTTP client) exports 'source' -> src/*.ts, which Node cannot load. Inlining lets Vite transform it.
    server: { deps: { inline: [/@modelcontextprotocol[\\/]sdk/, /eventsource-parser/] } },
    include: ['packages/*/test/**/*.test.ts', 'benchmarks/test/**/*.test.ts', 'fixtures/test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
