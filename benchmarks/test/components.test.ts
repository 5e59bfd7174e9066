import type { ToolDefinition } from '@toolsearch/core-search';
import type { Dataset } from '@toolsearch/core-search/eval';
import { describe, expect, it } from 'vitest';
import { runAblation } from '../src/ablation.js';
import { LEARNING_FOLDS, runComponents } from '../src/components.js';
import { DEFAULT_SEED, foldsByQuery } from '../src/learning.js';

// Tools the phrasing pack does not hold, and words no description has: only learning can
// connect "quillwort" to the mail tool.
const tools: ToolDefinition[] = [
  { name: 'mail__send_email', description: 'Send an email message to a recipient' },
  { name: 'git__log', description: 'Show the commit history of the repository' },
  { name: 'fs__read_file', description: 'Read the contents of a file from disk' },
  { name: 'fs__list_directory', description: 'List the files and folders in a directory' },
];
const filler = Array.from({ length: 12 }, (_, i) => ({
  id: `f${i}`,
  segment: i % 2 === 0 ? 'new' : 'experienced',
  query: ['show commit history', 'read the file', 'list the folder'][i % 3]! + ` ${i}`,
  relevant: [['git__log', 'fs__read_file', 'fs__list_directory'][i % 3]!],
}));
/** Two wordings of one unknown-word need in different folds, and one whose text no other query shares. */
const unknownWord = [
  { id: 'u1', segment: 'new', query: 'quillwort to grandma', relevant: ['mail__send_email'] },
  { id: 'u2', segment: 'new', query: 'quillwort to grandma please', relevant: ['mail__send_email'] },
  { id: 'solo', segment: 'new', query: 'zymurgy report', relevant: ['git__log'] },
  { id: 'solo-twin', segment: 'experienced', query: 'Zymurgy  REPORT', relevant: ['git__log'] },
];
const dataset: Dataset = { name: 'learned', origin: 'learned', tools, queries: [...filler, ...unknownWord] };

describe('component rows', async () => {
  const rows = await runComponents(dataset, { embedding: false });
  const byId = new Map(rows.map((row) => [row.id, row.result]));

  it('are the pack, no pack, leave-one-server-out pack and learned rows, lexical-only without the embedding', () => {
    expect(rows.map((row) => row.id)).toEqual([
      'pack-lexical',
      'no-pack-lexical',
      'pack-loso-lexical',
      'learned-lexical',
    ]);
    for (const row of rows) expect(row.result.metrics.queries).toBe(dataset.queries.length);
    // No tool here is in the pack: the three pack settings rank alike.
    const quality = (id: string) => ({ metrics: byId.get(id)?.metrics, segments: byId.get(id)?.segments });
    expect(quality('no-pack-lexical')).toEqual(quality('pack-lexical'));
    expect(quality('pack-loso-lexical')).toEqual(quality('pack-lexical'));
    expect(quality('pack-lexical').metrics?.['recall@5']).toBeGreaterThan(0);
  });

  it('learn from the other folds only: a wording learned elsewhere helps, a query never meets its own text', async () => {
    const folds = foldsByQuery(dataset.queries, LEARNING_FOLDS, DEFAULT_SEED);
    const foldOf = (id: string) => folds.findIndex((fold) => fold.some((q) => q.id === id));
    // Precondition of this test's data, not of the code: the two wordings fall in different folds.
    expect(foldOf('u1')).not.toBe(foldOf('u2'));
    // The same text (case and spacing aside) always shares a fold.
    expect(foldOf('solo')).toBe(foldOf('solo-twin'));

    const perQuery = async (queries: typeof dataset.queries) =>
      (
        await runComponents(
          { ...dataset, queries: dataset.queries },
          { embedding: false, queries, variants: ['learned'] },
        )
      )[0]!.result.metrics;
    const pick = (id: string) => dataset.queries.filter((q) => q.id === id);
    const before = (
      await runComponents({ ...dataset, queries: pick('u1') }, { embedding: false, variants: ['pack'] })
    )[0]!.result.metrics;
    expect(before['recall@5']).toBe(0);
    expect((await perQuery(pick('u1')))['recall@5']).toBe(1);
    expect((await perQuery(pick('u2')))['recall@5']).toBe(1);
    expect((await perQuery(pick('solo')))['recall@5']).toBe(0);
    expect((await perQuery(pick('solo-twin')))['recall@5']).toBe(0);
  });

  it('appear in the ablation per segment, with deltas against all strategies', async () => {
    const result = await runAblation(dataset, {
      file: 'learned.json',
      embedding: false,
      latency: false,
      components: true,
    });
    const components = result.components ?? [];
    expect(components.map((row) => row.id)).toEqual(rows.map((row) => row.id));
    for (const row of components) {
      expect(row.kind).toBe('component');
      expect(Object.keys(row.metrics)).toEqual(result.segments);
      expect(row.delta?.overall?.r5).toBeCloseTo(
        row.metrics.overall!.r5 - result.configs[0]!.metrics.overall!.r5,
        12,
      );
    }
  });
});
