/**
 * The ablation configurations. Every configuration is a per-query
 * `SearchOptions.disable` list, so one engine per dataset serves them all: the
 * index and the embeddings are built once. "X only" disables every other
 * strategy, which is what `strategies: [X]` means, and lets core-search's
 * evaluate() (which takes a disable list) run every configuration.
 */
import { STRATEGY_NAMES, type StrategyName } from '@toolsearch/core-search';

export type ConfigKind = 'all' | 'minus' | 'only';

export interface AblationConfig {
  /** Stable id used in the JSON output: "all", "minus-fuzzy", "only-keyword". */
  id: string;
  /** Short human label for tables and the heat map. */
  label: string;
  kind: ConfigKind;
  /** The strategy removed ("minus") or kept alone ("only"). */
  strategy?: StrategyName;
  /** Strategies switched off for every query of this configuration (SearchOptions.disable). */
  disable: StrategyName[];
  /** Whether the embedding strategy takes part, so an unavailable model changes the result. */
  usesEmbedding: boolean;
}

/**
 * All strategies; each strategy removed in turn; each strategy alone.
 * "Keyword only" is the `only-keyword` configuration (the classic BM25 baseline),
 * not a separate entry: the two would run identical searches.
 */
export function ablationConfigs(): AblationConfig[] {
  const strategies = STRATEGY_NAMES;
  const configs: AblationConfig[] = [
    { id: 'all', label: 'all strategies', kind: 'all', disable: [], usesEmbedding: true },
  ];
  for (const strategy of strategies) {
    configs.push({
      id: `minus-${strategy}`,
      label: `without ${strategy}`,
      kind: 'minus',
      strategy,
      disable: [strategy],
      usesEmbedding: strategy !== 'embedding',
    });
  }
  for (const strategy of strategies) {
    configs.push({
      id: `only-${strategy}`,
      label: `${strategy} only`,
      kind: 'only',
      strategy,
      disable: strategies.filter((other) => other !== strategy),
      usesEmbedding: strategy === 'embedding',
    });
  }
  return configs;
}
