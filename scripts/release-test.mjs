#!/usr/bin/env node
// The release test: what a user gets from the packed tarballs, not from the workspace.
// Packs both packages (pnpm pack, which also rewrites workspace:^), installs the tarballs
// with plain npm into an empty project (offline from the npm cache where it can, else from
// the registry), then runs the CLI search, the gateway's stdio handshake and a library
// search there, with the node running this script. Checks the install stays under
// 80 MB, runs no install script, ships what the READMEs link to, and that packing leaves
// the git tree as it was.
//
//   node scripts/release-test.mjs [--pack-dir DIR] [--record] [--keep]
//
// --pack-dir DIR  reuse the tarballs in DIR when both are there (CI packs once and tests
//                 under Node 20 and 24), else pack into it
// --record        write the figures to benchmarks/results/release-node<major>.json
// --keep          leave the temporary project in place (its path is printed)
// Plain JavaScript on purpose: it runs on any Node the packages support, with no build step.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LIMIT_MB = 80;
const MB = 1024 * 1024;
const PACKAGES = [
  { name: '@toolsearch/core-search', dir: 'packages/core-search', tarball: 'toolsearch-core-search' },
  { name: '@toolsearch/mcp-adapter', dir: 'packages/mcp-adapter', tarball: 'toolsearch-mcp-adapter' },
];
// Packages that must not be installed: the ONNX runtimes are only for the optional peer.
const FORBIDDEN = [
  '@huggingface/transformers',
  'onnxruntime-node',
  'onnxruntime-web',
  'onnxruntime-common',
  'sharp',
];

const { values: args } = parseArgs({
  options: { 'pack-dir': { type: 'string' }, record: { type: 'boolean' }, keep: { type: 'boolean' } },
});

const failures = [];
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

// Children run with this node first on PATH, so the bins' `#!/usr/bin/env node` is the node under test.
const env = {
  ...process.env,
  PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};

function run(command, argv, options = {}) {
  const started = performance.now();
  const result = spawnSync(command, argv, {
    env,
    encoding: 'utf8',
    maxBuffer: 64 * MB,
    timeout: 600_000,
    ...options,
  });
  const seconds = (performance.now() - started) / 1000;
  if (result.error) throw result.error;
  return { ...result, seconds };
}

function gitStatus() {
  try {
    return execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
  } catch {
    return null; // not a git checkout (an unpacked source archive): nothing to compare
  }
}

// ---------------------------------------------------------------- pack
const packDir = resolve(args['pack-dir'] ?? mkdtempSync(join(os.tmpdir(), 'toolsearch-pack-')));
mkdirSync(packDir, { recursive: true });
const tarballOf = (pkg) =>
  readdirSync(packDir).find((f) => f.startsWith(`${pkg.tarball}-`) && f.endsWith('.tgz'));
let packSeconds = null;
if (!PACKAGES.every(tarballOf)) {
  const before = gitStatus();
  const started = performance.now();
  for (const pkg of PACKAGES) {
    const packed = run('pnpm', ['pack', '--pack-destination', packDir], { cwd: join(ROOT, pkg.dir) });
    if (packed.status !== 0)
      throw new Error(`pnpm pack in ${pkg.dir} failed:\n${packed.stdout}\n${packed.stderr}`);
  }
  packSeconds = (performance.now() - started) / 1000;
  const after = gitStatus();
  check(before === after, `packing leaves the git tree as it was${before === after ? '' : `:\n${after}`}`);
}
const tarballs = PACKAGES.map((pkg) => join(packDir, tarballOf(pkg)));

// ---------------------------------------------------------------- install
const project = mkdtempSync(join(os.tmpdir(), 'toolsearch-release-'));
console.log(`project: ${project}`);
writeFileSync(
  join(project, 'package.json'),
  `${JSON.stringify({ private: true, type: 'module' }, null, 2)}\n`,
);
const npmArgs = ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs];
let installMode = 'offline';
let install = run('npm', [...npmArgs, '--offline'], { cwd: project });
if (install.status !== 0) {
  // Some dependency is not in the npm cache yet: the registry fills it (and the next run is offline).
  installMode = 'prefer-offline';
  rmSync(join(project, 'node_modules'), { recursive: true, force: true });
  install = run('npm', [...npmArgs, '--prefer-offline'], { cwd: project });
}
check(install.status === 0, `npm install of the tarballs (${installMode}, ${install.seconds.toFixed(1)} s)`);
if (install.status !== 0) {
  console.error(install.stdout, install.stderr);
  process.exit(1);
}
const modules = join(project, 'node_modules');

