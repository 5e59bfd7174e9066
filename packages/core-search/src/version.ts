import { createRequire } from 'node:module';

/** This package's version, from its package.json (src/ and dist/ both sit one level below it). */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;
