/**
 * Reads the gateway's mcp.json: the `mcpServers` format shared by Claude Desktop
 * and Cursor (`command`/`args`/`env`/`cwd` for stdio, `url`/`headers` for
 * Streamable HTTP), plus an optional `toolsearch` section for our own settings.
 *
 * Parsing is strict about the fields we use (every error names the server and
 * the field) and ignores fields other clients add (`autoApprove`, `timeout`, ...)
 * so one mcp.json can be shared between a client and the gateway.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { AdapterError } from '../errors.js';
import { MAX_TIMER_MS } from '../http.js';
import { CREDENTIAL_NAME } from './redact.js';

export interface UpstreamConfig {
  /** Key in `mcpServers`; becomes the toolset and the `server__` prefix of tool names. */
  name: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  disabled?: boolean;
  /**
   * Values substituted from `${VAR}` anywhere in this server's config. They are
   * often tokens (`--api-key ${KEY}`, `Bearer ${KEY}`), so redaction hides them
   * wherever they appear, like env and header values.
   */
  secrets?: string[];
  /**
   * The subset of `secrets` substituted from variables named like credentials
   * (`${GITHUB_TOKEN}`, `${API_KEY}`): redacted in tool definitions and results too.
   */
  credentials?: string[];
}

export interface GatewayConfig {
  upstreams: UpstreamConfig[];
  alwaysLoaded: string[];
  maxBoundTools: number;
  callTimeoutMs: number;
  /** `toolsearch.listChangedWindowMs`; unset means the flag or the default (2000) decides. */
  listChangedWindowMs?: number;
  /** `toolsearch.sessionIdleTimeoutMs` (HTTP only); unset means the flag or the default (30 min) decides. */
  sessionIdleTimeoutMs?: number;
  /** `toolsearch.maxSessions` (HTTP only); unset means the flag or ADAPTER_DEFAULTS.maxSessions decides. */
  maxSessions?: number;
  /**
   * HMAC key of conversation handles (TOOLSEARCH_HANDLE_KEY, else `toolsearch.handleKey`).
   * Replicas behind one load balancer must share it; unset, each process makes its own.
   */
  handleKey?: string;
  /** `toolsearch.redactSecrets`; unset means ADAPTER_DEFAULTS.redactSecrets (true). */
  redactSecrets?: boolean;
  /**
   * `toolsearch.learn`: false switches learning from use off; `store` is a redis:// URL
   * (shared between gateway processes) or a file path; unset means the cache-dir file.
   */
  learn?: false | { store?: string; refreshMs?: number };
  /** `toolsearch.enrich`: model-written phrasings for the upstream tools at start-up (opt-in). */
  enrich?: EnrichConfig;
}

/** An OpenAI-compatible chat endpoint that writes phrasings; the key comes from the environment only. */
export interface EnrichConfig {
  endpoint: string;
  model: string;
  /** Name of the environment variable holding the API key (never the key itself). */
  apiKeyEnv?: string;
  concurrency?: number;
  timeoutMs?: number;
}

export const DEFAULT_MAX_BOUND_TOOLS = 40;
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/**
 * Server names become tool-name prefixes (`server__tool`), and MCP tool names are
 * limited to letters, digits, `_`, `-` (and `.`). A `__` inside a server name
 * would make `a__b__c` ambiguous, so it is refused.
 */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** `type` values other clients write for the transports we support. */
const STDIO_TYPES = new Set(['stdio']);
const HTTP_TYPES = new Set(['http', 'streamable-http', 'streamableHttp', 'streamable_http']);

type Env = NodeJS.ProcessEnv;

/**
 * Validates and normalises a parsed mcp.json. `origin` names the source in error
 * messages (usually the file path). `env` feeds `${VAR}` / `${VAR:-default}`
 * expansion in args, env, headers, url and cwd, and `TOOLSEARCH_ALWAYS_LOADED`.
 */
