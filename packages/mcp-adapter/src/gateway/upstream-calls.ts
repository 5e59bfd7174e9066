/**
 * Forwarding one tools/call to its upstream, with a timeout, and saying what
 * went wrong in the gateway's error codes: cancelled, timed out (and, if the
 * server is hung, marked down), refused by the upstream, or connection lost.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { AdapterError } from '../errors.js';
import type { Upstream } from './upstream.js';
import { classifyFailure } from './upstream-client.js';
import { downError, probe } from './upstream-health.js';

/** Calls `qualifiedName` on a ready upstream and returns the result unchanged (including `isError`). */
export async function callTool(
  upstream: Upstream,
  qualifiedName: string,
  args: Record<string, unknown>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  const tool = upstream.tools.find((t) => t.qualifiedName === qualifiedName);
  if (!tool) throw unknownTool(qualifiedName, upstream);
  const connection = upstream.connection!;
  const generation = upstream.generation;
  try {
    const result = await connection.callTool(tool.name, args, { timeoutMs, ...(signal ? { signal } : {}) });
    upstream.callSucceeded();
    return result as CallToolResult;
  } catch (err) {
    if (classifyFailure(err).kind === 'timeout' && !signal?.aborted) {
      await probe(upstream, connection, generation);
    }
    throw callError(err, upstream, generation, qualifiedName, timeoutMs, signal);
  }
}

function unknownTool(qualifiedName: string, u: Upstream): AdapterError {
  return new AdapterError('UNKNOWN_TOOL', `upstream "${u.config.name}" has no tool "${qualifiedName}"`, {
    tool: qualifiedName,
    upstream: u.config.name,
  });
}

function callError(
  err: unknown,
  u: Upstream,
  generation: number,
  tool: string,
  timeoutMs: number,
  signal?: AbortSignal,
): AdapterError {
  const name = u.config.name;
  const details = { upstream: name, tool };
  if (signal?.aborted) {
    return new AdapterError('UPSTREAM_ERROR', `call to "${tool}" was cancelled`, {
      ...details,
      cancelled: true,
    });
  }
  const failure = classifyFailure(err);
  if (failure.kind === 'timeout') {
    const hung =
      u.state !== 'ready' ? `; upstream "${name}" is not responding and will be restarted on next use` : '';
    return new AdapterError('UPSTREAM_TIMEOUT', `"${tool}" did not answer within ${timeoutMs} ms${hung}`, {
      ...details,
      timeoutMs,
    });
  }
  if (failure.kind === 'refused') {
    return new AdapterError(
      'UPSTREAM_ERROR',
      u.redact(`upstream "${name}" refused "${tool}": ${failure.message}`),
      {
        ...details,
        rpcCode: failure.rpcCode,
      },
    );
  }
  // The connection itself failed: the process died or the HTTP server is unreachable.
  if (u.isReady(generation)) {
    u.markDown('crashed', `connection lost: ${(err as Error).message}${u.stderrHint()}`);
  }
  return downError(
    u,
    tool,
    `upstream "${name}" went down during "${tool}" (${u.error ?? (err as Error).message})`,
  );
}
