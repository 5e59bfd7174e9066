/**
 * Keeping an upstream usable: a down one is restarted on its next use, with
 * exponential backoff between failed attempts and a limit after which restarts
 * stop; a hung one (a call timed out and a ping got no answer) is marked down.
 */
import { PING_TIMEOUT_MS, UPSTREAM_RESTARTS } from '../defaults.js';
import { AdapterError } from '../errors.js';
import type { Upstream, UpstreamState } from './upstream.js';
import type { UpstreamConnection } from './upstream-client.js';

export interface RestartPolicy {
  /** Consecutive failures (crash or failed start) after which restarts stop. */
  maxRestarts: number;
  /** Wait before the second restart attempt, doubled for each further one. */
  backoffMs: number;
}

/** Makes sure the upstream can take a call, restarting it if it is down and its backoff has passed. */
export async function ensureReady(u: Upstream, qualifiedName: string, policy: RestartPolicy): Promise<void> {
  const name = u.config.name;
  if (u.state === 'ready') return;
  if (u.state === 'disabled') {
    throw downError(u, qualifiedName, `upstream "${name}" is disabled in the config`);
  }
  if (u.state === 'crashed' || u.state === 'failed') {
    if (u.failures > policy.maxRestarts) {
      throw downError(
        u,
        qualifiedName,
        `upstream "${name}" is down (${u.error}); gave up after ${u.restarts} restarts`,
      );
    }
    const waitMs = u.downAt + backoffDelay(u.failures, policy.backoffMs) - Date.now();
    if (waitMs > 0) {
      throw downError(
        u,
        qualifiedName,
        `upstream "${name}" is down (${u.error}); next restart in ${Math.ceil(waitMs / 1000)} s`,
      );
    }
    await u.beginRestart();
  }
  await u.connect();
  // connect() changed the state; TS still narrows it to the pre-await value.
  if ((u.state as UpstreamState) !== 'ready') {
    throw downError(u, qualifiedName, `upstream "${name}" is down (${u.error})`);
  }
}

/** No wait for the first restart after a crash; then backoffMs, doubling, capped. */
function backoffDelay(failures: number, backoffMs: number): number {
  if (failures <= 1) return 0;
  return Math.min(backoffMs * 2 ** (failures - 2), UPSTREAM_RESTARTS.maxBackoffMs);
}

/** The UPSTREAM_DOWN error for a call to `tool`, redacted. */
export function downError(u: Upstream, tool: string, message: string): AdapterError {
  return new AdapterError('UPSTREAM_DOWN', u.redact(message), {
    upstream: u.config.name,
    tool,
    state: u.state,
  });
}

/**
 * A timed-out call may be one slow tool or a hung server. A ping tells them
 * apart: a server that does not answer it is marked down (and stopped), so the
 * overview shows it and its next use restarts it.
 */
export async function probe(u: Upstream, connection: UpstreamConnection, generation: number): Promise<void> {
  try {
    await connection.ping(PING_TIMEOUT_MS);
  } catch {
    if (u.isReady(generation)) {
      u.markDown(
        'crashed',
        `not responding: a call timed out and a ping got no answer within ${PING_TIMEOUT_MS} ms`,
      );
    }
  }
}
