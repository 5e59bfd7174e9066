/**
 * Start-up enrichment: the gateway asks a chat endpoint (a fake on 127.0.0.1)
 * for phrasings of its upstream tools in the background. Search answers at
 * once, before any phrasing arrived; phrasings apply as they come; a restart
 * is served from the cache.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gateway } from '../src/index.js';
import { fixtureServer } from './fixtures/servers.js';
import { connectSession } from './gateway-helpers.js';

/** A chat endpoint that holds every answer until release(), and counts requests. */
let server: Server;
let url: string;
const held: (() => void)[] = [];
let hold = true;
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res: ServerResponse) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      requests++;
      const tool = /Tool: ([\w.-]+)/.exec(body)?.[1] ?? '?';
      const content = JSON.stringify(Array.from({ length: 9 }, (_, i) => `get ${tool} to do thing ${i}`));
      const send = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { content } }] }));
      };
      if (hold) held.push(send);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('gateway start-up enrichment', () => {
  it('never delays start-up or search, applies phrasings as they arrive, and caches them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolsearch-gw-enrich-'));
    const lines: string[] = [];
    const start = () =>
      Gateway.start({
        config: {
          upstreams: [fixtureServer('fixture')],
          alwaysLoaded: [],
          maxBoundTools: 40,
          callTimeoutMs: 20_000,
          enrich: { endpoint: url, model: 'fake', concurrency: 2 },
        },
        engine: { embedding: false },
        learn: false,
        enrichCacheDir: dir,
        // The restart below serves the index of the first start before listing: enrichment follows the listing.
        indexCache: { dir: join(dir, 'indexes') },
        env: {},
        log: (l) => lines.push(l),
      });
    try {
      const gateway = await start();
      const c = await connectSession(gateway);
      // Every answer is still held: search works, with no phrasing yet.
      expect(await c.text('search_tools', { query: 'echo text', limit: 1 })).toContain('fixture__echo');
      expect(gateway.catalog.phrasingsOf('fixture__echo')).toEqual([]);
      await expect.poll(() => held.length, { timeout: 10_000 }).toBeGreaterThan(0);
      hold = false;
      for (const send of held.splice(0)) send();
      await gateway.enrichmentSettled();
      // Sent as the upstream names the tool (echo), applied under the gateway's name.
      expect(gateway.catalog.phrasingsOf('fixture__echo')).toContain('get echo to do thing 0');
      const detail = await c.text('search_tools', { query: 'echo text', limit: 1, detail: true });
      expect(detail).toContain('"get echo to do thing 0"');
      expect(lines.some((l) => /enriched 8\/8 tools of fixture \(0 cached\)/.test(l))).toBe(true);
      await c.close();
      await gateway.close();

      // A restart asks nothing: the cache has every tool.
      const asked = requests;
      const again = await start();
      await again.enrichmentSettled();
      expect(requests).toBe(asked);
      expect(again.catalog.phrasingsOf('fixture__whoami')).toContain('get whoami to do thing 1');
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
