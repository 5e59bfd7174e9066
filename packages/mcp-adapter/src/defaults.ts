/**
 * The adapter's defaults and limits, each defined here once: the library
 * (`withToolSearch`), the gateway, the HTTP host and the CLI all import them.
 * `checkSetting` is the one validator for the settings a user can give in
 * several places (an option, mcp.json's `toolsearch` section, a CLI flag).
 */
import { createRequire } from 'node:module';
import { z } from 'zod';
import { AdapterError } from './errors.js';

/**
 * Loaded tools a session keeps bound (always-loaded ones not counted). Enough for a
 * few toolsets at once; beyond it the tool list grows back toward the size the
 * adapter exists to avoid, so the least recently used are evicted.
 */
export const DEFAULT_MAX_BOUND_TOOLS = 40;
/** How long after a list_changed a client may take to re-fetch tools/list before we assume it never will. */
export const DEFAULT_LIST_CHANGED_WINDOW_MS = 2000;
/** A forwarded tools/call that has not answered by then is reported as UPSTREAM_TIMEOUT. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** An upstream must answer initialize and list its tools within this (npx may install on first start). */
export const DEFAULT_START_TIMEOUT_MS = 30_000;
/** An HTTP session without a request for this long is closed (the MCP spec leaves it to the server). */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/** HTTP: the port serveHttp and `--http` listen on when none is given (a common dev-server port). */
export const DEFAULT_HTTP_PORT = 3000;
/** HTTP: the bind address when none is given; loopback, so other hosts reach it only by a deliberate --host. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';
/**
 * HTTP: a request body over this is refused (413) before it is parsed. Tool arguments are
 * small; 4 MiB leaves room for a pasted document and keeps one request's memory bounded
 * (the fuzz suite sends 4 MB queries).
 */
export const MAX_HTTP_BODY_BYTES = 4 * 1024 * 1024;
/**
 * A crashed upstream is restarted on its next use: the first time at once, then after
 * `backoffMs`, doubling up to `maxBackoffMs`; past `maxRestarts` failures in a row it stays
 * down. Set by judgement, not measured: a flapping server costs a few seconds of retries,
 * and a dead one stops being retried within about half a minute.
 */
export const UPSTREAM_RESTARTS = { maxRestarts: 5, backoffMs: 1000, maxBackoffMs: 60_000 } as const;
/** After a call times out, a ping must come back within this to count the upstream as alive. */
export const PING_TIMEOUT_MS = 2000;
/** On close, an HTTP upstream gets this long to end its session: a gone or slow server must not hold up shutdown. */
export const TERMINATE_SESSION_WAIT_MS = 1000;
/**
 * How long a 2026-07-28 probe (server/discover) may take before a stdio server counts as a
 * 2025-era one (HTTP: as down). Set by judgement: a live server answers in milliseconds,
 * a slow-starting one has its own start timeout.
 */
export const PROBE_TIMEOUT_MS = 5000;
/**
 * Re-opening a tool-list stream a 2026-07-28 upstream dropped: at once after a stream that
 * lived `stableMs`, else after `retryMs`, doubling per quick drop up to `retryMaxMs`, so a
 * server that ends every stream at once cannot make the gateway re-list in a loop.
 */
export const LISTEN_RETRY = { stableMs: 10_000, retryMs: 500, retryMaxMs: 60_000 } as const;
/** tools/list pages read from one upstream at most: a server that paginates forever is stopped. */
export const MAX_LIST_PAGES = 1000;
/** Upstream stderr: the last lines kept for error messages, and the length a line is cut to (some servers log whole payloads). */
export const UPSTREAM_STDERR = { tailLines: 5, maxLineChars: 2000 } as const;
/**
 * The learned-use file store's lock: one taken longer ago than `staleMs` is taken to be left
 * by a crash (a write takes milliseconds); a record waits at most `timeoutMs` for it.
 */
export const LEARN_LOCK = { staleMs: 30_000, timeoutMs: 10_000 } as const;
/**
 * Learning from use (learn/): the bounds of what it keeps, shared by every store. Sized so the
 * whole store stays well under a megabyte and loads in milliseconds.
 */
export const LEARN_LIMITS = {
  /** Queries longer than this are cut (a pasted document is not a phrasing). */
  maxQueryChars: 200,
  /** Tool names longer than this are refused (MCP names are short). */
  maxToolChars: 200,
  /** Distinct queries kept per tool: the most frequent, then the most recent. */
  maxUsesPerTool: 50,
  /** Distinct (query, tool) pairs kept in all. */
  maxUses: 20_000,
  /** Tool pairs kept in all. */
  maxTogether: 5_000,
  /** Partners kept per tool when the pairs are used as related tools. */
  maxTogetherPerTool: 20,
  /** Entries not seen for this long are dropped. */
  maxAgeMs: 180 * 24 * 3600 * 1000,
  /** Events accepted in one record() call; more is a caller bug, refused. */
  maxEventsPerRecord: 1_000,
} as const satisfies Record<string, number>;

