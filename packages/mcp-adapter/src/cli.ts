#!/usr/bin/env node
/**
 * toolsearch-mcp: the gateway. Reads an mcp.json (Claude Desktop / Cursor
 * `mcpServers` format), connects to every server in it, and serves the
 * meta-tools over stdio (default) or Streamable HTTP. Protocol messages are
 * the only thing written to stdout in stdio mode; everything else goes to stderr.
 */
import { parseArgs } from 'node:util';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { positiveInt, resolveSettings } from './cli-settings.js';
import { DEFAULT_HTTP_PORT, VERSION } from './defaults.js';
import { AdapterError } from './errors.js';
import { readGatewayConfig } from './gateway/config.js';
import { Gateway } from './gateway/gateway.js';
import { redactSecrets } from './gateway/redact.js';
import { serveHttp } from './http.js';
import { type LearnOption, openStore } from './learn/open.js';
import { defaultReportQuery, formatTokenReport, tokenReport } from './report.js';

/** --no-learn > --learn-store > mcp.json's toolsearch.learn > the cache-dir file. */
function learnSetting(
  values: { 'no-learn'?: boolean; 'learn-store'?: string | undefined },
  config: { learn?: false | { store?: string; refreshMs?: number } },
): LearnOption {
  if (values['no-learn']) return false;
  const base = config.learn === false ? {} : (config.learn ?? {});
  if (values['learn-store'] !== undefined) {
    if (values['learn-store'].trim() === '')
      throw new AdapterError('INVALID_CONFIG', '--learn-store must be a redis:// URL or a file path', {
        field: '--learn-store',
      });
    return { ...base, store: values['learn-store'] };
  }
  return config.learn ?? {};
}

const HELP = `Usage: toolsearch-mcp --config mcp.json [options]

Serves search_tools, load_toolset, unload_toolset and call_tool in front of
every MCP server in mcp.json ("mcpServers" format of Claude Desktop / Cursor).

  --config <file>        mcp.json to read (required)
  --http                 serve Streamable HTTP instead of stdio
  --port <n>             HTTP port (default 3000)
  --host <h>             HTTP bind address (default 127.0.0.1; others need --token)
  --token <t>            bearer token for HTTP (or TOOLSEARCH_TOKEN)
  --report-tokens        print the tokens of eager vs lazy tool lists, then exit
  --query <q>            query of the search measured by --report-tokens
                         (default: the first words of the first tool's description)
  --list-changed-window <ms>  time a client has to re-fetch tools/list
                         (default: toolsearch.listChangedWindowMs in mcp.json, else 2000)
  --session-idle-timeout <s>  HTTP: close a session after this many seconds without
                         a request (default: toolsearch.sessionIdleTimeoutMs, else 1800)
  --max-sessions <n>     HTTP: cap on open sessions; more initializes get 503
                         (default: toolsearch.maxSessions, else 256)
  --no-learn             do not learn from use (also TOOLSEARCH_NO_LEARN=1,
                         or "learn": false in mcp.json's toolsearch section)
  --learn-store <s>      where learned uses live: a redis://host:port URL shared
                         by several gateways, or a file (default: toolsearch.learn.store,
                         else learned.json in $XDG_CACHE_HOME/toolsearch)
  --clear-learned        delete the learned uses of that store, then exit
  --no-index-cache       index the upstreams' tools at every start instead of loading
                         the index kept from the last start with the same tool lists
                         (also TOOLSEARCH_NO_INDEX_CACHE=1; the cache is in
                         $XDG_CACHE_HOME/toolsearch/indexes)
  -h, --help             this help
  -v, --version          print the version

Environment: TOOLSEARCH_ALWAYS_LOADED=a__x,b (tools or toolsets always listed).
`;

/** A mistake in how the command was called: the usage is printed with it, exit code 2. */
class UsageError extends Error {}

/** Flags that only mean something with --http. */
const HTTP_ONLY = ['port', 'host', 'token', 'session-idle-timeout', 'max-sessions'] as const;

const OPTIONS = {
  config: { type: 'string' },
  http: { type: 'boolean', default: false },
  port: { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string' },
  'report-tokens': { type: 'boolean', default: false },
  query: { type: 'string' },
  'list-changed-window': { type: 'string' },
  'session-idle-timeout': { type: 'string' },
  'max-sessions': { type: 'string' },
  'no-learn': { type: 'boolean', default: false },
  'learn-store': { type: 'string' },
  'clear-learned': { type: 'boolean', default: false },
  'no-index-cache': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
} as const;

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true }).values;
  } catch (err) {
    // parseArgs names the option: "Unknown option '--frob'. ..."
    throw new UsageError((err as Error).message);
  }
}

