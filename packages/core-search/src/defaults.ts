/**
 * Every tunable default of the engine, in one place. Values were set by measuring
 * on the datasets in ../shared/datasets as a whole (R@5, MRR), never per query;
 * see DESIGN.md for why the weights depend on the query's shape.
 */
import type { QueryShape, StrategyName } from './types.js';

export const DEFAULTS = {
  analysis: {
    /** Longer text is truncated before analysis (descriptions, examples). */
    maxTextChars: 4000,
    /** Schema property names + descriptions, concatenated, are truncated to this. */
    maxSchemaChars: 2000,
    /** How deep nested `properties` / `items` are walked. */
    maxSchemaDepth: 3,
    /** Queries longer than this are truncated (a pasted document is not a query). */
    maxQueryChars: 1000,
    /** Longer words are not stemmed (no English word is this long; stemming cost grows with the square). */
    maxStemChars: 40,
    /** Shape detection: at most this many words, mostly not stop words, is a keyword query. */
    maxKeywordWords: 5,
  },

  /** BM25F (keyword, synonyms, category). */
  bm25: {
    k1: 1.2,
    /** Length normalisation per field; names are short and equal-ish, descriptions vary a lot. */
    b: { name: 0.3, title: 0.3, tags: 0.3, toolset: 0.3, description: 0.4, schema: 0.4 },
    /** Name above tags and toolset, above description, above schema. */
    fieldWeights: { name: 3, title: 2, tags: 1.5, toolset: 1.5, description: 1, schema: 0.3 },
  },

  synonyms: {
    /** An expanded term counts this much of an original query term. */
    expansionWeight: 0.4,
  },

  fuzzy: {
    /**
     * At 10k tools, a word in at least this many tools is an established word (fewer:
     * possibly a typo of the crawl itself); scaled down for small registries (Corpus.knownDf).
     * Literal strategies discount words below it on short queries (literal-weight.ts).
     */
    knownDf: 3,
    /** Words shorter than this are never fuzzy-matched (too many neighbours). */
    minWordLength: 4,
    /** Allowed edit distance by word length: < 8 chars -> 1, longer -> 2. */
    longWordLength: 8,
    /** Nearest vocabulary terms kept per misspelt word. */
    maxNeighbours: 8,
  },

  prefix: {
    /** Query words shorter than this are not expanded as prefixes. */
    minPrefixLength: 3,
    /** At most this many vocabulary completions per query word (shortest first). */
    maxExpansions: 30,
  },

  ngram: {
    /** Character n-gram size over tool names. */
    n: 3,
    /** Below this cosine the shared grams are chance ("translate" vs "navigate": 0.24). */
    minSimilarity: 0.3,
  },

  exact: {
    /** One-typo tolerance applies only to names at least this long (compacted): short names have too many neighbours. */
    minTypoKeyLength: 8,
  },

  category: {
    /** At most this many toolsets are boosted per query. */
    maxToolsets: 3,
    /** Words that appear in many server names and say nothing about the toolset. */
    genericWords: ['mcp', 'server', 'servers', 'tool', 'tools', 'modelcontextprotocol', 'api', 'default'],
  },

  fusion: {
    /** Reciprocal-rank-fusion constant k. */
    rrfK: 60,
    /** How deep each strategy's ranking goes into fusion. */
    depth: 100,
    /** How many fused candidates count as evidence for toolset suggestions. */
    toolsetEvidenceDepth: 30,
    /** How many toolset suggestions a response carries. */
    maxToolsetSuggestions: 5,
  },

  search: {
    limit: 10,
    maxLimit: 1000,
    /** Alternative phrasings of one need that searchAlternatives fuses with the query. */
    maxAlternatives: 3,
  },

  /**
   * Size budgets for untrusted input, so that no tool list, option or query costs
   * unbounded work (the query's own budget is analysis.maxQueryChars). Each is
   * configurable per engine: ToolSearchOptions.limits.
   */
  limits: {
    /** A tool definition larger than this, as JSON, is rejected (INVALID_TOOL); the largest of 9,970 real tools is 138 KB. */
    maxToolChars: 1_000_000,
    /** At most this many word -> target pairs in the `synonyms` option (the built-in map has ~1,000). */
    maxSynonymPairs: 10_000,
    /** A synonym word or phrase longer than this is rejected: phrase lookup cost grows with it. */
    maxSynonymChars: 64,
  },

  embedding: {
    /** Query vectors kept in the LRU (keys are the bounded query text). */
    queryCacheSize: 512,
    /**
     * The typo corrector (speller.ts) skips longer words: its candidate set grows with
     * the word's length, and no misspelt everyday word is this long.
     */
    spellerMaxWordLength: 24,
  },

  /**
   * RRF weight of each strategy by query shape. Typo, prefix and n-gram matching
   * are the best signal on bare identifiers and mostly noise on long sentences, so
   * they fade out as the query becomes natural language. 0 = the strategy does not run.
   * `category` is off for natural language: ordinary words ("car", "functions", "time")
   * are also toolset names, and a flat boost of a whole toolset then buries the answer.
   * `embedding` stays a minority voice: measured alone, the bundled static model is
   * below BM25 on every dataset and at full weight pulled the fusion down.
   */
  shapeWeights: {
    identifier: {
      keyword: 1,
      tfidf: 0.5,
      synonyms: 0.3,
      fuzzy: 1,
      prefix: 1,
      ngram: 1,
      category: 0.3,
      exact: 2,
      embedding: 0.1,
    },
    keywords: {
      keyword: 1,
      tfidf: 0.6,
      synonyms: 0.6,
      fuzzy: 1,
      prefix: 0.8,
      ngram: 0.3,
      category: 0.3,
      exact: 2,
      embedding: 0.3,
    },
    natural: {
      keyword: 1,
      tfidf: 0.6,
      synonyms: 0.5,
      fuzzy: 0.15,
      prefix: 0,
      ngram: 0,
      category: 0,
      exact: 2,
      // The bundled model's word vectors are fine-tuned on everyday requests (MetaTool):
      // 0.6 lifts vague wording (fixtures `new`, held-out) and no dataset falls below
      // lexical-only in any reported metric (models/glove-100d-sif-tuned/EVALUATION.md);
      // the fixtures' `experienced` segment pays R@5 for it. Longer queries fade further,
      // see embedding/retriever.ts.
      embedding: 0.6,
    },
  } satisfies Record<QueryShape, Record<StrategyName, number>>,
} as const;

export type FieldName = keyof typeof DEFAULTS.bm25.fieldWeights;
export const FIELD_NAMES: readonly FieldName[] = [
  'name',
  'title',
  'tags',
  'toolset',
  'description',
  'schema',
];
