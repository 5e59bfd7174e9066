import { STRATEGY_NAMES } from '@toolsearch/core-search';
import { describe, expect, it } from 'vitest';
import { ablationConfigs } from '../src/configs.js';
import { IMPACT_THRESHOLDS, impactOf } from '../src/impact.js';

describe('ablationConfigs', () => {
  const configs = ablationConfigs();

  it('has all, each strategy removed, each strategy alone, with unique ids', () => {
    expect(configs).toHaveLength(1 + 2 * STRATEGY_NAMES.length);
    expect(new Set(configs.map((c) => c.id)).size).toBe(configs.length);
    expect(configs[0]).toMatchObject({ id: 'all', disable: [] });
    expect(configs.find((c) => c.id === 'only-keyword')).toBeDefined();
  });

  it('expresses each configuration as a disable list', () => {
    for (const strategy of STRATEGY_NAMES) {
      expect(configs.find((c) => c.id === `minus-${strategy}`)!.disable).toEqual([strategy]);
      const only = configs.find((c) => c.id === `only-${strategy}`)!;
      expect(only.disable).toHaveLength(STRATEGY_NAMES.length - 1);
      expect(only.disable).not.toContain(strategy);
    }
  });

  it('knows which configurations depend on the embedding model', () => {
    const uses = configs.filter((c) => c.usesEmbedding).map((c) => c.id);
    expect(uses).toContain('all');
    expect(uses).toContain('only-embedding');
    expect(uses).toContain('minus-keyword');
    expect(uses).not.toContain('minus-embedding');
    expect(uses).not.toContain('only-keyword');
  });
});

describe('impactOf', () => {
  it('labels by |ΔR@5| with the documented thresholds, inclusive, either sign', () => {
    expect(impactOf(-IMPACT_THRESHOLDS.critical)).toBe('critical');
    expect(impactOf(0.25)).toBe('critical');
    expect(impactOf(-0.0999)).toBe('high');
    expect(impactOf(0.1 - 0.05)).toBe('high'); // float noise does not drop it below .05
    expect(impactOf(-0.02)).toBe('medium');
    expect(impactOf(0.0199)).toBe('low');
    expect(impactOf(0)).toBe('low');
  });
});