async function main(argv: string[]): Promise<void> {
  const values = parse(argv);
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (!values.http) {
    const given = HTTP_ONLY.filter((flag) => values[flag] !== undefined);
    if (given.length > 0)
      throw new UsageError(
        `${given.map((f) => `--${f}`).join(', ')} only ${given.length === 1 ? 'applies' : 'apply'} with --http`,
      );
  }
  if (!values.config)
    throw new AdapterError('INVALID_CONFIG', '--config <mcp.json> is required (see --help)');
  const config = await readGatewayConfig(values.config);
  const log = (line: string) => process.stderr.write(`${redactSecrets(line, config.upstreams)}\n`);
  // Flag > mcp.json > default; validated before any upstream starts.
  const settings = resolveSettings(values, config);
  const port = values.port !== undefined ? positiveInt('--port', values.port, true) : DEFAULT_HTTP_PORT;
  const learn = learnSetting(values, config);
  if (values['clear-learned']) {
    const { store } = openStore(learn === false ? {} : learn, { log });
    await store.clear();
    await store.close();
    log(`toolsearch-mcp: cleared the learned uses in ${store.description}`);
    return;
  }
  const gateway = await Gateway.start({
    config,
    log,
    learn,
    ...(values['no-index-cache'] ? { indexCache: false as const } : {}),
    // A report is on the tools as listed: nothing to serve before that.
    ...(values['report-tokens'] ? { serveBeforeListing: false } : {}),
    ...(settings.listChangedWindowMs !== undefined
      ? { listChangedWindowMs: settings.listChangedWindowMs }
      : {}),
  });
  // A start from the last index serves before the upstreams have listed: their states are known after.
  void gateway.upstreamsListed().then(() => {
    for (const s of gateway.status())
      if (s.state !== 'ready')
        log(`toolsearch-mcp: upstream ${s.name} is ${s.state}${s.error ? `: ${s.error}` : ''}`);
  });

  if (values['report-tokens']) {
    // Nothing answered: a report of zero tools would read as a success.
    if (gateway.catalog.size === 0) {
      const states = gateway
        .status()
        .map((s) => `${s.name}: ${s.state}`)
        .join(', ');
      await gateway.close();
      throw new AdapterError(
        'UPSTREAM_DOWN',
        `--report-tokens: no upstream gave any tools (${states || 'mcp.json lists no servers'})`,
      );
    }
    const report = await tokenReport(
      gateway,
      config.alwaysLoaded,
      values.query ?? defaultReportQuery(gateway),
    );
    process.stdout.write(formatTokenReport(report));
    await gateway.close();
    process.exit(0); // don't wait for the embedding model still loading in the background
  }

  let closeTransport: () => Promise<void>;
  if (values.http) {
    const token = values.token ?? process.env.TOOLSEARCH_TOKEN;
    const http = await serveHttp({
      createServer: (context) => gateway.createServer(context),
      onToolListChanged: (listener) => gateway.onToolListChanged(listener),
      ...(values.host ? { host: values.host } : {}),
      port,
      ...(token ? { token } : {}),
      ...(settings.sessionIdleTimeoutMs !== undefined
        ? { sessionIdleTimeoutMs: settings.sessionIdleTimeoutMs }
        : {}),
      ...(settings.maxSessions !== undefined ? { maxSessions: settings.maxSessions } : {}),
      log,
    });
    log(`toolsearch-mcp: serving ${gateway.catalog.size} tools on ${http.url}`);
    closeTransport = () => http.close();
  } else {
    // serveStdio picks the era from the client's first message (initialize or server/discover)
    // and pins one server from the factory to the connection.
    const stdio = serveStdio(({ era }) => gateway.createServer({ era, pinned: true }), {
      onerror: (error) => log(`toolsearch-mcp: stdio: ${error.message}`),
    });
    closeTransport = () => stdio.close();
    process.stdin.once('end', () => void shutdown());
  }

  let closing = false;
  const shutdown = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    await closeTransport().catch(() => {});
    await gateway.close().catch(() => {});
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) {
    process.stderr.write(`toolsearch-mcp: ${err.message}\n\n${HELP}`);
    process.exit(2);
  }
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
