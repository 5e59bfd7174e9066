import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/defaults.js';
import { learnUses, usesOfQueries } from '../src/eval/learn.js';
import type { ToolUse } from '../src/learning.js';

describe('learning from a labelled dataset', () => {
  it('stands each query for one use per relevant tool', () => {
    expect(
      usesOfQueries([
        { query: 'open a pr', relevant: ['create_pull_request', 'push'] },
        { query: 'list files', relevant: ['list_directory'] },
      ]),
    ).toEqual([
      { query: 'open a pr', tool: 'create_pull_request' },
      { query: 'open a pr', tool: 'push' },
      { query: 'list files', tool: 'list_directory' },
    ]);
  });

  it('feeds engine.learn in batches within its per-call bound and adds up what it reports', () => {
    const batches: number[] = [];
    const engine = {
      learn(uses: readonly ToolUse[]) {
        batches.push(uses.length);
        const unknown = uses.filter((use) => use.tool === 'gone').length;
        return { learned: uses.length - unknown, unknown };
      },
    };
    const max = DEFAULTS.learning.maxUsesPerCall;
    const uses = Array.from({ length: max + 3 }, (_, i) => ({
      query: `q${i}`,
      tool: i % 2 === 0 ? 'gone' : 't',
    }));
    const total = learnUses(engine, uses);
    expect(batches).toEqual([max, 3]);
    expect(total.learned + total.unknown).toBe(max + 3);
    expect(total.unknown).toBe(Math.ceil((max + 3) / 2));
    expect(learnUses(engine, [])).toEqual({ learned: 0, unknown: 0 });
  });
});
