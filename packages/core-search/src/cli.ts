#!/usr/bin/env node
/**
 * The `toolsearch` command line: search a tool list, or evaluate the engine on
 * a labelled dataset. Results go to stdout, progress and errors to stderr.
 * Exit codes: 0 ok, 1 runtime error (unreadable file, engine failure), 2 usage error.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { countOf, quoteQuery } from './analysis/summarize.js';
import { type Dataset, readDataset } from './dataset.js';
import { DEFAULTS } from './defaults.js';
import { ToolSearch, type ToolSearchOptions } from './engine.js';
import { ENRICH_DEFAULTS, enrichTools } from './enrich.js';
import { ToolSearchError } from './errors.js';
import { type EvaluationResult, evaluate, evaluateLeaveOneServerOut } from './eval/evaluate.js';
import { learnUses, usesOfQueries } from './eval/learn.js';
import type { MetricSummary } from './eval/metrics.js';
import { defaultIndexCacheDir, indexCacheKey, readCachedIndex, writeCachedIndex } from './index-cache.js';
import type { ToolUse } from './learning.js';
import { PhrasingPack } from './pack.js';
import { bundledRegistryPath } from './registry.js';
import {
  type SearchExplanation,
  type SearchOptions,
  type SearchResponse,
  STRATEGY_NAMES,
  type StrategyName,
} from './types.js';
import { VERSION } from './version.js';

/** A mistake in how the command was called: exit code 2, with a pointer to --help. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

const MAIN_HELP = `Usage: toolsearch <command> [options]

Commands:
  search <query>   Rank the tools of a tools file (default: the bundled registry) for a query
  eval             Measure retrieval quality and latency on a labelled dataset
  enrich           Have a chat model write everyday phrasings for each tool of a tools file

Options:
  -h, --help       Show this help
  -v, --version    Print the version

Run "toolsearch <command> --help" for the options of a command.`;

const SEARCH_HELP = `Usage: toolsearch search <query> [options]

Options:
  --tools FILE       JSON array of tools, an MCP tools/list result, or a dataset file
                     (default: the bundled registry, 480 real tools of 27 MCP servers)
  --limit N          Number of results, 1-${DEFAULTS.search.maxLimit} (default ${DEFAULTS.search.limit})
  --toolset NAME     Only tools of this toolset (comma-separate several)
  --disable LIST     Strategies to switch off, comma-separated: ${STRATEGY_NAMES.join(', ')}
  --json             Print the SearchResponse as JSON (tool definitions only with --explain)
  --explain          Also show the query analysis and each strategy's own ranking
  --model ID         Embedding model id
  --model-path DIR   A local model folder in transformers.js layout (config.json, onnx/)
  --no-embedding     Lexical strategies only (fast start, no model)
  --no-pack          Without the shipped phrasing pack (everyday requests for the registry's tools)
  --no-cache         Neither read nor write the index cache (built indexes, by the tools
                     file's content, in $XDG_CACHE_HOME/toolsearch/indexes)
  -h, --help         Show this help`;

const EVAL_HELP = `Usage: toolsearch eval --dataset FILE|DIR [--dataset ...] [options]

Options:
  --dataset FILE     Dataset file: {name, tools | toolsFrom, queries: [{id, query, relevant, segment?}]}.
                     Repeatable. A directory means each of its *.json files that has queries
                     (tools-only files there are skipped, with a note on stderr)
  --disable LIST     Strategies to switch off, comma-separated: ${STRATEGY_NAMES.join(', ')}
  --compare LIST     Also evaluate with these strategies switched off, on the same index, and
                     report both and the difference (e.g. --compare embedding)
  --max-queries N    Evaluate a deterministic subsample of N queries (chosen by a hash of the id)
  --per-query FILE   Also write each query's metrics, top 10 names and latency to FILE (JSON;
                     one dataset only)
  --limit N          Results fetched per query, 10-${DEFAULTS.search.maxLimit} (default ${DEFAULTS.eval.limit}; MRR counts within them)
  --json             Print one JSON object per dataset, one per line: {dataset, queries,
                     strategies, metrics, segments, indexMs, p50Ms, p95Ms}, and with --compare
                     also compare: {disabled, strategies, metrics, segments, p50Ms, p95Ms}
  --model ID         Embedding model id
  --model-path DIR   A local model folder in transformers.js layout (config.json, onnx/)
  --no-embedding     Lexical strategies only
  --no-pack          Without the shipped phrasing pack
  --learn-from FILE  Before evaluating, learn from FILE's labelled queries (engine.learn: each query
                     led to each of its relevant tools); learn from one split, evaluate on another
  --pack-loso        Leave-one-server-out pack: each query is evaluated with the pack entries of
                     its relevant tools' servers removed (an honest figure for the team's fixtures)
  -h, --help         Show this help`;

const ENRICH_HELP = `Usage: toolsearch enrich --tools FILE --endpoint URL --model NAME [options]

Asks an OpenAI-compatible chat endpoint (POST URL/chat/completions: Ollama, llama.cpp
server, vLLM or a hosted API) for ${ENRICH_DEFAULTS.minPhrasings}-${ENRICH_DEFAULTS.maxPhrasings} everyday requests per tool and writes the tools
back with them in "phrasings". Answers are cached by each tool's content hash in
$XDG_CACHE_HOME/toolsearch/enrich, so a second run asks only about new or changed tools.

Options:
  --tools FILE       JSON array of tools, an MCP tools/list result, or a dataset file
  --endpoint URL     Base URL of the API, e.g. http://127.0.0.1:11434/v1
  --model NAME       Model name the endpoint knows
  --out FILE         Write the tools here (default: stdout)
  --concurrency N    Requests at once, 1-${ENRICH_DEFAULTS.maxConcurrency} (default ${ENRICH_DEFAULTS.concurrency})
  --timeout MS       Time budget of one request (default ${ENRICH_DEFAULTS.timeoutMs})
  --retries N        Retries after a timeout, HTTP 429/5xx or malformed answer, 0-${ENRICH_DEFAULTS.maxRetries} (default ${ENRICH_DEFAULTS.retries})
  --no-cache         Neither read nor write the cache
  -h, --help         Show this help

The API key, if the endpoint needs one, is read from TOOLSEARCH_ENRICH_API_KEY, else
OPENAI_API_KEY; it is never a flag and never printed. Progress goes to stderr. Exit 1
when any tool failed (the others are written all the same).`;

const EMBEDDING_OPTIONS = {
  model: { type: 'string' },
  'model-path': { type: 'string' },
  'no-embedding': { type: 'boolean' },
  'no-pack': { type: 'boolean' },
} as const;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('missing command');
  if (command === '-h' || command === '--help' || command === 'help') {
    const topic = rest[0];
    write(topic === 'search' ? SEARCH_HELP : topic === 'eval' ? EVAL_HELP : MAIN_HELP);
    return;
  }
  if (command === '-v' || command === '--version') return write(VERSION);
  if (command === 'search') return runSearch(rest);
  if (command === 'eval') return runEval(rest);
  if (command === 'enrich') return runEnrich(rest);
  throw new UsageError(`unknown command "${command}"`);
}

async function runSearch(args: string[]): Promise<void> {
  const { values, positionals } = parse('search', args, {
    tools: { type: 'string' },
    limit: { type: 'string' },
    toolset: { type: 'string' },
    disable: { type: 'string' },
    json: { type: 'boolean' },
    explain: { type: 'boolean' },
    'no-cache': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    ...EMBEDDING_OPTIONS,
  });
  if (values.help) return write(SEARCH_HELP);
  const query = positionals.join(' ');
  if (query.trim() === '') throw new UsageError('missing <query>', 'search');
  const options: SearchOptions = {
    limit:
      integerOption('search', '--limit', values.limit, 1, DEFAULTS.search.maxLimit) ?? DEFAULTS.search.limit,
  };
  const disable = strategyList('search', '--disable', values.disable);
  if (disable.length > 0) options.disable = disable;
  if (values.toolset !== undefined) options.toolsets = list(values.toolset);
  if (values.explain) options.explain = true;

  const toolsPath = values.tools ?? bundledRegistryPath();
  // A one-shot search is short: show engine progress (model loading) on a terminal only.
  const onProgress = process.stderr.isTTY ? progressLine : undefined;
  const embedding = embeddingOption('search', values);
  // --no-embedding counts as switching the strategy off, so --disable-ing the rest is an error.
  const engineOptions = {
    embedding,
    ...(embedding === false ? { disable: ['embedding' as const] } : {}),
    onProgress,
  };
  const pack = !values['no-pack'];
  const cache = values['no-cache']
    ? undefined
    : indexCache(toolsPath, { embedding: embedding ?? 'default', pack });
  let engine = cache?.load(engineOptions);
  if (!engine) {
    const { tools } = readDataset(toolsPath);
    if (tools.length === 0) throw new UsageError(`--tools ${toolsPath}: the file lists no tools`, 'search');
    // The file was parsed just here and nothing else holds its objects: no copy needed.
    engine = new ToolSearch({ tools, pack, copyTools: false, ...engineOptions });
    await engine.ready();
    cache?.save(engine);
  }
  await engine.ready();
  clearProgress();
  const response = await engine.search(query, options);
  if (response.degraded) console.error(`toolsearch: note: results are lexical only (${response.degraded})`);
  if (values.json) return write(JSON.stringify(values.explain ? response : withoutTools(response), null, 2));
  write(formatSearch(response));
  if (response.explain) write(`\n${formatExplanation(response.explain)}`);
}

async function runEnrich(args: string[]): Promise<void> {
  const { values } = parse('enrich', args, {
    tools: { type: 'string' },
    endpoint: { type: 'string' },
    model: { type: 'string' },
    out: { type: 'string' },
    concurrency: { type: 'string' },
    timeout: { type: 'string' },
    retries: { type: 'string' },
    'no-cache': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return write(ENRICH_HELP);
  for (const flag of ['tools', 'endpoint', 'model'] as const)
    if (values[flag] === undefined) throw new UsageError(`--${flag} is required`, 'enrich');
  const { tools } = readDataset(values.tools as string);
  const concurrency = integerOption(
    'enrich',
    '--concurrency',
    values.concurrency,
    1,
    ENRICH_DEFAULTS.maxConcurrency,
  );
  const timeoutMs = integerOption('enrich', '--timeout', values.timeout, 1, ENRICH_DEFAULTS.maxTimeoutMs);
  const retries = integerOption('enrich', '--retries', values.retries, 0, ENRICH_DEFAULTS.maxRetries);
  const apiKey = process.env.TOOLSEARCH_ENRICH_API_KEY || process.env.OPENAI_API_KEY || undefined;
  const report = await enrichTools(tools, {
    endpoint: values.endpoint as string,
    model: values.model as string,
    ...(apiKey ? { apiKey } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(retries !== undefined ? { retries } : {}),
    ...(values['no-cache'] ? { cacheDir: false as const } : {}),
    onProgress: (p) =>
      progressLine({
        phase: `enrich (${p.cached} cached, ${p.failed} failed)`,
        done: p.done,
        total: p.total,
      }),
  });
  clearProgress();
  const enriched = tools.map((tool) => {
    const added = report.phrasings.get(tool.name);
    if (!added) return tool;
    const own = Array.isArray(tool.phrasings) ? (tool.phrasings as string[]) : [];
    const seen = new Set(own.map((p) => p.toLowerCase()));
    return { ...tool, phrasings: [...own, ...added.filter((p) => !seen.has(p.toLowerCase()))] };
  });
  const text = `${JSON.stringify(enriched, null, 2)}\n`;
  if (values.out) writeFileSync(values.out, text);
  else process.stdout.write(text);
  console.error(
    `toolsearch enrich: ${report.phrasings.size}/${tools.length} tools have phrasings (${report.cached} from the cache, ${report.requested} asked)`,
  );
  for (const failure of report.failed)
    console.error(`  ${failure.name}: ${failure.message} [${failure.code}]`);
  if (report.failed.length > 0) process.exitCode = 1;
}

async function runEval(args: string[]): Promise<void> {
  const { values } = parse('eval', args, {
    dataset: { type: 'string', multiple: true },
    disable: { type: 'string' },
    compare: { type: 'string' },
    'max-queries': { type: 'string' },
    'per-query': { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    'pack-loso': { type: 'boolean' },
    'learn-from': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    ...EMBEDDING_OPTIONS,
  });
  if (values.help) return write(EVAL_HELP);
  const loso = values['pack-loso'] === true;
  if (loso && values['no-pack'])
    throw new UsageError('--pack-loso cannot be combined with --no-pack', 'eval');
  if (loso && values.compare !== undefined) {
    throw new UsageError(
      '--pack-loso cannot be combined with --compare (one engine per server group)',
      'eval',
    );
  }
  if (values.dataset === undefined) throw new UsageError('missing --dataset FILE', 'eval');
  const maxQueries = integerOption(
    'eval',
    '--max-queries',
    values['max-queries'],
    1,
    Number.MAX_SAFE_INTEGER,
  );
  const limit =
    integerOption('eval', '--limit', values.limit, 10, DEFAULTS.search.maxLimit) ?? DEFAULTS.eval.limit;
  const disable = strategyList('eval', '--disable', values.disable);
  const compare =
    values.compare === undefined ? undefined : strategyList('eval', '--compare', values.compare);
  if (compare?.length === 0) throw new UsageError('--compare needs at least one strategy', 'eval');
  const embedding = embeddingOption('eval', values);
  const files = datasetFiles([values.dataset].flat());
  const learnFrom = values['learn-from'] === undefined ? undefined : learnedUses(values['learn-from']);
  const perQueryFile = values['per-query'];
  if (perQueryFile !== undefined && files.length > 1) {
    throw new UsageError(`--per-query writes one dataset's outcomes; got ${files.length} datasets`, 'eval');
  }

  for (const { file, dataset } of files) {
    // The engine gets the same disabled list as each query, so it does not build
    // indexes (or load a model) for strategies the run will never use.
    const pack = !values['no-pack'];
    // With --learn-from, each engine holds the tools and has learned from the file before
    // evaluation (index time is then not reported).
    const prepared = (engine: ToolSearch): ToolSearch => {
      if (learnFrom === undefined) return engine;
      engine.add(dataset.tools);
      const { learned, unknown } = learnUses(engine, learnFrom.uses);
      if (!loso)
        console.error(
          `learned ${learned} uses from ${learnFrom.file}; ${unknown} named tools not in ${file}`,
        );
      return engine;
    };
    const engine = prepared(new ToolSearch({ disable, embedding, pack, onProgress: progressLine }));
    const options = { limit, ...(maxQueries === undefined ? {} : { maxQueries }) };
    const onProgress = (label: string) => (p: { phase: 'index' | 'search'; done: number; total: number }) =>
      progressLine({ ...p, phase: p.phase === 'index' ? 'indexing tools' : label });
    const evaluateOptions = {
      ...options,
      disable,
      perQuery: perQueryFile !== undefined,
      onProgress: onProgress('queries'),
    };
    const result = loso
      ? await evaluateLeaveOneServerOut(
          (exclude) => prepared(new ToolSearch({ disable, embedding, pack: { exclude } })),
          dataset,
          (tool) => PhrasingPack.shipped().match(tool)?.server,
          evaluateOptions,
        )
      : await evaluate(engine, dataset, evaluateOptions);
    // The comparison reuses the index: only the strategies switched off per query differ.
    const comparison: Comparison | undefined = compare && {
      compare,
      baseline: await evaluate(engine, dataset, {
        ...options,
        disable: [...new Set([...disable, ...compare])],
        onProgress: onProgress(`queries without ${compare.join(', ')}`),
      }),
    };
    clearProgress();
    if (perQueryFile !== undefined) {
      writeFileSync(perQueryFile, `${JSON.stringify(result.perQuery ?? [], null, 1)}\n`);
      console.error(`wrote ${result.perQuery?.length ?? 0} per-query results to ${perQueryFile}`);
    }
    if (values.json) {
      write(JSON.stringify(evalJson(result, comparison)));
      continue;
    }
    if (files.length > 1) write(`== ${file}`);
    write(formatEval(result, dataset, comparison));
    if (files.length > 1) write('');
  }
}

/**
 * The datasets behind --dataset: files as given (an unreadable file, or one without
 * queries, is an error), directories expanded to their *.json files in name order, where
 * files without queries (tool lists) are skipped with a note.
 */
