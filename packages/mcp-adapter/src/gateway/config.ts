/**
 * Reads the gateway's mcp.json: the `mcpServers` format shared by Claude Desktop
 * and Cursor (`command`/`args`/`env`/`cwd` for stdio, `url`/`headers` for
 * Streamable HTTP), plus an optional `toolsearch` section for our own settings.
 *
 * Parsing (zod schemas) is strict about the fields we use, reports every problem
 * at once with its path, and ignores fields other clients add (`autoApprove`,
 * `timeout`, ...) so one mcp.json can be shared between a client and the gateway.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { chatCompletionsUrl } from '@toolsearch/core-search';
import { z } from 'zod';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_BOUND_TOOLS,
  MAX_TIMER_MS,
  type SettingName,
  settingProblem,
} from '../defaults.js';
import { AdapterError } from '../errors.js';
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

/** One problem found in mcp.json: where (a dotted path) and what. */
export interface ConfigProblem {
  field: string;
  message: string;
  server?: string;
}

const nonEmpty = z
  .string({ error: 'must be a non-empty string' })
  .refine((s) => s.trim() !== '', 'must be a non-empty string');
const stringMap = z.record(z.string(), z.string({ error: 'must be a string' }), {
  error: 'must be an object of string values',
});

/** One entry of `mcpServers`. Fields other clients add (`autoApprove`, `timeout`, ...) pass through. */
const ServerSchema = z
  .looseObject(
    {
      disabled: z.boolean({ error: 'must be true or false' }).optional(),
      type: z.string({ error: 'must be a string' }).optional(),
      transport: z.string({ error: 'must be a string' }).optional(),
      command: nonEmpty.optional(),
      args: z
        .array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' })
        .optional(),
      env: stringMap.optional(),
      cwd: nonEmpty.optional(),
      url: z.string({ error: 'must be a string' }).optional(),
      headers: stringMap.optional(),
    },
    { error: 'must be an object with "command" or "url"' },
  )
  .superRefine((server, ctx) => {
    const bad = (field: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: field ? [field] : [], message });
    const type = server.type ?? server.transport;
    if (type === 'sse') bad('type', 'is "sse", which is not supported: use Streamable HTTP ("http")');
    else if (type !== undefined && !STDIO_TYPES.has(type) && !HTTP_TYPES.has(type))
      bad('type', `is "${type}": expected "stdio" or "http"`);
    const hasCommand = server.command !== undefined;
    const hasUrl = server.url !== undefined;
    if (hasCommand === hasUrl)
      bad('', hasCommand ? 'has both "command" and "url"' : 'needs "command" (stdio) or "url" (HTTP)');
    if (type !== undefined && STDIO_TYPES.has(type) && !hasCommand)
      bad('command', 'is required for type "stdio"');
    if (type !== undefined && HTTP_TYPES.has(type) && !hasUrl) bad('url', `is required for type "${type}"`);
    if (hasCommand && !hasUrl) {
      for (const field of ['url', 'headers'] as const)
        if (server[field] !== undefined) bad(field, 'only applies to HTTP servers (this one has "command")');
    }
    if (hasUrl && !hasCommand) {
      for (const field of ['args', 'env', 'cwd'] as const)
        if (server[field] !== undefined) bad(field, 'only applies to stdio servers (this one has "url")');
    }
  });

/** A numeric setting of the `toolsearch` section, checked by the adapter's one validator. */
const setting = (name: SettingName) =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      const problem = settingProblem(name, value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional();

/** An environment variable's name, as `${VAR}` expansion and `apiKeyEnv` accept it. */
const ENV_NAME = '[A-Za-z_][A-Za-z0-9_]*';
/** `${VAR}` and `${VAR:-default}`. */
const VAR_REFERENCE = new RegExp(`\\$\\{(${ENV_NAME})(?::-([^}]*))?\\}`, 'g');

/** Our own sub-objects: an unknown key is a typo and an error (listed per key by problemsOf). */
const ownObject = <Shape extends z.core.$ZodLooseShape>(shape: Shape, what: string) =>
  z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? undefined : `must be ${what}`),
  });

/** `toolsearch.learn`: false, or where learned uses live and how often they are re-read. */
const LearnSchema = z.union(
  [
    z.literal(false),
    ownObject(
      {
        store: z
          .string({ error: 'must be a redis:// URL or a file path' })
          .refine((s) => s.trim() !== '', 'must be a redis:// URL or a file path')
          .optional(),
        refreshMs: z
          .int({ error: `must be an integer from 0 to ${MAX_TIMER_MS}` })
          .min(0, `must be an integer from 0 to ${MAX_TIMER_MS}`)
          .max(MAX_TIMER_MS, `must be an integer from 0 to ${MAX_TIMER_MS}`)
          .optional(),
      },
      'false or an object { store?, refreshMs? }',
    ),
  ],
  { error: 'must be false or an object { store?, refreshMs? }' },
);

