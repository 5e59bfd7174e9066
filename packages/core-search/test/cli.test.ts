/**
 * The CLI, spawned for real (node + tsx, from the repository root) so exit
 * codes, stdout/stderr separation and argument parsing are what a user gets.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const CLI = join(REPO, 'packages/core-search/src/cli.ts');
// Present in this repository's CI and dev machines, not in a user's checkout.
const SHARED_MODEL = join(REPO, '../shared/models/glove-100d-sif-pc-40k');

/** Spawn the CLI; tests run concurrently, as each one mostly waits on node + tsx start-up. */
function run(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runWith({}, ...args);
}

/** The CLI with extra environment variables (an index cache of the test's own). */
function runWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=toolsearch-source', CLI, ...args],
      {
        cwd: REPO,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 60_000,
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

const tools = [
  { name: 'weather__get_forecast', description: 'Get the weather forecast for a city', category: 'weather' },
  {
    name: 'git__commit',
    description: 'Record staged changes to the git repository with a message',
    category: 'git',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  },
  { name: 'fs__read_file', description: 'Read the contents of a file from disk', category: 'fs' },
  { name: 'mail__send_email', description: 'Send an email message to a recipient', category: 'mail' },
];

let dir = '';
let toolsFile = '';
let datasetFile = '';
/** Two servers of the bundled registry, asked for in words from the shipped pack (a mechanism check). */
let packDatasetFile = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsearch-cli-'));
  toolsFile = join(dir, 'tools.json');
  writeFileSync(toolsFile, JSON.stringify(tools));
  const registry = JSON.parse(readFileSync(join(REPO, 'fixtures/registry/tools.json'), 'utf8')).tools as {
    name: string;
    meta: { server: string; toolName: string };
  }[];
  const servers = ['server-filesystem', 'server-memory'];
  const packTools = registry.filter((tool) => servers.includes(tool.meta.server));
  const queries = servers.map((server, i) => {
    const pack = JSON.parse(readFileSync(join(REPO, `packages/core-search/pack/${server}.json`), 'utf8'));
    const [toolName, phrasings] = Object.entries(pack.tools as Record<string, string[]>)[0]!;
    const tool = packTools.find((t) => t.meta.server === server && t.meta.toolName === toolName)!;
    return { id: `p${i}`, query: phrasings[0], relevant: [tool.name] };
  });
  packDatasetFile = join(dir, 'pack-dataset.json');
  writeFileSync(packDatasetFile, JSON.stringify({ name: 'pack', tools: packTools, queries }));
  datasetFile = join(dir, 'dataset.json');
  writeFileSync(
    datasetFile,
    JSON.stringify({
      name: 'tiny',
      toolsFrom: 'tools.json',
      queries: [
        {
          id: 'w',
          query: 'weather forecast for Paris',
          relevant: ['weather__get_forecast'],
          segment: 'new',
          relevantToolsets: ['weather'],
        },
        { id: 'g', query: 'commit my staged changes to git', relevant: ['git__commit'], segment: 'power' },
        { id: 'f', query: 'read the contents of a file', relevant: ['fs__read_file'], segment: 'new' },
        { id: 'm', query: 'send an email to Bob', relevant: ['mail__send_email'], segment: 'power' },
      ],
    }),
  );
});