function datasetFiles(paths: string[]): { file: string; dataset: Dataset }[] {
  const found: { file: string; dataset: Dataset }[] = [];
  for (const path of paths) {
    if (existsSync(path) && statSync(path).isDirectory()) {
      const names = readdirSync(path)
        .filter((name) => name.endsWith('.json'))
        .sort();
      for (const name of names) {
        const file = join(path, name);
        const dataset = readDataset(file);
        if (dataset.queries.length > 0) found.push({ file, dataset });
        else console.error(`toolsearch: note: skipping ${file}: no queries (a tool list)`);
      }
      if (names.length === 0)
        throw new UsageError(`--dataset ${path}: no *.json files in this directory`, 'eval');
      continue;
    }
    const dataset = readDataset(path);
    if (dataset.queries.length === 0) {
      throw new ToolSearchError('INVALID_DATASET', `${path}: has no queries; eval needs labelled queries`);
    }
    found.push({ file: path, dataset });
  }
  if (found.length === 0) throw new UsageError('--dataset: none of the files has queries', 'eval');
  return found;
}

/** The (query, tool) uses a labelled dataset stands for: each query led to each of its relevant tools. */
function learnedUses(file: string): { file: string; uses: ToolUse[] } {
  const dataset = readDataset(file);
  if (dataset.queries.length === 0) {
    throw new ToolSearchError(
      'INVALID_DATASET',
      `${file}: has no queries; --learn-from needs labelled queries`,
    );
  }
  return { file, uses: usesOfQueries(dataset.queries) };
}

