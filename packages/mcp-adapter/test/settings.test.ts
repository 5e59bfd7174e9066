/**
 * Where the list_changed window comes from in the gateway: the option (the
 * CLI flag) over mcp.json's toolsearch.listChangedWindowMs over the 2000 ms
 * default. Observed through a client that never re-fetches tools/list.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Gateway } from '../src/index.js';
import { fixtureServer } from './fixtures/servers.js';
import { connectSession, type TestClient } from './gateway-helpers.js';

const FALLBACK = 'Your client does not refresh its tool list';
const open: Array<Gateway | TestClient> = [];
afterAll(async () => {
  for (const item of open.reverse()) await item.close().catch(() => {});
});

async function gatewayWith(fileWindowMs: number | undefined, optionWindowMs?: number): Promise<Gateway> {
  const gateway = await Gateway.start({
    config: {
      upstreams: [fixtureServer('fx')],
      alwaysLoaded: [],
      maxBoundTools: 40,
      callTimeoutMs: 10_000,
      ...(fileWindowMs !== undefined ? { listChangedWindowMs: fileWindowMs } : {}),
    },
    engine: { embedding: false },
    log: () => {},
    ...(optionWindowMs !== undefined ? { listChangedWindowMs: optionWindowMs } : {}),
  });
  open.push(gateway);
  return gateway;
}

/** Loads a tool, lets 150 ms pass without tools/list, loads another: the second answer tells. */
async function secondLoad(gateway: Gateway): Promise<string> {
  const c = await connectSession(gateway);
  open.push(c);
  await c.text('load_toolset', { tools: ['fx__echo'] });
  await new Promise((resolve) => setTimeout(resolve, 150));
  return c.text('load_toolset', { tools: ['fx__fail'] });
}

describe('list_changed window precedence', () => {
  it("uses mcp.json's listChangedWindowMs when no option is given", async () => {
    expect(await secondLoad(await gatewayWith(40))).toContain(FALLBACK);
  });

  it('lets the option (the --list-changed-window flag) override mcp.json', async () => {
    expect(await secondLoad(await gatewayWith(40, 60_000))).not.toContain(FALLBACK);
    expect(await secondLoad(await gatewayWith(60_000, 40))).toContain(FALLBACK);
  });

  it('falls back to the 2000 ms default when neither sets it', async () => {
    expect(await secondLoad(await gatewayWith(undefined))).not.toContain(FALLBACK);
  });
});