describe.concurrent('toolsearch CLI: usage', () => {
  it('prints help with exit 0', async () => {
    const main = await run('--help');
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/Usage: toolsearch <command>/);
    expect((await run('search', '--help')).stdout).toMatch(/--tools FILE/);
    expect((await run('eval', '--help')).stdout).toMatch(/--dataset FILE/);
  });

  it.each([
    [[], /missing command/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['search'], /missing <query>/],
    [['search', 'x', '--limit', 'ten'], /--limit must be an integer 1-1000/],
    [['search', 'x', '--limit', '0'], /--limit must be an integer/],
    [['search', 'x', '--disable', 'keyword,telepathy'], /unknown strategy "telepathy"/],
    [['search', 'x', '--colour'], /Unknown option '--colour'/],
    [['search', 'x', '--no-embedding', '--model', 'm'], /cannot be combined/],
    [['eval'], /missing --dataset FILE/],
    [['eval', '--dataset', 'd.json', '--max-queries', '-3'], /--max-queries/],
    [['eval', '--dataset', 'd.json', '--pack-loso', '--no-pack'], /cannot be combined with --no-pack/],
    [
      ['eval', '--dataset', 'd.json', '--pack-loso', '--compare', 'fuzzy'],
      /cannot be combined with --compare/,
    ],
  ])('exits 2 with a helpful message for %j', async (args, message) => {
    const result = await run(...(args as string[]));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/--help" for usage/);
    expect(result.stdout).toBe('');
  });

  it.each([
    [['--toolset', 'wether'], /^toolsearch: unknown toolset "wether"; known: fs, git, mail, weather\n$/],
    [
      ['--disable', 'keyword,tfidf,synonyms,fuzzy,prefix,ngram,category,exact'],
      /^toolsearch: this search switches off every strategy; enable at least one of keyword, tfidf, /,
    ],
  ])('exits 2 when %j selects nothing, listing the valid choices', async (extra, message) => {
    const result = await run('search', 'forecast', '--tools', toolsFile, '--no-embedding', ...extra);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('caches the built index by the tools file, and answers the same from it', async () => {
    const cacheHome = mkdtempSync(join(tmpdir(), 'toolsearch-cli-cache-'));
    const indexes = join(cacheHome, 'toolsearch', 'indexes');
    const file = join(dir, 'cached-tools.json');
    writeFileSync(file, JSON.stringify(tools));
    const search = (...extra: string[]) =>
      runWith(
        { XDG_CACHE_HOME: cacheHome },
        'search',
        'send an email',
        '--tools',
        file,
        '--no-embedding',
        ...extra,
      );
    const first = await search();
    expect(first.code).toBe(0);
    expect(readdirSync(indexes)).toHaveLength(1);
    const second = await search();
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toBe('');
    // Another file content is another key: the new tool is found, not a stale index.
    writeFileSync(
      file,
      JSON.stringify([...tools, { name: 'fax__send_fax', description: 'Send an email as a fax' }]),
    );
    expect((await search()).stdout).toContain('fax__send_fax');
    expect(readdirSync(indexes)).toHaveLength(2);
    // A damaged entry is rebuilt (and said so), never a wrong answer.
    for (const name of readdirSync(indexes)) writeFileSync(join(indexes, name), 'TSINDEX\0garbage');
    const repaired = await search();
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toContain('fax__send_fax');
    expect(repaired.stderr).toMatch(/cached index was not usable/);
    // --no-cache neither reads nor writes it.
    writeFileSync(file, JSON.stringify(tools));
    await search('--no-cache');
    expect(readdirSync(indexes)).toHaveLength(2);
  });

  it('exits 2 on a tools file that lists no tools', async () => {
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '[]');
    const result = await run('search', 'forecast', '--tools', empty, '--no-embedding');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--tools ${empty}: the file lists no tools`);
  });

  it('prints the version of package.json with --version', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO, 'packages/core-search/package.json'), 'utf8'));
    for (const flag of ['--version', '-v']) {
      const result = await run(flag);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
  });

  it('exits 1 when the tools file cannot be read', async () => {
    const result = await run('search', 'x', '--tools', join(dir, 'nope.json'), '--no-embedding');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^toolsearch: .*nope\.json: cannot be read/);
  });

  it('exits 1 when the dataset has no queries', async () => {
    const result = await run('eval', '--dataset', toolsFile, '--no-embedding');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/has no queries/);
  });
});

describe.concurrent('toolsearch search', () => {
  it('prints the SearchResponse as JSON without tool objects', async () => {
    const result = await run(
      'search',
      'weather forecast',
      '--tools',
      toolsFile,
      '--no-embedding',
      '--json',
      '--limit',
      '2',
    );
    expect(result.code).toBe(0);
    const response = JSON.parse(result.stdout);
    expect(response.query).toBe('weather forecast');
    expect(response.results.length).toBeLessThanOrEqual(2);
    expect(response.results[0].name).toBe('weather__get_forecast');
    expect(response.results[0].toolset).toBe('weather');
    expect(response.results[0]).not.toHaveProperty('tool');
    expect(response.strategies).not.toContain('embedding');
    expect(response.toolsets[0].toolset).toBe('weather');
    expect(result.stderr).toBe(''); // no progress noise when stderr is not a terminal
  });

  it('includes tools and explanation with --explain, and honours --toolset and --disable', async () => {
    const result = await run(
      'search',
      'commit changes',
      '--tools',
      toolsFile,
      '--no-embedding',
      '--json',
      '--explain',
      '--toolset',
      'git',
      '--disable',
      'fuzzy',
    );
    expect(result.code).toBe(0);
    const response = JSON.parse(result.stdout);
    expect(response.results.map((r: { toolset: string }) => r.toolset)).toEqual(['git']);
    expect(response.results[0].tool.inputSchema.properties.message.type).toBe('string');
    expect(response.explain.analysis.terms.length).toBeGreaterThan(0);
    expect(response.strategies).not.toContain('fuzzy');
  });

  it('prints a ranked table and toolset suggestions', async () => {
    const result = await run('search', 'send email', '--tools', toolsFile, '--no-embedding');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^#\s+name\s+toolset\s+score\s+matched by\s+summary$/);
    expect(lines[1]).toMatch(/^1\s+mail__send_email\s+mail\s+\d\.\d{4}\s+\S+\s+Send an email/);
    expect(result.stdout).toMatch(/Top toolsets: mail \(1 of 1 tool, /);
  });

  it('prints the explanation with --explain as text too', async () => {
    const result = await run('search', 'send email', '--tools', toolsFile, '--no-embedding', '--explain');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Query analysis: shape keywords; terms send email/m);
    expect(result.stdout).toMatch(/^ {2}keyword: 1\. mail__send_email \(\d+\.\d{3}\)/m);
  });

  it('quotes at most the first 80 characters of a query', async () => {
    const result = await run('search', 'q'.repeat(5000), '--tools', toolsFile, '--no-embedding');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`No tools match "${'q'.repeat(80)}…".\n`);
  });

  it('searches the bundled registry by default', async () => {
    const result = await run('search', 'take a screenshot of the page', '--no-embedding', '--json');
    expect(result.code).toBe(0);
    const response = JSON.parse(result.stdout);
    expect(response.results).toHaveLength(10);
    expect(response.results.some((r: { name: string }) => /screenshot/i.test(r.name))).toBe(true);
  });
});

describe.concurrent('toolsearch eval', () => {
  it("applies the pack by default, not with --no-pack; --pack-loso leaves each query's servers out", async () => {
    const common = ['eval', '--dataset', packDatasetFile, '--no-embedding', '--json'];
    const [pack, none, loso] = await Promise.all([
      run(...common),
      run(...common, '--no-pack'),
      run(...common, '--pack-loso'),
    ]);
    for (const result of [pack, none, loso]) expect(result.code).toBe(0);
    const [withPack, without, leaveOut] = [pack, none, loso].map((r) => JSON.parse(r.stdout).metrics);
    expect(withPack.mrr).toBeGreaterThan(without.mrr);
    expect(leaveOut.mrr).toBeLessThan(withPack.mrr);
    expect(leaveOut.queries).toBe(withPack.queries);
  });

  it('--learn-from learns the labelled queries of a file before evaluating', async () => {
    const learnFile = join(dir, 'learn.json');
    writeFileSync(
      learnFile,
      JSON.stringify({
        name: 'learn',
        toolsFrom: 'tools.json',
        queries: [{ id: 'l', query: 'ping the grown-ups about saturday', relevant: ['mail__send_email'] }],
      }),
    );
    const common = ['eval', '--dataset', learnFile, '--no-embedding', '--json', '--no-pack'];
    const [plain, learned] = await Promise.all([run(...common), run(...common, '--learn-from', learnFile)]);
    expect(learned.code).toBe(0);
    expect(learned.stderr).toMatch(/learned 1 uses from/);
    expect(JSON.parse(learned.stdout).metrics['recall@1']).toBe(1);
    expect(JSON.parse(plain.stdout).metrics['recall@1']).toBe(0);
  });

  it('prints exactly one JSON object with the documented keys', async () => {
    const result = await run('eval', '--dataset', datasetFile, '--no-embedding', '--json');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(Object.keys(report)).toEqual([
      'dataset',
      'queries',
      'strategies',
      'metrics',
      'segments',
      'indexMs',
      'p50Ms',
      'p95Ms',
    ]);
    expect(report.dataset).toBe('tiny');
    expect(report.queries).toBe(4);
    expect(report.strategies).not.toContain('embedding');
    expect(report.metrics).toMatchObject({ queries: 4, 'recall@1': 1, 'hit@5': 1, mrr: 1, 'ndcg@10': 1 });
    expect(report.metrics.toolsetAccuracy).toBe(1);
    expect(Object.keys(report.segments)).toEqual(['new', 'power']);
    expect(report.segments.new.queries).toBe(2);
    expect(report.indexMs).toBeGreaterThan(0);
    expect(report.p95Ms).toBeGreaterThanOrEqual(report.p50Ms);
    expect(result.stderr).toMatch(/queries: 4\/4/);
  });

  it('subsamples with --max-queries and prints an aligned table', async () => {
    const result = await run('eval', '--dataset', datasetFile, '--no-embedding', '--max-queries', '2');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/dataset tiny: 2 queries over 4 tools/);
    const header = result.stdout.split('\n').find((line) => line.startsWith('segment'));
    expect(header).toMatch(
      /segment\s+queries\s+recall@1\s+recall@3\s+recall@5\s+recall@10\s+hit@5\s+mrr\s+ndcg@10/,
    );
    expect(result.stdout).toMatch(/^all\s+2\s+1\.000/m);
    expect(result.stdout).toMatch(/search p50 \d+\.\d\d ms, p95/);
  });

  it('writes per-query outcomes with --per-query', async () => {
    const file = join(dir, 'per-query.json');
    const result = await run(
      'eval',
      '--dataset',
      datasetFile,
      '--no-embedding',
      '--json',
      '--per-query',
      file,
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).queries).toBe(4);
    const outcomes = JSON.parse(readFileSync(file, 'utf8'));
    expect(outcomes.map((o: { id: string }) => o.id)).toEqual(['w', 'g', 'f', 'm']);
    expect(outcomes[1]).toMatchObject({ relevant: ['git__commit'], segment: 'power', metrics: { mrr: 1 } });
    expect(outcomes[1].top[0]).toBe('git__commit');
  });
});

describe.concurrent('toolsearch eval: several datasets and --compare', () => {
  /** A directory with two datasets and one tool list (which has no queries). */
  function datasetDir(): string {
    const path = mkdtempSync(join(tmpdir(), 'toolsearch-cli-dir-'));
    writeFileSync(join(path, 'a-tools.json'), JSON.stringify(tools));
    const queries = (ids: string[]) =>
      JSON.parse(readFileSync(datasetFile, 'utf8')).queries.filter((q: { id: string }) => ids.includes(q.id));
    writeFileSync(
      join(path, 'b-first.json'),
      JSON.stringify({ name: 'first', toolsFrom: 'a-tools.json', queries: queries(['w', 'g']) }),
    );
    writeFileSync(
      join(path, 'c-second.json'),
      JSON.stringify({ name: 'second', toolsFrom: 'a-tools.json', queries: queries(['f', 'm', 'w']) }),
    );
    return path;
  }

  it('evaluates every dataset of a directory, one JSON line each, and skips tool lists with a note', async () => {
    const result = await run('eval', '--dataset', datasetDir(), '--no-embedding', '--json');
    expect(result.code).toBe(0);
    const reports = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(reports.map((r: { dataset: string; queries: number }) => [r.dataset, r.queries])).toEqual([
      ['first', 2],
      ['second', 3],
    ]);
    expect(result.stderr).toMatch(/skipping .*a-tools\.json: no queries/);
  });

  it('--compare reports the run without the listed strategies on the same index', async () => {
    const result = await run(
      'eval',
      '--dataset',
      datasetFile,
      '--no-embedding',
      '--compare',
      'keyword,tfidf',
      '--json',
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.strategies).toContain('keyword');
    expect(report.compare.disabled).toEqual(['keyword', 'tfidf']);
    expect(report.compare.strategies).not.toContain('keyword');
    expect(report.compare.strategies).not.toContain('tfidf');
    expect(report.compare.strategies).toContain('synonyms');
    expect(report.compare.metrics.queries).toBe(4);
    expect(Object.keys(report.compare.segments)).toEqual(['new', 'power']);
  });

  it('--compare prints both tables and a signed difference', async () => {
    const result = await run('eval', '--dataset', datasetFile, '--no-embedding', '--compare', 'keyword');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^without keyword \(strategies: tfidf, /m);
    expect(result.stdout).toMatch(/^difference, all strategies minus without keyword:/m);
    const diff = result.stdout.split('difference, all strategies minus without keyword:')[1]!;
    expect(diff).toMatch(/^all\s+4\s+[+−±]\d\.\d{3}/m);
  });

  it('rejects --per-query with several datasets, and unknown --compare strategies', async () => {
    const several = await run('eval', '--dataset', datasetDir(), '--per-query', join(dir, 'x.json'));
    expect(several.code).toBe(2);
    expect(several.stderr).toMatch(/--per-query writes one dataset's outcomes; got 2 datasets/);
    const unknown = await run('eval', '--dataset', datasetFile, '--compare', 'embeddings');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--compare: unknown strategy "embeddings"/);
  });
});

describe.skipIf(!existsSync(SHARED_MODEL))('toolsearch with a local embedding model', () => {
  it('passes --model-path to the engine, which then runs the embedding strategy', async () => {
    const result = await run(
      'search',
      'forecast for tomorrow',
      '--tools',
      toolsFile,
      '--model-path',
      SHARED_MODEL,
      '--json',
    );
    expect(result.code).toBe(0);
    const response = JSON.parse(result.stdout);
    expect(response.strategies).toContain('embedding');
    expect(response.degraded).toBeUndefined();
  });
});