interface Comparison {
  compare: StrategyName[];
  baseline: EvaluationResult;
}

function evalJson(result: EvaluationResult, comparison?: Comparison) {
  const { dataset, queries, strategies, metrics, segments, indexMs, p50Ms, p95Ms } = result;
  const report = { dataset, queries, strategies, metrics, segments, indexMs, p50Ms, p95Ms };
  if (!comparison) return report;
  const { baseline } = comparison;
  return {
    ...report,
    compare: {
      disabled: comparison.compare,
      strategies: baseline.strategies,
      metrics: baseline.metrics,
      segments: baseline.segments,
      p50Ms: baseline.p50Ms,
      p95Ms: baseline.p95Ms,
    },
  };
}

function formatEval(result: EvaluationResult, dataset: Dataset, comparison?: Comparison): string {
  const rows = (r: EvaluationResult): [string, MetricSummary][] => [
    ['all', r.metrics],
    ...Object.entries(r.segments),
  ];
  const timing = (r: EvaluationResult) => `search p50 ${r.p50Ms.toFixed(2)} ms, p95 ${r.p95Ms.toFixed(2)} ms`;
  const lines = [
    `dataset ${result.dataset}: ${result.queries} queries over ${dataset.tools.length} tools`,
    `strategies: ${result.strategies.join(', ')}`,
    '',
    formatMetricTable(rows(result)),
    '',
    `index ${result.indexMs === null ? '-' : `${result.indexMs.toFixed(0)} ms`}, ${timing(result)}`,
  ];
  if (comparison) {
    const { compare, baseline } = comparison;
    const without = `without ${compare.join(', ')}`;
    lines.push(
      '',
      `${without} (strategies: ${baseline.strategies.join(', ')}):`,
      '',
      formatMetricTable(rows(baseline)),
      '',
      timing(baseline),
      '',
      `difference, all strategies minus ${without}:`,
      '',
      formatMetricTable(rows(result), rows(baseline)),
    );
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- options

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

function parse<T extends OptionSpec>(command: string, args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: command === 'search', strict: true });
  } catch (error) {
    // parseArgs throws TypeErrors with ERR_PARSE_ARGS_* codes for unknown or malformed options.
    throw new UsageError((error as Error).message, command);
  }
}

