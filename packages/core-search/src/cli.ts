#!/usr/bin/env node
/**
 * The `toolsearch` command line: search a tool list, or evaluate the engine on
 * a labelled dataset. Results go to stdout, progress and errors to stderr.
 * Exit codes: 0 ok, 1 runtime error (unreadable file, engine failure), 2 usage error.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readDataset } from './dataset.js';
import { ToolSearch } from './engine.js';
import { ToolSearchError } from './errors.js';
import { evaluate } from './eval/evaluate.js';
import type { MetricSummary } from './eval/metrics.js';
import { type SearchOptions, type SearchResponse, STRATEGY_NAMES, type StrategyName } from './types.js';

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

Run "toolsearch <command> --help" for the options of a command.`;

const SEARCH_HELP = `Usage: toolsearch search <query> [options]

Options:
  --tools FILE       JSON array of tools, an MCP tools/list result, or a dataset file
                     (default: the bundled registry, 480 real tools of 27 MCP servers)
  --limit N          Number of results, 1-1000 (default 10)
  --toolset NAME     Only tools of this toolset (comma-separate several)
  --disable LIST     Strategies to switch off, comma-separated: ${STRATEGY_NAMES.join(', ')}
  --json             Print the SearchResponse as JSON (tool definitions only with --explain)
  --explain          Include query analysis and each strategy's own ranking
  --model ID         Embedding model id
  --model-path DIR   A local model folder in transformers.js layout (config.json, onnx/)
  --no-embedding     Lexical strategies only (fast start, no model)
  -h, --help         Show this help`;

const EVAL_HELP = `Usage: toolsearch eval --dataset FILE [options]

Options:
  --dataset FILE     Dataset file: {name, tools | toolsFrom, queries: [{id, query, relevant, segment?}]}
  --disable LIST     Strategies to switch off, comma-separated: ${STRATEGY_NAMES.join(', ')}
  --max-queries N    Evaluate a deterministic subsample of N queries (chosen by a hash of the id)
  --per-query FILE   Also write each query's metrics, top 10 names and latency to FILE (JSON)
  --limit N          Results fetched per query, 10-1000 (default 20; MRR counts within them)
  --json             Print one JSON object {dataset, queries, strategies, metrics, segments,
                     indexMs, p50Ms, p95Ms}
  --model ID         Embedding model id
  --model-path DIR   A local model folder in transformers.js layout (config.json, onnx/)
  --no-embedding     Lexical strategies only
  -h, --help         Show this help`;

const EMBEDDING_OPTIONS = {
  model: { type: 'string' },
  'model-path': { type: 'string' },
  'no-embedding': { type: 'boolean' },
} as const;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('missing command');
  if (command === '-h' || command === '--help' || command === 'help') {
    const topic = rest[0];
    write(topic === 'search' ? SEARCH_HELP : topic === 'eval' ? EVAL_HELP : MAIN_HELP);
    return;
  }
  if (command === 'search') return runSearch(rest);
  if (command === 'eval') return runEval(rest);
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
    help: { type: 'boolean', short: 'h' },
    ...EMBEDDING_OPTIONS,
  });
  if (values.help) return write(SEARCH_HELP);
  const query = positionals.join(' ');
  if (query.trim() === '') throw new UsageError('missing <query>', 'search');
  const options: SearchOptions = { limit: integerOption('search', '--limit', values.limit, 1, 1000) ?? 10 };
  const disable = strategyList('search', values.disable);
  if (disable.length > 0) options.disable = disable;
  if (values.toolset !== undefined) options.toolsets = list(values.toolset);
  if (values.explain) options.explain = true;

  const toolsPath = values.tools ?? defaultRegistryPath();
  const { tools } = readDataset(toolsPath);
  // A one-shot search is short: show engine progress (model loading) on a terminal only.
  const onProgress = process.stderr.isTTY ? progressLine : undefined;
  const engine = new ToolSearch({ tools, embedding: embeddingOption('search', values), onProgress });
  await engine.ready();
  clearProgress();
  const response = await engine.search(query, options);
  if (response.degraded) console.error(`toolsearch: note: results are lexical only (${response.degraded})`);
  if (values.json) return write(JSON.stringify(values.explain ? response : withoutTools(response), null, 2));
  write(formatSearch(response));
}

async function runEval(args: string[]): Promise<void> {
  const { values } = parse('eval', args, {
    dataset: { type: 'string' },
    disable: { type: 'string' },
    'max-queries': { type: 'string' },
    'per-query': { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    ...EMBEDDING_OPTIONS,
  });
  if (values.help) return write(EVAL_HELP);
  if (values.dataset === undefined) throw new UsageError('missing --dataset FILE', 'eval');
  const maxQueries = integerOption(
    'eval',
    '--max-queries',
    values['max-queries'],
    1,
    Number.MAX_SAFE_INTEGER,
  );
  const limit = integerOption('eval', '--limit', values.limit, 10, 1000) ?? 20;
  const disable = strategyList('eval', values.disable);
  const embedding = embeddingOption('eval', values);

  const dataset = readDataset(values.dataset);
  if (dataset.queries.length === 0) {
    throw new ToolSearchError(
      'INVALID_DATASET',
      `${values.dataset}: has no queries; eval needs labelled queries`,
    );
  }
  // The engine gets the same disabled list as each query, so it does not build
  // indexes (or load a model) for strategies the run will never use.
  const engine = new ToolSearch({ disable, embedding, onProgress: progressLine });
  const result = await evaluate(engine, dataset, {
    disable,
    limit,
    ...(maxQueries === undefined ? {} : { maxQueries }),
    perQuery: values['per-query'] !== undefined,
    onProgress: (p) => progressLine({ ...p, phase: p.phase === 'index' ? 'indexing tools' : 'queries' }),
  });
  clearProgress();
  const perQueryFile = values['per-query'];
  if (perQueryFile !== undefined) {
    writeFileSync(perQueryFile, `${JSON.stringify(result.perQuery ?? [], null, 1)}\n`);
    console.error(`wrote ${result.perQuery?.length ?? 0} per-query results to ${perQueryFile}`);
  }
  if (values.json) {
    const { dataset: name, queries, strategies, metrics, segments, indexMs, p50Ms, p95Ms } = result;
    return write(
      JSON.stringify({ dataset: name, queries, strategies, metrics, segments, indexMs, p50Ms, p95Ms }),
    );
  }
  const rows: [string, MetricSummary][] = [['all', result.metrics], ...Object.entries(result.segments)];
  write(
    [
      `dataset ${result.dataset}: ${result.queries} queries over ${dataset.tools.length} tools`,
      `strategies: ${result.strategies.join(', ')}`,
      '',
      formatMetricTable(rows),
      '',
      `index ${result.indexMs === null ? '-' : `${result.indexMs.toFixed(0)} ms`}, ` +
        `search p50 ${result.p50Ms.toFixed(2)} ms, p95 ${result.p95Ms.toFixed(2)} ms`,
    ].join('\n'),
  );
}

// ---------------------------------------------------------------- options

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

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

function strategyList(command: string, raw: string | undefined): StrategyName[] {
  if (raw === undefined) return [];
  const names = list(raw);
  const unknown = names.filter((name) => !(STRATEGY_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `--disable: unknown strategy ${unknown.map((n) => `"${n}"`).join(', ')}; known: ${STRATEGY_NAMES.join(', ')}`,
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
 * The bundled registry: in the repository, fixtures/registry/tools.json; in the
 * published package, registry/tools.json (copied there by the prepack script).
 * Paths are relative to this file, which is src/cli.ts or dist/cli.js.
 */