const positiveInt = z
  .int({ error: 'must be a positive integer' })
  .min(1, 'must be a positive integer')
  .max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS}`);

/** `toolsearch.enrich`: the chat endpoint that writes phrasings. */
const EnrichSchema = ownObject(
  {
    // The library's own check (chatCompletionsUrl), made here so a bad URL stops start-up.
    endpoint: z.string({ error: 'must be an http(s) URL' }).refine((s) => {
      try {
        chatCompletionsUrl(s);
        return true;
      } catch {
        return false;
      }
    }, 'must be an http(s) URL'),
    model: nonEmpty,
    apiKeyEnv: z
      .string({ error: 'must be an environment variable name' })
      .regex(new RegExp(`^${ENV_NAME}$`), 'must be an environment variable name')
      .optional(),
    concurrency: positiveInt.optional(),
    timeoutMs: positiveInt.optional(),
    // mcp.json is often shared or committed: a key in it would leak, so only a variable's name is taken.
    apiKey: z.never({ error: 'is not allowed: name an environment variable in apiKeyEnv' }).optional(),
  },
  'an object { endpoint, model, apiKeyEnv?, concurrency?, timeoutMs? }',
);

/** The `toolsearch` section. It is ours alone, so an unknown key is a typo and an error. */
const SettingsSchema = ownObject(
  {
    alwaysLoaded: z
      .array(z.string({ error: 'must be a tool or toolset name' }), {
        error: 'must be an array of tool or toolset names',
      })
      .optional(),
    maxBoundTools: setting('maxBoundTools'),
    callTimeoutMs: setting('callTimeoutMs'),
    listChangedWindowMs: setting('listChangedWindowMs'),
    sessionIdleTimeoutMs: setting('sessionIdleTimeoutMs'),
    maxSessions: setting('maxSessions'),
    handleKey: z
      .string({ error: 'must be a non-empty string (at least 32 bytes)' })
      .min(1, 'must be a non-empty string (at least 32 bytes)')
      .optional(),
    redactSecrets: z.boolean({ error: 'must be true or false' }).optional(),
    learn: LearnSchema.optional(),
    enrich: EnrichSchema.optional(),
  },
  'an object',
);

/** The keys each of our own objects knows, by its path, for "is not a known setting" (apiKey is refused, not known). */
const KNOWN_KEYS: Record<string, string[]> = {
  toolsearch: Object.keys(SettingsSchema.shape),
  'toolsearch.learn': ['store', 'refreshMs'],
  'toolsearch.enrich': Object.keys(EnrichSchema.shape).filter((key) => key !== 'apiKey'),
};

const ConfigSchema = z.looseObject(
  {
    mcpServers: z.record(
      z
        .string()
        .refine(
          (name) => SERVER_NAME.test(name) && !name.includes('__'),
          'has an invalid server name: use letters, digits, "_", "-", "." and no "__"',
        ),
      ServerSchema,
      { error: 'must be an object mapping server names to configs' },
    ),
    toolsearch: SettingsSchema.optional(),
  },
  { error: 'must be a JSON object with an "mcpServers" object' },
);

/** "mcpServers.gh.args[1]" for the path ["mcpServers", "gh", "args", 1]. */
function fieldOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

function problemsOf(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[] = [],
): ConfigProblem[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    const server = path[0] === 'mcpServers' && path.length > 1 ? String(path[1]) : undefined;
    const at = (where: readonly PropertyKey[], message: string): ConfigProblem => ({
      field: fieldOf(where),
      message,
      ...(server !== undefined ? { server } : {}),
    });
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) =>
        at([...path, key], `is not a known setting (known: ${KNOWN_KEYS[fieldOf(path)]?.join(', ')})`),
      );
    // A bad key of mcpServers: the key schema's own message says what is wrong with the name.
    if (issue.code === 'invalid_key') return [at(path, issue.issues[0]?.message ?? issue.message)];
    // `false or an object`: when the value is of one branch's type (its problems all lie
    // inside it, or are unknown keys), list that branch's problems, not the union's summary.
    if (issue.code === 'invalid_union') {
      const inside = issue.errors.find(
        (branch) =>
          branch.length > 0 && branch.every((i) => i.path.length > 0 || i.code === 'unrecognized_keys'),
      );
      if (inside) return problemsOf(inside, path);
    }
    return [at(path, issue.message)];
  });
}

/** Every problem in one error: the message lists them all, each with its path. */
function configError(origin: string, problems: ConfigProblem[]): AdapterError {
  const lines = problems.map((p) => `${p.field} ${p.message}`);
  const message =
    lines.length === 1
      ? `${origin}: ${lines[0]}`
      : `${origin}: ${lines.length} problems: ${lines.join('; ')}`;
  const first = problems[0];
  return new AdapterError('INVALID_CONFIG', message, {
    origin,
    field: first?.field,
    server: first?.server,
    problems,
  });
}

/**
 * Validates and normalises a parsed mcp.json. `origin` names the source in error
 * messages (usually the file path). `env` feeds `${VAR}` / `${VAR:-default}`
 * expansion in args, env, headers, url and cwd, and `TOOLSEARCH_ALWAYS_LOADED`.
 * Every problem is reported at once, each with its path.
 */
export function parseGatewayConfig(json: unknown, origin: string, env: Env = process.env): GatewayConfig {
  const parsed = ConfigSchema.safeParse(json);
  if (!parsed.success) throw configError(origin, problemsOf(parsed.error.issues));
  const problems: ConfigProblem[] = [];
  const upstreams = Object.entries(parsed.data.mcpServers).map(([name, server]) =>
    expandServer(name, server, env, problems),
  );
  if (problems.length > 0) throw configError(origin, problems);
  const section = parsed.data.toolsearch ?? {};
  const settings: Omit<GatewayConfig, 'upstreams'> = {
    alwaysLoaded: section.alwaysLoaded ?? [],
    maxBoundTools: (section.maxBoundTools as number | undefined) ?? DEFAULT_MAX_BOUND_TOOLS,
    callTimeoutMs: (section.callTimeoutMs as number | undefined) ?? DEFAULT_CALL_TIMEOUT_MS,
  };
  for (const field of ['listChangedWindowMs', 'sessionIdleTimeoutMs', 'maxSessions'] as const) {
    if (section[field] !== undefined) settings[field] = section[field] as number;
  }
  if (section.handleKey !== undefined) settings.handleKey = section.handleKey;
  if (section.redactSecrets !== undefined) settings.redactSecrets = section.redactSecrets;
  if (section.learn !== undefined) settings.learn = section.learn;
  if (section.enrich !== undefined) {
    const { apiKey: _refused, ...enrich } = section.enrich;
    settings.enrich = enrich;
  }
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

/** A validated server entry with `${VAR}`s expanded; unset variables and bad URLs go to `problems`. */
function expandServer(
  name: string,
  server: z.infer<typeof ServerSchema>,
  env: Env,
  problems: ConfigProblem[],
): UpstreamConfig {
  const at = (field: string) => `mcpServers.${name}.${field}`;
  const substituted = new Set<string>();
  const credentials = new Set<string>();
  const expand = (value: string, field: string) =>
    expandVars(
      value,
      env,
      (v) => problems.push({ field: at(field), message: `uses \${${v}}, which is not set`, server: name }),
      substituted,
      credentials,
    );
  const expandMap = (map: Record<string, string>, field: string) =>
    Object.fromEntries(Object.entries(map).map(([key, value]) => [key, expand(value, `${field}.${key}`)]));

  const config: UpstreamConfig = { name };
  if (server.disabled !== undefined) config.disabled = server.disabled;
  if (server.command !== undefined) {
    config.command = server.command;
    if (server.args !== undefined) config.args = server.args.map((arg, i) => expand(arg, `args[${i}]`));
    if (server.env !== undefined) config.env = expandMap(server.env, 'env');
    if (server.cwd !== undefined) config.cwd = expand(server.cwd, 'cwd');
  } else if (server.url !== undefined) {
    const url = expand(server.url, 'url');
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      problems.push({ field: at('url'), message: 'is not a valid URL', server: name });
    }
    if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      problems.push({ field: at('url'), message: 'must be http: or https:', server: name });
    config.url = url;
    if (server.headers !== undefined) config.headers = expandMap(server.headers, 'headers');
  }
  if (substituted.size > 0) config.secrets = [...substituted];
  if (credentials.size > 0) config.credentials = [...credentials];
  return config;
}

/** `${VAR}` and `${VAR:-default}`, as in Claude Code and Cursor configs. */
function expandVars(
  value: string,
  env: Env,
  missing: (name: string) => void,
  substituted: Set<string>,
  credentials: Set<string>,
): string {
  return value.replace(VAR_REFERENCE, (_, name: string, fallback?: string) => {
    const found = env[name];
    if (found !== undefined && found !== '') {
      substituted.add(found);
      if (CREDENTIAL_NAME.test(name)) credentials.add(found);
      return found;
    }
    if (fallback !== undefined) return fallback;
    if (found !== undefined) return found;
    missing(name);
    return '';
  });
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
