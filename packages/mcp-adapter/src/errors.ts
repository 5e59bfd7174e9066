/**
 * Errors the adapter raises itself, as opposed to a tool's own failure
 * (`isError: true` in a CallToolResult, passed through untouched). The string
 * `code` lets callers and tests branch without parsing messages.
 */
export type AdapterErrorCode =
  | 'INVALID_CONFIG' // mcp.json / options are malformed (message names server and field)
  | 'INVALID_ARGUMENTS' // a meta-tool or proxied call got bad arguments (message names the path)
  | 'UNKNOWN_TOOL' // no such tool (message carries did-you-mean suggestions)
  | 'UNKNOWN_TOOLSET' // no such toolset (message carries did-you-mean suggestions)
  | 'NO_TOOLS' // a search with nothing to search: no tool is registered or every upstream is down
  | 'UPSTREAM_DOWN' // the upstream server failed to start or crashed
  | 'UPSTREAM_TIMEOUT' // the upstream did not answer within the call timeout
  | 'UPSTREAM_ERROR' // the upstream answered with a protocol error
  | 'UNAUTHORIZED' // HTTP transport: missing or wrong bearer token
  | 'INVALID_HANDLE' // a conversation handle was forged, altered, expired or oversized (details.reason)
  | 'STORE_ERROR'; // the learned-use store cannot be read, written or reached

export class AdapterError extends Error {
  override readonly name = 'AdapterError';
  readonly code: AdapterErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: AdapterErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message.startsWith('toolsearch-mcp: ') ? message : `toolsearch-mcp: ${message}`);
    this.code = code;
    this.details = details;
  }
}
