/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: mcp.json configs use the ${VAR} syntax */
// Upstream credentials are hidden from the model too: in tool definitions and call results
// (issue 9, finding 8), not only in logs and errors; toolsearch.redactSecrets: false opts out.
import { afterAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../src/gateway/config.js';
import { credentialValues, redactJson } from '../src/gateway/redact.js';
import { Gateway } from '../src/index.js';
import { fixtureServer } from './fixtures/servers.js';
import { connectSession, type TestClient, textOf } from './gateway-helpers.js';

const SECRET = 'sk-live-redact-me-5678';
const FOLDER = '/srv/projects/demo';
const open: { gateway: Gateway; client: TestClient }[] = [];

afterAll(async () => {
  for (const { gateway, client } of open) {
    await client.close();
    await gateway.close();
  }
});

async function start(redactSecrets?: boolean) {
  const gateway = await Gateway.start({
    config: {
      upstreams: [
        fixtureServer('leaky', ['--describe-secret'], { FIXTURE_SECRET: SECRET, WORK_DIR: FOLDER }),
      ],
      alwaysLoaded: [],
      maxBoundTools: 40,
      callTimeoutMs: 5000,
      ...(redactSecrets === undefined ? {} : { redactSecrets }),
    },
    engine: { embedding: false },
    log: () => {},
  });
  const client = await connectSession(gateway);
  open.push({ gateway, client });
  return { gateway, client };
}

describe('credentials in definitions and results', () => {
  it('are replaced by *** by default; other config values (a folder) are left alone', async () => {
    const { gateway, client } = await start();
    const description = gateway.catalog.get('leaky__whoami')?.definition.description;
    expect(description).toContain('Key: ***.');
    expect(description).not.toContain(SECRET);
    expect(await client.text('search_tools', { query: 'pid and argv' })).not.toContain(SECRET);
    const echoed = await client.call('leaky__echo', { text: `using ${SECRET} in ${FOLDER}` });
    expect(textOf(echoed)).toBe(`using *** in ${FOLDER}`);
  });

  it('pass through untouched with toolsearch.redactSecrets: false', async () => {
    const { gateway, client } = await start(false);
    expect(gateway.catalog.get('leaky__whoami')?.definition.description).toContain(SECRET);
    expect(textOf(await client.call('leaky__echo', { text: SECRET }))).toBe(SECRET);
  });

  it('the setting is read from mcp.json and checked', () => {
    const base = { mcpServers: { a: { command: 'x' } } };
    expect(
      parseGatewayConfig({ ...base, toolsearch: { redactSecrets: false } }, 'mcp.json').redactSecrets,
    ).toBe(false);
    expect(() => parseGatewayConfig({ ...base, toolsearch: { redactSecrets: 'no' } }, 'mcp.json')).toThrow(
      /toolsearch.redactSecrets must be true or false/,
    );
  });

  it('credentials are headers, URL credentials, and env values and ${VAR}s named like credentials', () => {
    const config = parseGatewayConfig(
      {
        mcpServers: {
          s: {
            command: 'x',
            args: ['--key', '${MY_API_KEY}', '${HOME_DIR}'],
            env: { ROOT: '/data/x', GH_TOKEN: 'ghp_123456' },
          },
          h: {
            url: 'https://u:hunter22@example.test/mcp?sig=abcdef',
            headers: { Authorization: 'Bearer tok_abcdef' },
          },
        },
      },
      'mcp.json',
      { MY_API_KEY: 'key_987654', HOME_DIR: '/home/someone' },
    );
    const values = credentialValues(config.upstreams);
    for (const secret of [
      'key_987654',
      'ghp_123456',
      'hunter22',
      'abcdef',
      'tok_abcdef',
      'Bearer tok_abcdef',
    ])
      expect(values).toContain(secret);
    expect(values).not.toContain('/data/x');
    expect(values).not.toContain('/home/someone');
    const result = { content: [{ type: 'text', text: 'ghp_123456 at /data/x' }], isError: false };
    expect(redactJson(result, values)).toEqual({
      content: [{ type: 'text', text: '*** at /data/x' }],
      isError: false,
    });
    expect(redactJson(result, [])).toBe(result);
  });
});