const installed = listPackages(modules);
const present = FORBIDDEN.filter((name) => installed.has(name));
check(
  present.length === 0,
  `no ONNX runtime installed (${present.join(', ') || 'none of ' + FORBIDDEN.join(', ')})`,
);
const scripts = [...installed.entries()].flatMap(([name, json]) =>
  ['preinstall', 'install', 'postinstall'].filter((s) => json.scripts?.[s]).map((s) => `${name} ${s}`),
);
check(scripts.length === 0, `no install scripts (${scripts.join(', ') || 'none'})`);

const size = diskUsage(modules);
check(
  size.disk <= LIMIT_MB * MB,
  `node_modules ${(size.disk / MB).toFixed(1)} MB on disk (apparent ${(size.apparent / MB).toFixed(1)} MB) <= ${LIMIT_MB} MB`,
);

// Everything a README links to is in the package (or is a full URL).
for (const pkg of PACKAGES) {
  const dir = join(modules, pkg.name);
  for (const file of ['README.md', 'LICENSE'])
    check(existsSync(join(dir, file)), `${pkg.name} ships ${file}`);
  const readme = existsSync(join(dir, 'README.md')) ? readFileSync(join(dir, 'README.md'), 'utf8') : '';
  const missing = [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1].split('#')[0])
    .filter((link) => link && !/^[a-z]+:/i.test(link) && !existsSync(join(dir, link)));
  check(
    missing.length === 0,
    `${pkg.name} README links resolve in the package (${missing.join(', ') || 'all'})`,
  );
}

// ---------------------------------------------------------------- CLI
// A cache of our own: the first search is a cold one, and nothing is written to the user's home.
env.XDG_CACHE_HOME = join(project, '.cache');
const bin = (name) => join(modules, '.bin', name);
const query = 'take a screenshot of the page';
const first = run(bin('toolsearch'), ['search', query, '--limit', '3', '--json'], { cwd: project });
// The second search loads the index the first one cached; the third builds it again
// (--no-cache) with the embedding cache warm: what a second search cost before the index cache.
const second = run(bin('toolsearch'), ['search', query, '--limit', '3', '--json'], { cwd: project });
const rebuilt = run(bin('toolsearch'), ['search', query, '--limit', '3', '--json', '--no-cache'], {
  cwd: project,
});
check(
  second.stdout === first.stdout && rebuilt.stdout === first.stdout,
  'CLI search answers the same from the cached index, and with --no-cache',
);
const response = jsonOutput(first);
const top = response?.results?.[0];
check(
  first.status === 0 && /screenshot/.test(top?.name ?? ''),
  `CLI search ranks a screenshot tool first (${top?.name})`,
);
check(
  (response?.results ?? []).some((r) => r.matchedBy.some((m) => m.strategy === 'embedding')) &&
    !response?.degraded,
  'CLI search uses the bundled embedding model, offline, with no ONNX runtime',
);
check(
  first.stderr.trim() === '',
  `CLI search writes nothing to stderr${first.stderr.trim() ? `: ${first.stderr}` : ''}`,
);

// Both bins print their package's version (once the CLIs have --version; until then, said and skipped).
for (const [name, pkg] of [
  ['toolsearch', '@toolsearch/core-search'],
  ['toolsearch-mcp', '@toolsearch/mcp-adapter'],
]) {
  const { version } = installed.get(pkg) ?? {};
  const out = run(bin(name), ['--version'], { cwd: project, timeout: 60_000 });
  if (out.status === 0)
    check(out.stdout.includes(version), `${name} --version prints ${version} (${out.stdout.trim()})`);
  else console.log(`skip ${name} --version: not supported by this build (exit ${out.status})`);
}

