/**
 * Raw HTTP for the gateway's transport tests: what an SDK client would never send (any
 * Host, Origin or body bytes; fetch forbids setting Host), one request at a time.
 */
import { type IncomingHttpHeaders, request } from 'node:http';

/** The JSON-RPC initialize a 2025-era client sends first. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

export interface RawResponse {
  status: number;
  body: string;
  headers: IncomingHttpHeaders;
}

/**
 * One request with the MCP content headers (overridable) and `body` sent as given. A
 * connection of its own (agent: false), so an aborted upload cannot taint the next request.
 * Rejects when the server drops the connection.
 */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      agent: false,
      method,
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...headers,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