function defaultRegistryPath(): string {
  const candidates = ['../../../fixtures/registry/tools.json', '../registry/tools.json'].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  );
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) {
    throw new ToolSearchError(
      'INVALID_DATASET',
      `no bundled registry found (looked at ${candidates.join(', ')}); pass --tools FILE`,
    );
  }
  return found;
}

// ---------------------------------------------------------------- output

function withoutTools(response: SearchResponse) {
  return { ...response, results: response.results.map(({ tool: _tool, ...rest }) => rest) };
}

function formatSearch(response: SearchResponse): string {
  if (response.results.length === 0) return `No tools match "${response.query}".`;
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
      .map((t) => `${t.toolset} (${t.hits} of ${t.toolCount} tools, ${t.score.toFixed(3)})`);
    lines.push('', `Top toolsets: ${suggestions.join('; ')}`);
  }
  return lines.join('\n');
}

const METRIC_COLUMNS = ['recall@1', 'recall@3', 'recall@5', 'recall@10', 'hit@5', 'mrr', 'ndcg@10'] as const;

function formatMetricTable(rows: [string, MetricSummary][]): string {
  const withToolsets = rows.some(([, m]) => m.toolsetAccuracy !== undefined);
  const header = ['segment', 'queries', ...METRIC_COLUMNS, ...(withToolsets ? ['toolset acc'] : [])];
  const body = rows.map(([name, m]) => [
    name,
    String(m.queries),
    ...METRIC_COLUMNS.map((key) => m[key].toFixed(3)),
    ...(withToolsets ? [m.toolsetAccuracy === undefined ? '-' : m.toolsetAccuracy.toFixed(3)] : []),
  ]);
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

main(process.argv.slice(2)).catch((error: unknown) => {
  clearProgress();
  if (error instanceof UsageError) {
    const help = error.command === undefined ? 'toolsearch --help' : `toolsearch ${error.command} --help`;
    console.error(`toolsearch: ${error.message}\nRun "${help}" for usage.`);
    process.exitCode = 2;
    return;
  }
  if (error instanceof ToolSearchError) console.error(error.message);
  else
    console.error(`toolsearch: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