// ---------------------------------------------------------------- gateway over stdio
writeFileSync(join(project, 'upstream.mjs'), UPSTREAM_SERVER());
writeFileSync(
  join(project, 'mcp.json'),
  JSON.stringify({
    mcpServers: { demo: { command: process.execPath, args: [join(project, 'upstream.mjs')] } },
  }),
);
writeFileSync(join(project, 'client.mjs'), STDIO_CLIENT(bin('toolsearch-mcp'), join(project, 'mcp.json')));
const client = run(process.execPath, ['client.mjs'], { cwd: project, timeout: 120_000 });
const handshake = jsonOutput(client);
check(
  ['search_tools', 'load_toolset', 'unload_toolset', 'call_tool'].every((t) => handshake?.tools?.includes(t)),
  `gateway: initialize + tools/list over stdio give the meta-tools (${handshake?.tools?.join(', ')})`,
);
check(/demo__shout/.test(handshake?.search ?? ''), 'gateway: search_tools finds the upstream tool');
check(handshake?.call === 'HELLO', `gateway: call_tool reaches the upstream server (${handshake?.call})`);

// ---------------------------------------------------------------- library
writeFileSync(join(project, 'library.mjs'), LIBRARY_SCRIPT());
const library = run(process.execPath, ['library.mjs'], { cwd: project, timeout: 120_000 });
const lib = jsonOutput(library);
check(
  lib?.top === 'weather__forecast' && lib?.byEmbedding,
  `library: "will I need an umbrella" finds the forecast by embedding (${lib?.top})`,
);
check(
  lib?.hubWarning?.includes('npm install @huggingface/transformers') === true,
  `library: a hub model without the optional peer names the package to install (${lib?.hubWarning})`,
);
check(lib?.adapter === 'function', 'library: @toolsearch/mcp-adapter exports withToolSearch');
for (const [entry, type] of Object.entries(lib?.subpaths ?? { 'the subpath entry points': 'not run' }))
  check(type === 'function', `library: ${entry} resolves from the tarball (${type})`);

// ---------------------------------------------------------------- figures
const figures = {
  study: 'release',
  meta: runMeta(),
  limitMB: LIMIT_MB,
  tarballs: Object.fromEntries(PACKAGES.map((pkg, i) => [pkg.name, fileSize(tarballs[i])])),
  packSeconds: round(packSeconds),
  install: { mode: installMode, seconds: round(install.seconds), packages: installed.size },
  nodeModules: { diskMB: round(size.disk / MB), apparentMB: round(size.apparent / MB) },
  cli: {
    query,
    firstSearchSeconds: round(first.seconds),
    secondSearchSeconds: round(second.seconds),
    secondSearchNoIndexCacheSeconds: round(rebuilt.seconds),
  },
  gatewayHandshakeSeconds: round(handshake?.handshakeSeconds ?? null),
  note: 'Wall times on a shared machine; meta.loadavg is the 1-minute load average when the run ended.',
};
console.log(JSON.stringify(figures, null, 2));
if (args.record && failures.length === 0) {
  const file = join(ROOT, 'benchmarks', 'results', `release-node${process.versions.node.split('.')[0]}.json`);
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`recorded ${file}`);
}
if (!args.keep) rmSync(project, { recursive: true, force: true });
if (!args['pack-dir']) rmSync(packDir, { recursive: true, force: true });
if (failures.length > 0) {
  console.error(`release test: ${failures.length} check(s) failed`);
  process.exit(1);
}
console.log('release test: all checks passed');

// ---------------------------------------------------------------- helpers
/** A child's stdout as JSON, or null (its output shown) when it printed something else. */
function jsonOutput(result) {
  try {
    return JSON.parse(result.stdout);
  } catch {
    console.error(result.stdout, result.stderr);
    return null;
  }
}

function round(x) {
  return x === null ? null : Math.round(x * 100) / 100;
}

function fileSize(file) {
  return lstatSync(file).size;
}

/** name -> package.json of every package under node_modules (scoped and nested ones too). */
function listPackages(dir, found = new Map()) {
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === '.bin' || entry.name === '.cache') continue;
    const path = join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      listPackages(path, found);
      continue;
    }
    const manifest = join(path, 'package.json');
    if (existsSync(manifest)) {
      const json = JSON.parse(readFileSync(manifest, 'utf8'));
      if (json.name) found.set(json.name, json);
    }
    listPackages(join(path, 'node_modules'), found);
  }
  return found;
}

