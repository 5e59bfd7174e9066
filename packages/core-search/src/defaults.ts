/**
 * Every tunable default of the engine, in one place. Values were set by measuring
 * on the datasets in ../shared/datasets as a whole (R@5, MRR), never per query;
 * see DESIGN.md for why the weights depend on the query's shape.
 */
import type { QueryShape, StrategyName } from './types.js';

/** The field weights every query shape shares; only the phrasings weight differs by shape (see bm25.fieldWeights). */
const SHARED_FIELD_WEIGHTS = {
  name: 3,
  title: 2,
  tags: 1.5,
  toolset: 1.5,
  description: 1,
  schema: 0.3,
  learned: 1,
} as const;

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

  /** BM25F (keyword, synonyms, fuzzy, prefix) and the TF-IDF term weights. */
  bm25: {
    k1: 1.2,
    /**
     * Length normalisation per field; names are short and equal-ish, descriptions vary a
     * lot. Phrasings are many short requests: a tool with 14 of them should not lose to one
     * with 3 merely for being better described, hence a low b.
     */
    b: {
      name: 0.3,
      title: 0.3,
      tags: 0.3,
      toolset: 0.3,
      description: 0.4,
      schema: 0.4,
      phrasings: 0.3,
      learned: 0.3,
    },
    /**
     * Field weights by query shape. Name above tags and toolset, above description, above
     * schema for identifiers and keywords. Natural-language requests share few words with
     * names and many ordinary words ("page", "file", "list") with schema prose and toolset
     * names (a BM25 over name + description alone beat the whole engine on vague held-out
     * requests, issue 13). Phrasings are everyday requests, the register of such queries.
     *
     * How chosen (at f69bf84; lexical strategies, pack on, `--disable embedding`): the phrasings weight
     * on the fixtures (full pack and leave-one-server-out pack), confirmed on MCPToolBench++
     * (47 of its 49 tools are pack tools); the other datasets have no phrasings and score
     * exactly as before. At 1 the fixtures' new users reach R@5 .836 with the full pack but
     * .116 with a leave-one-server-out pack (no pack: .242) and MCPToolBench++ MRR falls
     * .923 -> .860: phrasings of covered tools outvote uncovered ones on generic words.
     * At .5: .785 full, .186 leave-one-server-out, MCPToolBench++ MRR .962. Lower (.2-.35)
     * gave up more of the full-pack gain than it saved. Identifiers rarely read like
     * requests: .3. Lowering schema (.15) and toolset for natural requests, as the held-out
     * finding suggested, cost BFCL R@5 .835 -> .820 and the fixtures' leave-one-server-out
     * figures here, so the other weights are unchanged. Corpus.fieldWeightedTfs backs off
     * to the description for tools without phrasings. A separate `phrasings` RRF strategy
     * instead of a field gave every covered tool a vote however weak its match:
     * MCPToolBench++ R@5 fell to .61 (f69bf84).
     */
    fieldWeights: {
      identifier: { ...SHARED_FIELD_WEIGHTS, phrasings: 0.3 },
      keywords: { ...SHARED_FIELD_WEIGHTS, phrasings: 0.5 },
      natural: { ...SHARED_FIELD_WEIGHTS, phrasings: 0.5 },
    } satisfies Record<QueryShape, Record<FieldName, number>>,
  },

  /**
   * Learning from use (engine.learn): requests people searched for, then loaded or called
   * a tool with, kept in the tool's `learned` field.
   */
  learning: {
    /**
     * At most this many distinct requests per tool; beyond it the weakest are dropped.
     * Chosen on MetaTool at 74af89b (learn 80% of queries by a seeded hash, test 1,000 of the rest;
     * ~85 learned requests per tool): nDCG@10 .819 at 64, .853 at 256, .854 at 1,024;
     * confirmed neutral on BFCL, Seal-Tools and the fixtures (under 3 requests per tool).
     * The learned field weight (1) and length norm (b .3) were flat between .5 and 3 and
     * .1 and .6 on the same split, so they stay at the description's.
     */
    maxPerTool: 256,
    /** A request's weight halves every this many days of age (age from the newest use seen). */
    halfLifeDays: 90,
    /** Below this strength (count x decay) a request has aged out and is dropped. */
    minStrength: 0.1,
    /** A request repeats in the field 1 + log2(strength) times, at most this many. */
    maxRepeat: 4,
    /** Counts are capped here (a runaway client cannot make one request outweigh the rest). */
    maxCount: 1_000_000,
    /** learn() takes at most this many uses per call. */
    maxUsesPerCall: 100_000,
  },

  /**
   * Memos: speed-ups that are never required. Each starts afresh when full, so a
   * long-running server fed arbitrary input cannot grow them forever. Sized to hold the
   * distinct tokens of the ~100k-tool benchmark registry (pnpm bench --only compare).
   */
  selection: {
    /**
     * A top-k selection (bestOf) first keeps only the candidates scoring at least a guess at
     * the k-th score, read from this many sampled candidates, ...
     */
    sample: 128,
    /** ... aimed at this many times k candidates (fewer than k: every candidate is selected among) ... */
    margin: 1.5,
    /** ... once there are at least this many candidates per wanted one (and two samples' worth). */
    narrowFrom: 4,
  },

  memos: {
    /** Raw token -> analysed terms (analyze.ts) and token -> words (tokenize.ts). */
    maxTokens: 200_000,
    /** Word -> Porter2 stem. */
    maxStems: 200_000,
    /** Identifier -> its words (a registry repeats the same names across servers). */
    maxIdentifierSplits: 100_000,
    /** Distinct texts one add() analyses once (AnalysisMemo): repeated descriptions and schemas. */
    maxAnalysedTexts: 1_000_000,
    /** Servers whose exact-name keys one exact retriever remembers. */
    maxExactServers: 100_000,
    /** Distinct packed field counts whose TF-IDF log tf is kept, per query shape (few occur). */
    maxPackedCounts: 100_000,
  },

  /** TF-IDF's document norms (retrievers/tfidf.ts). */
  tfidf: {
    /**
     * The terms in most documents are kept apart from the norms' per-document sums, so a
     * change of their document frequency (nearly every add()) patches no document: at most
     * `slots` terms, from `minDf` documents. Each costs every norm computed after a change a
     * little (a document adds what it holds of each when its norm is read), so few: single
     * adds at 10k tools, norm update + 3,000 norms read, CPU µs (load 9.7, scratch
     * updbench.mts): none 249 + 59, 4 slots 141 + 84, 8: 145 + 102, 16: 136 + 115.
     */
    denseTerms: { slots: 4, minDf: 1024 },
    /**
     * Significant bits of the document count and document frequencies the norms weigh by
     * (retrieval/grid.ts; the query's weights take them exact). A count below 2^bits is
     * exact, a larger one moves in steps of about 2^-bits of itself, so one add() seldom
     * moves a common term's c(t) (the norms of all its documents) or A (every norm): the
     * first search after it repairs the shares of the few documents whose norms moved
     * instead of reading a new norm per posting. Rankings and recall: DESIGN.md, "After an
     * add(): norms on a grid".
     */
    normGridBits: 5,
  },

  /** Everyday requests attached to a tool (its `examples`/`phrasings`, addPhrasings, the pack). */
  phrasings: {
    /** At most this many per tool (the tool's own first, then added ones, then the pack's). */
    maxPerTool: 48,
    /** Longer phrasings are cut to this many characters (a phrasing is a request, not a document). */
    maxChars: 200,
    /** At most this many characters of phrasings join the embedding text (word vectors average). */
    maxEmbeddingChars: 400,
  },

  synonyms: {
    /** An expanded term counts this much of an original query term. */
    expansionWeight: 0.4,
  },

  /**
   * Recognising a pack tool (pack.ts) whose description is not word for word the one the
   * pack was written for. The bare name must be equal (letters and digits), and either the
   * description words (Jaccard) reach `minDescriptionSimilarity` with the mean of
   * description and parameter-name similarity at least `minSimilarity`, or at least
   * `minSharedParams` parameter names are shared with a Jaccard of `minParamSimilarity`
   * (an older or newer version of the same API whose prose was rewritten: Tavily's search,
   * filesystem's read_file). GitHub's and GitLab's `create_issue` share 2 parameter names
   * of 13 and half their description words: not the same tool.
   */
  pack: {
    minDescriptionSimilarity: 0.3,
    minSimilarity: 0.6,
    minSharedParams: 3,
    minParamSimilarity: 0.6,
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
    /**
     * A completion weighs (prefix length / completion length), floored here: "auth" should
     * still find "authentication" without a long completion of a short word counting for
     * nothing. Set with the prefix strategy (f7ba05d), not swept on its own.
     */
    minCompletionWeight: 0.3,
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
    /**
     * An unknown toolset's error lists at most this many names, the closest spellings when
     * there are more (a dataset can have thousands): a screenful, not a dump.
     */
    maxChoicesListed: 20,
  },

  /** Evaluation (eval/evaluate.ts, `toolsearch eval`). */
  eval: {
    /**
     * Results fetched per query: R@10 and nDCG@10 need 10, and MRR counts a first relevant
     * hit down to this rank (past it a query scores 0), so 20 keeps late hits visible.
     */
    limit: 20,
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
    /** Shorter words are never corrected ("cv", "ana", "sql": too many neighbours). */
    spellerMinWordLength: 5,
    /** Distinct text chunks whose token ids the static embedder memoises (cleared when full). */
    maxMemoChunks: 200_000,
    /**
     * The weights a model folder or hub model is loaded in (onnx/model_quantized.onnx): the
     * bundled model ships only these, and int8 is a quarter of fp32's download and memory.
     * Not chosen on a dataset; `embedding.dtype` overrides it.
     */
    dtype: 'q8',
    /**
     * Texts per embedder call while indexing. Set with the embedding strategy (26eb9bf), not
     * swept: it trades per-call overhead against the padded input of one call, and changes
     * indexing time and peak memory, not rankings. `embedding.batchSize` overrides it.
     */
    batchSize: 64,
    /**
     * Queries with more content words than this get a smaller embedding weight, falling with
     * the square of the length: a long request written close to the API wording shares
     * enough words with its tools for the lexical strategies, and a bag-of-words vector of
     * it blurs towards the average tool. Chosen on all datasets as a whole (the shape of the
     * curve, not per query; cee56bf).
     */
    lengthPivot: 14,
    /** Below this many documents an add is quick enough not to report progress (onProgress). */
    progressMinDocs: 1000,
  },

  indexCache: {
    /**
     * Built indexes the CLI keeps (index-cache.ts), newest first: one per tools file and
     * settings in use, and an index is about as large as its tools file. Not measured: a
     * handful covers switching between a few files and models.
     */
    maxFiles: 8,
  },

  /**
   * RRF weight of each strategy by query shape. Typo, prefix and n-gram matching
   * are the best signal on bare identifiers and mostly noise on long sentences, so
   * they fade out as the query becomes natural language. 0 = the strategy does not run.
   * `category` is off for natural language: ordinary words ("car", "functions", "time")
   * are also toolset names, and a flat boost of a whole toolset then buries the answer
   * (on for every shape, BFCL R@5 fell .833 -> .689; 084b6dc).
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
      // The bundled model's word vectors are fine-tuned on everyday requests (MetaTool).
      // Before phrasings, 0.6 lifted vague wording with no dataset below lexical-only
      // (models/glove-100d-sif-tuned/EVALUATION.md). With the phrasing pack the lexical side
      // reads everyday words itself. Chosen at 7e3d1c2 on the team fixtures among the settings that lose
      // to lexical-only nowhere, confirmed on data it was not chosen on: at .3 (the fixtures'
      // best: R@5 .947 vs lexical .928) the post-pack new-user holdout
      // (fixtures/queries/new-users-holdout.json) fell below lexical-only (R@5 .905 vs .913);
      // at .1 every set is at or above lexical-only in R@5 and MRR: holdout .916/.842 vs
      // .913/.840, fixtures .937/.904 vs .928/.899, MCPToolBench++ MRR .969 vs .963,
      // Seal-Tools .866/.9666 vs .864/.9665, BFCL and MetaTool (600-query samples) higher.
      // `toolsearch eval --dataset D --compare embedding`. Longer queries fade further, see
      // embedding.lengthPivot.
      embedding: 0.1,
    },
  } satisfies Record<QueryShape, Record<StrategyName, number>>,
} as const;

/**
 * `toolsearch enrich` / enrichTools: the chat requests that write phrasings, and their bounds.
 * Set with enrichment (98de7b5) for a local server or a hosted API; none is tuned on a
 * dataset (the phrasings' effect is measured in DESIGN.md, not these settings').
 */
