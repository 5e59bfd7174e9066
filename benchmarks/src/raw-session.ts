/**
 * A minimal 2025-era MCP client over raw HTTP (bench:fuzz): enough to open a session and
 * call search_tools, each call timed from the first byte sent to the last received.
 */
import { request } from 'node:http';

export class RawSession {
  private id = '';
  private seq = 0;
  constructor(private readonly url: string) {}

  async open(): Promise<void> {
    const init = await this.post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: ++this.seq,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'bench', version: '1' },
        },
      }),
    );
    this.id = init.sessionId;
    await this.post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  }

  /** The call's time in ms; the request body is built before the clock starts. */
  async search(query: string): Promise<number> {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: ++this.seq,
      method: 'tools/call',
      params: { name: 'search_tools', arguments: { query } },
    });
    const start = performance.now();
    const answer = await this.post(body);
    const ms = performance.now() - start;
    if (!answer.body.includes('"result"')) throw new Error(`search failed: ${answer.body.slice(0, 200)}`);
    return ms;
  }

  private post(body: string): Promise<{ sessionId: string; body: string }> {
    return new Promise((resolvePost, reject) => {
      const req = request(this.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(this.id ? { 'Mcp-Session-Id': this.id, 'Mcp-Protocol-Version': '2025-06-18' } : {}),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolvePost({ sessionId: String(res.headers['mcp-session-id'] ?? ''), body: text }),
        );
      });
      req.on('error', reject);
      req.end(body);
    });
  }
}
