/**
 * A fake OpenAI-compatible chat endpoint on 127.0.0.1 for the enrich tests.
 * How it answers depends on the tool named in the prompt: "slow*" stalls the
 * first request, "flaky500*" fails the first with HTTP 500, "garbled*" answers
 * the first without a JSON array, "broken*" never answers well, "huge*" sends
 * an oversized answer; anything else gets ten phrasings at once.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeChat {
  url: string;
  /** Requests per tool name. */
  requests: Map<string, number>;
  /** Most requests in flight at once since the start or the last resetMax(). */
  maxInFlight(): number;
  resetMax(): void;
  /** Authorization headers seen. */
  authorizations: string[];
  close(): Promise<void>;
}

const answer = (content: string) =>
  JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] });

export async function startFakeChat(stallMs = 2_000): Promise<FakeChat> {
  const requests = new Map<string, number>();
  const authorizations: string[] = [];
  let inFlight = 0;
  let most = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      inFlight++;
      most = Math.max(most, inFlight);
      // A request the client gave up on (its timeout) is no longer in flight.
      let open = true;
      const finish = () => {
        if (open) inFlight--;
        open = false;
      };
      res.once('close', finish);
      authorizations.push(req.headers.authorization ?? '');
      const json = JSON.parse(body) as { messages: { content: string }[] };
      const tool = /Tool: (\S+)/.exec(json.messages.at(-1)?.content ?? '')?.[1] ?? '?';
      const n = (requests.get(tool) ?? 0) + 1;
      requests.set(tool, n);
      const reply = (status: number, text: string, delay = 5) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          finish();
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(text);
        }, delay);
        timers.add(timer);
      };
      const words = tool.replace(/_/g, ' ');
      const good = answer(
        `Here you go:\n\`\`\`json\n${JSON.stringify(Array.from({ length: 10 }, (_, i) => `please ${words} for me, case ${i}`))}\n\`\`\``,
      );
      if (tool.startsWith('slow') && n === 1) return reply(200, good, stallMs);
      if (tool.startsWith('flaky500') && n === 1) return reply(500, '{"error":"boom"}');
      if (tool.startsWith('garbled') && n === 1)
        return reply(200, answer('Sure! I think it could be used to do things.'));
      if (tool.startsWith('broken')) return reply(200, answer('["too", "few"]'));
      if (tool.startsWith('huge')) return reply(200, answer(JSON.stringify(['x'.repeat(300_000)])));
      return reply(200, good);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    maxInFlight: () => most,
    resetMax: () => {
      most = 0;
    },
    close: () =>
      new Promise((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