export const ENRICH_DEFAULTS = {
  /** Requests in flight at once (a local server or a hosted API's rate limit); at most maxConcurrency. */
  concurrency: 4,
  maxConcurrency: 64,
  /** One request's time budget. */
  timeoutMs: 60_000,
  /** Further attempts after a timeout, a 429/5xx or a malformed answer. */
  retries: 3,
  /** Retries one may ask for: with doubling backoff, 10 already wait minutes. */
  maxRetries: 10,
  /** The CLI's --timeout bound: one hour for one request is already a hang. */
  maxTimeoutMs: 3_600_000,
  /** First retry delay; doubles each attempt. */
  backoffMs: 500,
  /** Phrasings asked for and kept per tool. */
  minPhrasings: 8,
  maxPhrasings: 12,
  /** An answer with fewer valid phrasings is malformed. */
  minValid: 4,
  /** Characters of one phrasing. */
  minChars: 3,
  maxChars: 200,
  /** Bytes of one HTTP answer read at most. */
  maxAnswerBytes: 256 * 1024,
  /** Characters of a tool description put in the prompt. */
  maxDescriptionChars: 1500,
  /** Parameter names put in the prompt: enough to say what a tool takes, not a schema dump. */
  maxParams: 20,
  /**
   * Sampling temperature: varied wording across a tool's phrasings rather than the one most
   * likely sentence. Set with enrichment (98de7b5), not swept.
   */
  temperature: 0.7,
  /** Tools one run may enrich. */
  maxTools: 50_000,
} as const satisfies Record<string, number>;

/** The BM25F fields of a document, in posting order (corpus.ts packs counts in this order). */
export const FIELD_NAMES = [
  'name',
  'title',
  'tags',
  'toolset',
  'description',
  'schema',
  'phrasings',
  'learned',
] as const;
export type FieldName = (typeof FIELD_NAMES)[number];
