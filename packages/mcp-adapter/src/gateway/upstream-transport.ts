/**
 * How the gateway reaches one upstream: a child process over stdio, or a
 * Streamable HTTP endpoint. The child's stderr is split into lines and handed
 * to the caller, never passed through to our stdout.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamConfig } from './config.js';

export type UpstreamTransport = StdioClientTransport | StreamableHTTPClientTransport;

/** A transport for `config`; a stdio child's stderr reaches `onStderrLine` one line at a time. */
export function createTransport(
  config: UpstreamConfig,
  onStderrLine: (line: string) => void,
): UpstreamTransport {
  if (config.url) {
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: { ...config.headers } },
    });
  }
  const transport = new StdioClientTransport({
    command: config.command!,
    args: config.args ?? [],
    ...(config.env ? { env: config.env } : {}),
    ...(config.cwd ? { cwd: config.cwd } : {}),
    stderr: 'pipe',
  });
  let partial = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split(/\r?\n/);
    partial = lines.pop() ?? '';
    for (const line of lines) onStderrLine(line);
  });
  transport.stderr?.on('end', () => {
    if (partial) onStderrLine(partial);
    partial = '';
  });
  return transport;
}

/** Says why a start failed in the words of the failure, not of the SDK's plumbing. */
export function startFailure(err: unknown): string {
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed)
    return 'the process exited during startup';
  if (err instanceof StreamableHTTPError && err.code !== undefined) return `HTTP ${err.code}: ${err.message}`;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'EACCES') return `cannot run the command (${code})`;
  // fetch() hides the network reason (ECONNREFUSED, ENOTFOUND) in `cause`.
  const cause = ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code;
  return cause ? `${(err as Error).message} (${cause})` : (err as Error).message;
}
