/**
 * Settings the CLI takes both as flags and from mcp.json's `toolsearch`
 * section. Precedence: flag > mcp.json > default (the default is applied
 * downstream, by `Gateway` and `serveHttp`, when neither is set).
 */

import { MAX_TIMER_MS } from './defaults.js';
import { AdapterError } from './errors.js';
import type { GatewayConfig } from './gateway/config.js';

export interface SettingFlags {
  'list-changed-window'?: string | undefined;
  'session-idle-timeout'?: string | undefined;
  'max-sessions'?: string | undefined;
}

export interface ResolvedSettings {
  listChangedWindowMs?: number;
  sessionIdleTimeoutMs?: number;
  maxSessions?: number;
}

export function resolveSettings(flags: SettingFlags, config: GatewayConfig): ResolvedSettings {
  const out: ResolvedSettings = {};
  const window =
    flags['list-changed-window'] !== undefined
      ? positiveInt('--list-changed-window', flags['list-changed-window'], false, MAX_TIMER_MS)
      : config.listChangedWindowMs;
  if (window !== undefined) out.listChangedWindowMs = window;
  const idle =
    flags['session-idle-timeout'] !== undefined
      ? positiveInt(
          '--session-idle-timeout',
          flags['session-idle-timeout'],
          false,
          Math.floor(MAX_TIMER_MS / 1000),
        ) * 1000
      : config.sessionIdleTimeoutMs;
  if (idle !== undefined) out.sessionIdleTimeoutMs = idle;
  const max =
    flags['max-sessions'] !== undefined
      ? positiveInt('--max-sessions', flags['max-sessions'])
      : config.maxSessions;
  if (max !== undefined) out.maxSessions = max;
  return out;
}

/** Parses a flag value as an integer >= 1 (>= 0 with allowZero), naming the flag when it is not. */
export function positiveInt(
  flag: string,
  value: string,
  allowZero = false,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1))
    throw new AdapterError(
      'INVALID_CONFIG',
      `${flag} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got "${value}"`,
      { field: flag },
    );
  if (n > max)
    throw new AdapterError('INVALID_CONFIG', `${flag} must be at most ${max}, got "${value}"`, {
      field: flag,
    });
  return n;
}