/** Bytes on disk (allocated blocks, what `du` shows) and apparent (file sizes), symlinks not followed. */
function diskUsage(dir) {
  let disk = 0;
  let apparent = 0;
  const walk = (path) => {
    const stat = lstatSync(path);
    disk += stat.blocks * 512;
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    else apparent += stat.size;
  };
  walk(dir);
  return { disk, apparent };
}

function runMeta() {
  const git = (argv) => {
    try {
      return execFileSync('git', argv, {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      return null;
    }
  };
  const status = git(['status', '--porcelain', '--', '.', ':!benchmarks/results']);
  const cpus = os.cpus();
  return {
    commit: git(['rev-parse', '--short', 'HEAD']) ?? 'unknown',
    dirty: status === null ? false : status !== '',
    date: new Date().toISOString(),
    machine: {
      cpu: cpus[0]?.model.trim() ?? 'unknown',
      cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
      node: process.version,
      npm: run('npm', ['--version']).stdout.trim(),
      platform: `${process.platform}-${process.arch}`,
    },
    loadavg: round(os.loadavg()[0]),
  };
}

// A stdio MCP server with one tool, written with the SDK (v2) the adapter brought along.
function UPSTREAM_SERVER() {
  return `import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
const createServer = () => {
const server = new Server({ name: 'demo', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async () => ({
  tools: [
    {
      name: 'shout',
      description: 'Shout a message back in capital letters.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  ],
}));
server.setRequestHandler('tools/call', async (request) => ({
  content: [{ type: 'text', text: String(request.params.arguments?.text ?? '').toUpperCase() }],
}));
return server;
};
serveStdio(createServer);
`;
}

// The client an MCP host would be: spawns the gateway's bin, initialize, tools/list, two calls.
function STDIO_CLIENT(gatewayBin, config) {
  return `import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const started = performance.now();
const client = new Client({ name: 'release-test', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: ${JSON.stringify(gatewayBin)}, args: ['--config', ${JSON.stringify(config)}], env: process.env, stderr: 'inherit' }));
const { tools } = await client.listTools();
const handshakeSeconds = (performance.now() - started) / 1000;
const text = (result) => result.content.map((c) => c.text ?? '').join('\\n');
const search = text(await client.callTool({ name: 'search_tools', arguments: { query: 'shout a message in capitals' } }));
const call = text(await client.callTool({ name: 'call_tool', arguments: { name: 'demo__shout', arguments: { text: 'hello' } } }));
await client.close();
console.log(JSON.stringify({ tools: tools.map((t) => t.name), search, call, handshakeSeconds }));
`;
}

function LIBRARY_SCRIPT() {
  return `import { ToolSearch } from '@toolsearch/core-search';
const tools = [
  { name: 'weather__forecast', description: 'Temperature and precipitation forecast for a location.' },
  { name: 'mail__send_email', description: 'Send an email message to a recipient.' },
  { name: 'calendar__create_event', description: 'Add an event to the calendar at a date and time.' },
  { name: 'translate__text', description: 'Translate text into another language.' },
];
const engine = new ToolSearch({ tools });
await engine.ready();
const { results } = await engine.search('will I need an umbrella tomorrow', { limit: 3 });
const warnings = [];
const hub = new ToolSearch({
  tools,
  embedding: { model: 'Xenova/all-MiniLM-L6-v2', allowRemoteModels: false, cacheDir: false, onWarning: (w) => warnings.push(w) },
});
await hub.ready();
const adapter = await import('@toolsearch/mcp-adapter');
// The subpath entry points resolve from the tarballs (package.json exports, dist/ shipped).
const subpaths = {
  '@toolsearch/core-search/eval': typeof (await import('@toolsearch/core-search/eval')).evaluate,
  '@toolsearch/core-search/internals': typeof (await import('@toolsearch/core-search/internals')).fuse,
  '@toolsearch/mcp-adapter/internals': typeof (await import('@toolsearch/mcp-adapter/internals')).isLoopback,
};
console.log(JSON.stringify({
  subpaths,
  top: results[0]?.name,
  byEmbedding: results[0]?.matchedBy.some((m) => m.strategy === 'embedding'),
  hubWarning: warnings[0],
  adapter: typeof adapter.withToolSearch,
}));
`;
}
