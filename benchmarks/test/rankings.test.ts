/**
 * Rankings do not move unless someone means them to: the fixtures' 367 queries over the 480
 * registry tools are ranked again, lexical and hybrid (bundled model), and must match the digests
 * recorded in benchmarks/results/rankings.json (`hits-dump.ts --record`). A speed-up or refactor
 * that changes any name, order or score (12 digits) fails here; a change meant to move rankings
 * records the file again, with its measured quality, in the same commit.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDataset } from '@toolsearch/core-search/eval';
import { describe, expect, it } from 'vitest';
import { RESULTS } from '../src/paths.js';
import { digestOf, FIXTURE_QUERIES, type RankingsRecord, rankingLines } from '../src/rankings.js';

const recorded = JSON.parse(readFileSync(join(RESULTS, 'rankings.json'), 'utf8')) as RankingsRecord;
const fixtures = readDataset(FIXTURE_QUERIES);

describe('rankings on the fixtures match benchmarks/results/rankings.json', () => {
  for (const [mode, viaSaved] of [
    ['lexical', false],
    ['hybrid', false],
    ['lexical', true],
  ] as const) {
    it(`${mode}${viaSaved ? ', from a saved index (toBytes, load)' : ''}`, async () => {
      const lines = await rankingLines(fixtures, mode, { viaSaved });
      expect(lines).toHaveLength(fixtures.queries.length);
      // Every query gets a full ranking line: an engine that returned nothing would still digest.
      expect(lines.every((line) => line.split('\t')[2]!.length > 0)).toBe(true);
      expect({ queries: lines.length, sha256: digestOf(lines) }).toEqual(recorded.modes[mode][fixtures.name]);
    }, 120_000);
  }
});
