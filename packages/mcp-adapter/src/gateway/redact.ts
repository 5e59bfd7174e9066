/**
 * Upstream configs carry secrets (API keys in `env`, bearer tokens in `headers`).
 * Upstreams echo them back in crash messages and stderr, so every text the
 * gateway reports (status errors, call errors, logs) goes through here first.
 */
import type { UpstreamConfig } from './config.js';

export const REDACTED = '***';

/** Values shorter than this are too common ("1", "on") to be worth hiding. */
const MIN_SECRET_LENGTH = 4;

/** Query parameters whose names say they carry a credential. */
const SECRET_PARAM = /token|key|secret|pass|auth|sig|credential/i;

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
    if (SECRET_PARAM.test(key)) {
      add(value);
      add(encodeURIComponent(value));
    }
  }
}