export function parseGatewayConfig(json: unknown, origin: string, env: Env = process.env): GatewayConfig {
  const fail = (field: string, message: string, server?: string): never => {
    throw new AdapterError('INVALID_CONFIG', `${origin}: ${field} ${message}`, { origin, field, server });
  };
  if (!isPlainObject(json)) fail('(root)', 'must be a JSON object with an "mcpServers" object');
  const root = json as Record<string, unknown>;
  if (!isPlainObject(root.mcpServers))
    fail('mcpServers', 'must be an object mapping server names to configs');

  const upstreams: UpstreamConfig[] = [];
  for (const [name, raw] of Object.entries(root.mcpServers as Record<string, unknown>)) {
    upstreams.push(parseServer(name, raw, env, fail));
  }
  const settings = parseSettings(root.toolsearch, fail);
  const fromEnv = (env.TOOLSEARCH_ALWAYS_LOADED ?? '').split(',');
  const alwaysLoaded = unique([...settings.alwaysLoaded, ...fromEnv].map((s) => s.trim()).filter(Boolean));
  // A secret is better kept out of a file that is often shared: the environment wins.
  const handleKey = env.TOOLSEARCH_HANDLE_KEY || settings.handleKey;
  return { upstreams, ...settings, alwaysLoaded, ...(handleKey ? { handleKey } : {}) };
}

/** Reads and parses an mcp.json file. A relative `cwd` is taken relative to the file. */
export async function readGatewayConfig(path: string, env: Env = process.env): Promise<GatewayConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new AdapterError('INVALID_CONFIG', `cannot read config file ${path} (${reason})`, { origin: path });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new AdapterError('INVALID_CONFIG', `${path} is not valid JSON: ${(err as Error).message}`, {
      origin: path,
    });
  }
  const config = parseGatewayConfig(json, path, env);
  const base = dirname(resolve(path));
  for (const upstream of config.upstreams) {
    if (upstream.cwd !== undefined && !isAbsolute(upstream.cwd)) upstream.cwd = resolve(base, upstream.cwd);
  }
  return config;
}

type Fail = (field: string, message: string, server?: string) => never;

function parseServer(name: string, raw: unknown, env: Env, fail: Fail): UpstreamConfig {
  const at = (field: string) => `mcpServers.${name}${field ? `.${field}` : ''}`;
  const bad = (field: string, message: string): never => fail(at(field), message, name);
  if (!SERVER_NAME.test(name) || name.includes('__')) {
    bad('', 'has an invalid server name: use letters, digits, "_", "-", "." and no "__"');
  }
  if (!isPlainObject(raw)) bad('', 'must be an object with "command" or "url"');
  const server = raw as Record<string, unknown>;
  const substituted = new Set<string>();
  const credentials = new Set<string>();
  const expand = (value: string, field: string) =>
    expandVars(value, env, (v) => bad(field, `uses \${${v}}, which is not set`), substituted, credentials);

  const config: UpstreamConfig = { name };
  if (server.disabled !== undefined) {
    if (typeof server.disabled !== 'boolean') bad('disabled', 'must be true or false');
    config.disabled = server.disabled as boolean;
  }
  const type = server.type ?? server.transport;
  if (type !== undefined) {
    if (typeof type !== 'string') bad('type', 'must be a string');
    else if (type === 'sse') bad('type', 'is "sse", which is not supported: use Streamable HTTP ("http")');
    else if (!STDIO_TYPES.has(type) && !HTTP_TYPES.has(type))
      bad('type', `is "${type}": expected "stdio" or "http"`);
  }
  const hasCommand = server.command !== undefined;
  const hasUrl = server.url !== undefined;
  if (hasCommand === hasUrl)
    bad('', hasCommand ? 'has both "command" and "url"' : 'needs "command" (stdio) or "url" (HTTP)');
  if (typeof type === 'string' && STDIO_TYPES.has(type) && !hasCommand)
    bad('command', 'is required for type "stdio"');
  if (typeof type === 'string' && HTTP_TYPES.has(type) && !hasUrl)
    bad('url', `is required for type "${type}"`);

  if (hasCommand) {
    if (typeof server.command !== 'string' || server.command.trim() === '')
      bad('command', 'must be a non-empty string');
    config.command = server.command as string;
    if (server.args !== undefined) {
      if (!Array.isArray(server.args)) bad('args', 'must be an array of strings');
      config.args = (server.args as unknown[]).map((arg, i) => {
        if (typeof arg !== 'string') bad(`args[${i}]`, 'must be a string');
        return expand(arg as string, `args[${i}]`);
      });
    }
    if (server.env !== undefined) config.env = stringMap(server.env, 'env', bad, expand);
    if (server.cwd !== undefined) {
      if (typeof server.cwd !== 'string' || server.cwd === '') bad('cwd', 'must be a non-empty string');
      config.cwd = expand(server.cwd as string, 'cwd');
    }
    for (const field of ['url', 'headers'] as const) {
      if (server[field] !== undefined) bad(field, 'only applies to HTTP servers (this one has "command")');
    }
  } else {
    if (typeof server.url !== 'string') bad('url', 'must be a string');
    const url = expand(server.url as string, 'url');
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      bad('url', 'is not a valid URL');
    }
    if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      bad('url', 'must be http: or https:');
    config.url = url;
    if (server.headers !== undefined) config.headers = stringMap(server.headers, 'headers', bad, expand);
    for (const field of ['args', 'env', 'cwd'] as const) {
      if (server[field] !== undefined) bad(field, 'only applies to stdio servers (this one has "url")');
    }
  }
  if (substituted.size > 0) config.secrets = [...substituted];
  if (credentials.size > 0) config.credentials = [...credentials];
  return config;
}