function integerOption(command: string, flag: string, raw: string | undefined, min: number, max: number) {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}-${max}`;
    throw new UsageError(`${flag} must be an integer ${range}, got "${raw}"`, command);
  }
  return value;
}

function list(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function strategyList(command: string, flag: string, raw: string | undefined): StrategyName[] {
  if (raw === undefined) return [];
  const names = list(raw);
  const unknown = names.filter((name) => !(STRATEGY_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `${flag}: unknown strategy ${unknown.map((n) => `"${n}"`).join(', ')}; known: ${STRATEGY_NAMES.join(', ')}`,
      command,
    );
  }
  return names as StrategyName[];
}

function embeddingOption(
  command: string,
  values: {
    model?: string | undefined;
    'model-path'?: string | undefined;
    'no-embedding'?: boolean | undefined;
  },
): { model?: string; modelPath?: string } | false | undefined {
  const model = values.model;
  const modelPath = values['model-path'];
  if (values['no-embedding']) {
    if (model !== undefined || modelPath !== undefined) {
      throw new UsageError('--no-embedding cannot be combined with --model or --model-path', command);
    }
    return false;
  }
  if (model === undefined && modelPath === undefined) return undefined;
  return { ...(model === undefined ? {} : { model }), ...(modelPath === undefined ? {} : { modelPath }) };
}

/**
 * The index cache of one tools file: a search over the same file with the same settings
 * loads the index built the first time instead of reading, analysing and embedding every
 * tool again. A file whose tools come from another (`toolsFrom`) is not cached: its key
 * would not see that file change. Undefined when the file cannot be read (readDataset
 * then reports it as for an uncached search).
 */
function indexCache(toolsPath: string, settings: unknown) {
  let content: Uint8Array;
  try {
    content = readFileSync(toolsPath);
  } catch {
    return undefined;
  }
  if (Buffer.from(content.buffer, content.byteOffset, content.length).includes('"toolsFrom"'))
    return undefined;
  const dir = defaultIndexCacheDir();
  const key = indexCacheKey(content, settings);
  return {
    load(options: Omit<ToolSearchOptions, 'tools' | 'pack'>): ToolSearch | undefined {
      const bytes = readCachedIndex(dir, key);
      if (!bytes) return undefined;
      try {
        return ToolSearch.load(bytes, options);
      } catch (error) {
        if (!(error instanceof ToolSearchError) || error.code !== 'INVALID_INDEX') throw error;
        console.error(
          `toolsearch: note: the cached index was not usable, building it again (${error.message})`,
        );
        return undefined;
      }
    },
    save(engine: ToolSearch): void {
      try {
        writeCachedIndex(dir, key, engine.toBytes());
      } catch (error) {
        // A read-only or full disk costs speed next time, not this answer.
        console.error(`toolsearch: note: index cache not written (${dir}): ${(error as Error).message}`);
      }
    },
  };
}

// ---------------------------------------------------------------- output

function withoutTools(response: SearchResponse) {
  return { ...response, results: response.results.map(({ tool: _tool, ...rest }) => rest) };
}

function formatSearch(response: SearchResponse): string {
  if (response.results.length === 0) return `No tools match ${quoteQuery(response.query)}.`;
  const rows = response.results.map((r, i) => [
    String(i + 1),
    r.name,
    r.toolset,
    r.score.toFixed(4),
    r.matchedBy.map((m) => m.strategy).join(','),
    r.summary,
  ]);
  const lines = [
    table(['#', 'name', 'toolset', 'score', 'matched by', 'summary'], rows, [true, false, false, true]),
  ];
  if (response.toolsets.length > 0) {
    const suggestions = response.toolsets
      .slice(0, 5)
      .map((t) => `${t.toolset} (${t.hits} of ${countOf(t.toolCount, 'tool')}, ${t.score.toFixed(3)})`);
    lines.push('', `Top toolsets: ${suggestions.join('; ')}`);
  }
  return lines.join('\n');
}

/** --explain as text: how the query was read, then each strategy's own top 5 before fusion. */
function formatExplanation(explain: SearchExplanation): string {
  const { shape, terms, expansions } = explain.analysis;
  const lines = [
    `Query analysis: shape ${shape}; terms ${terms.join(' ') || '(none)'}${
      expansions.length > 0 ? `; synonym expansions ${expansions.join(' ')}` : ''
    }`,
    'Per strategy (top 5 before fusion):',
  ];
  for (const [strategy, hits] of Object.entries(explain.perStrategy)) {
    const top = (hits ?? []).slice(0, 5).map((h) => `${h.rank}. ${h.name} (${h.score.toFixed(3)})`);
    lines.push(`  ${strategy}: ${top.length > 0 ? top.join(', ') : 'no hits'}`);
  }
  return lines.join('\n');
}

const METRIC_COLUMNS = ['recall@1', 'recall@3', 'recall@5', 'recall@10', 'hit@5', 'mrr', 'ndcg@10'] as const;

/** Metrics per segment; with `minus`, the signed difference from those rows instead. */
function formatMetricTable(rows: [string, MetricSummary][], minus?: [string, MetricSummary][]): string {
  const withToolsets = rows.some(([, m]) => m.toolsetAccuracy !== undefined);
  const header = ['segment', 'queries', ...METRIC_COLUMNS, ...(withToolsets ? ['toolset acc'] : [])];
  const cell = (value: number | undefined, base: number | undefined) => {
    if (value === undefined) return '-';
    if (minus === undefined) return value.toFixed(3);
    if (base === undefined) return '-';
    const delta = value - base;
    // Rounded first, so a difference below 0.0005 prints as ±0.000, never −0.000.
    const rounded = Number(delta.toFixed(3));
    return rounded === 0 ? '±0.000' : `${rounded > 0 ? '+' : '−'}${Math.abs(rounded).toFixed(3)}`;
  };
  const body = rows.map(([name, m], i) => {
    const base = minus?.[i]?.[1];
    return [
      name,
      String(m.queries),
      ...METRIC_COLUMNS.map((key) => cell(m[key], base?.[key])),
      ...(withToolsets ? [cell(m.toolsetAccuracy, base?.toolsetAccuracy)] : []),
    ];
  });
  return table(header, body, [false, ...header.slice(1).map(() => true)]);
}

/** Space-aligned columns; `rightAlign[i]` right-aligns column i (numbers). */
function table(header: string[], rows: string[][], rightAlign: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (rightAlign[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

function write(text: string): void {
  process.stdout.write(`${text}\n`);
}

// ---------------------------------------------------------------- progress

let progressShown = false;
let lastProgress = '';

/** Progress on stderr: one rewritten line on a terminal, a line per 10% step otherwise. */
function progressLine(p: { phase: string; done: number; total: number }): void {
  if (process.stderr.isTTY) {
    // A 20-cell bar: embedding 10k tools takes seconds, a bare counter reads as a hang.
    const filled = p.total === 0 ? 20 : Math.round((p.done / p.total) * 20);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(20 - filled)}`;
    process.stderr.write(`\r${p.phase} [${bar}] ${p.done}/${p.total}\u001b[K`);
    progressShown = true;
    return;
  }
  const step = `${p.phase}:${p.total === 0 ? 10 : Math.floor((p.done / p.total) * 10)}`;
  if (step !== lastProgress) console.error(`${p.phase}: ${p.done}/${p.total}`);
  lastProgress = step;
}

function clearProgress(): void {
  if (progressShown) process.stderr.write('\r\u001b[K');
  progressShown = false;
}

const USAGE_CODES = new Set<string>(['UNKNOWN_TOOLSET', 'NO_STRATEGIES', 'EMPTY_INDEX']);

main(process.argv.slice(2)).catch((error: unknown) => {
  clearProgress();
  if (error instanceof UsageError) {
    const help = error.command === undefined ? 'toolsearch --help' : `toolsearch ${error.command} --help`;
    console.error(`toolsearch: ${error.message}\nRun "${help}" for usage.`);
    process.exitCode = 2;
    return;
  }
  if (error instanceof ToolSearchError) {
    console.error(error.message);
    // Options that select nothing (an unknown toolset, every strategy off, no tools) are
    // usage mistakes: the message lists the valid choices.
    if (USAGE_CODES.has(error.code)) {
      process.exitCode = 2;
      return;
    }
  } else
    console.error(`toolsearch: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