/** setTimeout fires at once (with a warning) past 2^31 - 1 ms, about 24.8 days. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Limits and safety defaults that are not search settings (those are in core-search's defaults.ts). */
export const ADAPTER_DEFAULTS = {
  /**
   * HTTP: open sessions at once; an `initialize` over it gets 503. A session holds about
   * 35 KB until it ends or idles out (30 min), so without a cap 3,000 sessions held 106 MB.
   * `toolsearch.maxSessions`, `--max-sessions`, serveHttp({ maxSessions }).
   */
  maxSessions: 256,
  /**
   * Gateway: the credentials of the upstream configs (see redact.ts credentialValues) are
   * replaced by `***` in the upstreams' tool definitions and call results, not only in
   * logs and errors: a server that echoes its API key must not hand it to the model.
   * `toolsearch.redactSecrets: false` passes definitions and results through untouched.
   */
  redactSecrets: true,
  /**
   * HTTP: a request body nested deeper than this ([ and {) is refused with 400 before it
   * is parsed further: the SDK's validation recurses. Real tool arguments nest a few levels.
   */
  maxJsonDepth: 256,
  /**
   * Meta-tools: a tool or toolset name argument longer than this is INVALID_ARGUMENTS before
   * any lookup (MCP tool names are at most 128 characters, plus the `server__` prefix), so a
   * 4 MB "name" is neither compared with every toolset nor quoted back in the error.
   */
  maxNameChars: 256,
  /**
   * Meta-tools: most names one load_toolset / unload_toolset call takes (tools and toolsets
   * together); an unknown name costs a did-you-mean search, so the count is bounded too.
   */
  maxNamesPerCall: 256,
} as const satisfies {
  maxSessions: number;
  redactSecrets: boolean;
  maxJsonDepth: number;
  maxNameChars: number;
  maxNamesPerCall: number;
};

/** This package's version, from its package.json (src/ and dist/ both sit one level below it). */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;

/** The name the adapter gives itself to MCP peers (serverInfo and clientInfo). */
export const IMPLEMENTATION = { name: 'toolsearch-mcp', version: VERSION } as const;

/**
 * A switch given by an environment variable (TOOLSEARCH_NO_LEARN, TOOLSEARCH_NO_INDEX_CACHE):
 * on for any value but empty, "0" and "false" (any case), so `=1`, `=true` and `=yes` all work.
 */
export function envFlag(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = (env[name] ?? '').trim().toLowerCase();
  return value !== '' && value !== '0' && value !== 'false';
}

/** The default log: one line to stderr (stdout carries the stdio protocol). */
export function stderrLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

const positiveInt = (max?: number) => (max === undefined ? z.int().min(1) : z.int().min(1).max(max));

/** Numeric settings and their bounds: one schema each, wherever the value comes from. */
export const SETTING_SCHEMAS = {
  maxBoundTools: positiveInt(),
  callTimeoutMs: positiveInt(MAX_TIMER_MS),
  listChangedWindowMs: positiveInt(MAX_TIMER_MS),
  sessionIdleTimeoutMs: positiveInt(MAX_TIMER_MS),
  maxSessions: positiveInt(),
} satisfies Record<string, z.ZodType<number>>;

export type SettingName = keyof typeof SETTING_SCHEMAS;

/** Why `value` does not fit `setting`, in words (undefined when it fits). */
export function settingProblem(setting: SettingName, value: unknown): string | undefined {
  const result = SETTING_SCHEMAS[setting].safeParse(value);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  const got = typeof value === 'number' || value === undefined ? String(value) : JSON.stringify(value);
  if (issue?.code === 'too_big') return `must be at most ${String(issue.maximum)}, got ${got}`;
  return `must be a positive integer, got ${got}`;
}

/**
 * Checks one setting and returns it; throws INVALID_CONFIG naming `field` (the option,
 * `toolsearch.x` in mcp.json, or the flag) when it does not fit.
 */
export function checkSetting(setting: SettingName, value: unknown, field: string = setting): number {
  const problem = settingProblem(setting, value);
  if (problem !== undefined) throw new AdapterError('INVALID_CONFIG', `${field} ${problem}`, { field });
  return value as number;
}