function stringMap(
  raw: unknown,
  field: string,
  bad: (field: string, message: string) => never,
  expand: (value: string, field: string) => string,
): Record<string, string> {
  if (!isPlainObject(raw)) bad(field, 'must be an object of string values');
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value !== 'string') bad(`${field}.${key}`, 'must be a string');
    out[key] = expand(value as string, `${field}.${key}`);
  }
  return out;
}

/** Keys of the `toolsearch` section. It is ours alone, so an unknown key is a typo and an error. */
const SETTINGS_KEYS = [
  'alwaysLoaded',
  'maxBoundTools',
  'callTimeoutMs',
  'listChangedWindowMs',
  'sessionIdleTimeoutMs',
  'maxSessions',
  'handleKey',
  'redactSecrets',
  'learn',
  'enrich',
] as const;

function parseSettings(raw: unknown, fail: Fail): Omit<GatewayConfig, 'upstreams'> {
  const settings: Omit<GatewayConfig, 'upstreams'> = {
    alwaysLoaded: [] as string[],
    maxBoundTools: DEFAULT_MAX_BOUND_TOOLS,
    callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
  };
  if (raw === undefined) return settings;
  if (!isPlainObject(raw)) fail('toolsearch', 'must be an object');
  const section = raw as Record<string, unknown>;
  const known: readonly string[] = SETTINGS_KEYS;
  for (const key of Object.keys(section)) {
    if (!known.includes(key))
      fail(`toolsearch.${key}`, `is not a known setting (known: ${known.join(', ')})`);
  }
  if (section.alwaysLoaded !== undefined) {
    const list = section.alwaysLoaded;
    if (!Array.isArray(list) || list.some((s) => typeof s !== 'string')) {
      fail('toolsearch.alwaysLoaded', 'must be an array of tool or toolset names');
    }
    settings.alwaysLoaded = list as string[];
  }
  if (section.handleKey !== undefined) {
    if (typeof section.handleKey !== 'string' || section.handleKey === '')
      fail('toolsearch.handleKey', 'must be a non-empty string (at least 32 bytes)');
    settings.handleKey = section.handleKey as string;
  }
  if (section.redactSecrets !== undefined) {
    if (typeof section.redactSecrets !== 'boolean') fail('toolsearch.redactSecrets', 'must be true or false');
    settings.redactSecrets = section.redactSecrets as boolean;
  }
  for (const field of [
    'maxBoundTools',
    'callTimeoutMs',
    'listChangedWindowMs',
    'sessionIdleTimeoutMs',
    'maxSessions',
  ] as const) {
    const value = section[field];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      fail(`toolsearch.${field}`, `must be a positive integer, got ${JSON.stringify(value)}`);
    }
    if (field.endsWith('Ms') && (value as number) > MAX_TIMER_MS)
      fail(`toolsearch.${field}`, `must be at most ${MAX_TIMER_MS} ms (about 24.8 days)`);
    settings[field] = value as number;
  }
  if (section.learn !== undefined) settings.learn = parseLearn(section.learn, fail);
  if (section.enrich !== undefined) settings.enrich = parseEnrich(section.enrich, fail);
  return settings;
}

