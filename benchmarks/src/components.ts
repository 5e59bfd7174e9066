/**
 * The issue 13 rows: what the phrasing pack, learned phrasings and the embedding each
 * contribute, per segment. Unlike the strategy configurations (per-query disable lists on
 * one engine), these need engines of their own:
 *
 * - `pack`: the default engine (the shipped phrasing pack on);
 * - `no-pack`: the engine with `pack: false`;
 * - `pack-loso`: each query answered by an engine without the pack entries of its relevant
 *   tools' servers (core-search's evaluateLeaveOneServerOut), the honest figure for
 *   fixtures written by the same team as the pack;
 * - `learned`: pack + learned phrasings, cross-fitted: the queries are cut into
 *   LEARNING_FOLDS folds by query (learning.ts: seeded, same text in one fold), and each
 *   query is answered by an engine that learned (engine.learn) every query of the other
 *   folds, never its own, so what is learned is always a split disjoint from what is asked;
 *
 * each with and without the embedding (per-query `disable`, same engines).
 */
import { PhrasingPack, ToolSearch, type ToolSearchOptions } from '@toolsearch/core-search';
import {
  aggregateMetrics,
  type Dataset,
  type EvaluationResult,
  evaluate,
  evaluateLeaveOneServerOut,
  type LabelledQuery,
  learnUses,
  type QueryOutcome,
  usesOfQueries,
} from '@toolsearch/core-search/eval';
import { DEFAULT_SEED, foldsByQuery } from './learning.js';

export const LEARNING_FOLDS = 5;

export const COMPONENT_IDS = ['pack', 'no-pack', 'pack-loso', 'learned'] as const;
export type ComponentId = (typeof COMPONENT_IDS)[number];

export const COMPONENT_LABELS: Record<ComponentId, string> = {
  pack: 'pack (default)',
  'no-pack': 'no pack',
  'pack-loso': 'pack, leave-one-server-out',
  learned: `pack + learned (${LEARNING_FOLDS}-fold)`,
};

export interface ComponentOptions {
  /**
   * The queries to answer (default: all of the dataset's). The learned rows still learn
   * from every other-fold query of the whole dataset: a subsample is only what is asked.
   */
  queries?: readonly LabelledQuery[];
  /** Which rows, in this order (default: all). */
  variants?: readonly ComponentId[];
  /** false: the engines are built without the embedding (only the lexical rows are run). */
  embedding?: boolean;
  limit?: number;
  seed?: number;
  log?: (line: string) => void;
}

export interface ComponentRow {
  /** `<variant>` (fused) or `<variant>-lexical` (embedding off). */
  id: string;
  variant: ComponentId;
  lexical: boolean;
  label: string;
  result: Pick<EvaluationResult, 'metrics' | 'segments'>;
}

type Run = (disable: 'embedding'[]) => Promise<Pick<EvaluationResult, 'metrics' | 'segments'>>;

/** Per-segment metrics of the chosen component rows, each with and without the embedding. */
export async function runComponents(
  dataset: Dataset,
  options: ComponentOptions = {},
): Promise<ComponentRow[]> {
  const {
    embedding = true,
    limit = 20,
    seed = DEFAULT_SEED,
    variants = COMPONENT_IDS,
    log = () => {},
  } = options;
  const asked: Dataset = { ...dataset, queries: [...(options.queries ?? dataset.queries)] };
  const base: ToolSearchOptions = embedding ? {} : { embedding: false };
  const engines = new Map<string, ToolSearch>();
  /** One engine per pack setting, built on first use and shared by the fused and lexical runs. */
  const engineFor = (key: string, make: () => ToolSearch): ToolSearch => {
    let engine = engines.get(key);
    if (!engine) {
      engine = make();
      engines.set(key, engine);
    }
    return engine;
  };
  const pack = PhrasingPack.shipped();
  const runs: Record<ComponentId, Run> = {
    pack: (disable) =>
      evaluate(
        engineFor('pack', () => new ToolSearch(base)),
        asked,
        { disable, limit },
      ),
    'no-pack': (disable) =>
      evaluate(
        engineFor('no-pack', () => new ToolSearch({ ...base, pack: false })),
        asked,
        { disable, limit },
      ),
    'pack-loso': (disable) =>
      evaluateLeaveOneServerOut(
        (exclude) =>
          engineFor(`loso:${exclude.join(',')}`, () => new ToolSearch({ ...base, pack: { exclude } })),
        asked,
        (tool) => pack.match(tool)?.server,
        { disable, limit },
      ),
    learned: (disable) => crossFitted(dataset, asked.queries, base, engineFor, { disable, limit, seed }),
  };

  const rows: ComponentRow[] = [];
  for (const variant of variants) {
    for (const lexical of embedding ? [false, true] : [true]) {
      const result = await runs[variant](lexical ? ['embedding'] : []);
      const id = lexical ? `${variant}-lexical` : variant;
      const label = lexical ? `${COMPONENT_LABELS[variant]}, no embedding` : COMPONENT_LABELS[variant];
      rows.push({ id, variant, lexical, label, result });
      log(
        `${dataset.name}: ${id.padEnd(18)} R@5 ${result.metrics['recall@5'].toFixed(3)} MRR ${result.metrics.mrr.toFixed(3)}`,
      );
    }
  }
  return rows;
}

/**
 * Every asked query answered by the engine of its fold, which learned every query of the
 * other folds (one use per relevant tool), never its own wording. Folds are over all of
 * the dataset's queries; engines are built once per fold.
 */
async function crossFitted(
  dataset: Dataset,
  asked: readonly LabelledQuery[],
  base: ToolSearchOptions,
  engineFor: (key: string, make: () => ToolSearch) => ToolSearch,
  options: { disable: 'embedding'[]; limit: number; seed: number },
): Promise<Pick<EvaluationResult, 'metrics' | 'segments'>> {
  const folds = foldsByQuery(dataset.queries, LEARNING_FOLDS, options.seed);
  const foldOf = new Map<string, number>();
  folds.forEach((fold, k) => {
    for (const query of fold) foldOf.set(query.id, k);
  });
  const outcomes: QueryOutcome[] = [];
  for (const [k] of folds.entries()) {
    const queries = asked.filter((query) => foldOf.get(query.id) === k);
    if (queries.length === 0) continue;
    const engine = engineFor(`learned:${k}`, () => {
      const learner = new ToolSearch(base);
      learner.add(dataset.tools);
      learnUses(learner, usesOfQueries(folds.flatMap((fold, j) => (j === k ? [] : fold))));
      return learner;
    });
    const result = await evaluate(
      engine,
      { ...dataset, queries },
      { disable: options.disable, limit: options.limit, perQuery: true },
    );
    outcomes.push(...result.perQuery!);
  }
  return aggregateMetrics(outcomes);
}
