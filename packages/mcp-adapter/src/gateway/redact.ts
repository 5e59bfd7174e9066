/**
 * Upstream configs carry secrets (API keys in `env`, bearer tokens in `headers`).
 * Upstreams echo them back in crash messages and stderr, so every text the
 * gateway reports (status errors, call errors, logs) goes through here first.
 */
import type { UpstreamConfig } from './config.js';

export const REDACTED = '***';

/** Values shorter than this are too common ("1", "on") to be worth hiding. */
const MIN_SECRET_LENGTH = 4;

/** Names (env variables, query parameters) that say their value is a credential. */
export const CREDENTIAL_NAME = /token|key|secret|pass|pwd|auth|sig|credential|cookie/i;

/**
 * Replaces every env / header value (length >= 4) of any upstream by "***", and
 * every value `${VAR}` put into the config (UpstreamConfig.secrets).
 */
export function redactSecrets(text: string, configs: readonly UpstreamConfig[]): string {
  let out = text;
  for (const secret of secretValues(configs)) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * The values to hide, longest first so that a secret containing another one is
 * replaced whole. Header values like "Bearer abc" also contribute "abc" alone,
 * since servers often log the bare token.
 */
export function secretValues(configs: readonly UpstreamConfig[]): string[] {
  const found = new Set<string>();
  const add = (value: string) => {
    if (value.length >= MIN_SECRET_LENGTH) found.add(value);
  };
  for (const config of configs) {
    for (const value of Object.values(config.env ?? {})) add(value);
    for (const value of Object.values(config.headers ?? {})) {
      add(value);
      const credential = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1];
      if (credential) add(credential);
    }
    for (const value of config.secrets ?? []) add(value);
    if (config.url) addUrlSecrets(config.url, add);
  }
  return [...found].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}

/**
 * The narrower set hidden in upstream tool definitions and call results (logs and errors
 * hide all of secretValues): header values, URL credentials, and env values and `${VAR}`
 * substitutions whose names say they are credentials. An env value such as a root folder
 * is config, not a secret, and a filesystem server's results must keep showing it.
 */
export function credentialValues(configs: readonly UpstreamConfig[]): string[] {
  const narrowed = configs.map((config) => {
    const { env, secrets: _all, credentials, ...rest } = config;
    const credentialEnv = Object.fromEntries(
      Object.entries(env ?? {}).filter(([k]) => CREDENTIAL_NAME.test(k)),
    );
    return { ...rest, env: credentialEnv, secrets: credentials ?? [] };
  });
  return secretValues(narrowed);
}

/**
 * `value` (JSON: a tool definition, a call result) with every `secrets` occurrence in its
 * strings replaced by "***". Returns the value itself when nothing was found, else a copy.
 */
export function redactJson<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      let out = node;
      for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
      return out;
    }
    if (Array.isArray(node)) {
      let changed = false;
      const items = node.map((item) => {
        const next = walk(item);
        changed ||= next !== item;
        return next;
      });
      return changed ? items : node;
    }
    if (node !== null && typeof node === 'object') {
      let changed = false;
      const entries = Object.entries(node).map(([key, item]) => {
        const next = walk(item);
        changed ||= next !== item;
        return [key, next] as const;
      });
      return changed ? Object.fromEntries(entries) : node;
    }
    return node;
  };
  return walk(value) as T;
}

function addUrlSecrets(url: string, add: (value: string) => void): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return;
  }
  if (parsed.password) {
    add(parsed.password);
    add(decodeURIComponent(parsed.password));
  }
  for (const [key, value] of parsed.searchParams) {
    if (CREDENTIAL_NAME.test(key)) {
      add(value);
      add(encodeURIComponent(value));
    }
  }
}