function parseLearn(raw: unknown, fail: Fail): GatewayConfig['learn'] {
  if (raw === false) return false;
  if (!isPlainObject(raw))
    return fail('toolsearch.learn', 'must be false or an object { store?, refreshMs? }');
  const out: { store?: string; refreshMs?: number } = {};
  for (const key of Object.keys(raw))
    if (key !== 'store' && key !== 'refreshMs')
      fail(`toolsearch.learn.${key}`, 'is not a known setting (known: store, refreshMs)');
  if (raw.store !== undefined) {
    if (typeof raw.store !== 'string' || raw.store.trim() === '')
      fail('toolsearch.learn.store', 'must be a redis:// URL or a file path');
    out.store = raw.store as string;
  }
  if (raw.refreshMs !== undefined) {
    const n = raw.refreshMs;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_TIMER_MS)
      fail('toolsearch.learn.refreshMs', `must be an integer from 0 to ${MAX_TIMER_MS}`);
    out.refreshMs = n as number;
  }
  return out;
}

const ENRICH_KEYS = ['endpoint', 'model', 'apiKeyEnv', 'concurrency', 'timeoutMs'];

function parseEnrich(raw: unknown, fail: Fail): EnrichConfig {
  if (!isPlainObject(raw)) return fail('toolsearch.enrich', 'must be an object { endpoint, model, ... }');
  for (const key of Object.keys(raw))
    if (!ENRICH_KEYS.includes(key))
      fail(`toolsearch.enrich.${key}`, `is not a known setting (known: ${ENRICH_KEYS.join(', ')})`);
  if ('apiKey' in raw)
    fail('toolsearch.enrich.apiKey', 'is not allowed: name an environment variable in apiKeyEnv');
  for (const key of ['endpoint', 'model'] as const)
    if (typeof raw[key] !== 'string' || (raw[key] as string).trim() === '')
      fail(`toolsearch.enrich.${key}`, 'must be a non-empty string');
  const out: EnrichConfig = { endpoint: raw.endpoint as string, model: raw.model as string };
  if (raw.apiKeyEnv !== undefined) {
    if (typeof raw.apiKeyEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw.apiKeyEnv))
      fail('toolsearch.enrich.apiKeyEnv', 'must be an environment variable name');
    out.apiKeyEnv = raw.apiKeyEnv as string;
  }
  for (const key of ['concurrency', 'timeoutMs'] as const) {
    const n = raw[key];
    if (n === undefined) continue;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_TIMER_MS)
      fail(`toolsearch.enrich.${key}`, 'must be a positive integer');
    out[key] = n as number;
  }
  return out;
}

/** `${VAR}` and `${VAR:-default}`, as in Claude Code and Cursor configs. */
function expandVars(
  value: string,
  env: Env,
  missing: (name: string) => never,
  substituted: Set<string>,
  credentials: Set<string>,
): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_, name: string, fallback?: string) => {
      const found = env[name];
      if (found !== undefined && found !== '') {
        substituted.add(found);
        if (CREDENTIAL_NAME.test(name)) credentials.add(found);
        return found;
      }
      if (fallback !== undefined) return fallback;
      if (found !== undefined) return found;
      return missing(name);
    },
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
