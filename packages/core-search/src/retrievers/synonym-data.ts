/**
 * The built-in vocabulary: everyday and loose wording on the left, the words tool
 * authors use on the right. Relations are symmetric (see synonym-map.ts). General
 * software vocabulary only; never entries written for a particular benchmark query.
 */
export const BUILTIN_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  bug: ['issue', 'defect', 'error'],
  pr: ['pull request', 'merge request'],
  website: ['page', 'site', 'browser', 'url', 'web'],
  screenshot: ['capture', 'snapshot', 'screen'],
  repo: ['repository'],
};
