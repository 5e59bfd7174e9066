/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about mcp.json's ${VAR} syntax */
/**
 * mcp.json parsing: the mcpServers format of Claude Desktop / Cursor, our
 * `toolsearch` section, ${VAR} expansion, TOOLSEARCH_ALWAYS_LOADED, and errors
 * that name the server and the field. Also secret redaction.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../src/cli-settings.js';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MAX_BOUND_TOOLS } from '../src/defaults.js';
import { AdapterError } from '../src/errors.js';
import { parseGatewayConfig, readGatewayConfig } from '../src/gateway/config.js';
import { REDACTED, redactSecrets } from '../src/gateway/redact.js';

const dir = mkdtempSync(join(tmpdir(), 'toolsearch-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function parseError(json: unknown, env: NodeJS.ProcessEnv = {}): AdapterError {
  try {
    parseGatewayConfig(json, 'mcp.json', env);
  } catch (err) {
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as AdapterError).code).toBe('INVALID_CONFIG');
    return err as AdapterError;
  }
  throw new Error('expected parseGatewayConfig to throw');
}

describe('parseGatewayConfig', () => {
  it('reads stdio and HTTP servers in config order, with defaults', () => {
    const config = parseGatewayConfig(
      {
        mcpServers: {
          github: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-github'],
            env: { TOKEN: 'abc' },
          },
          remote: { url: 'https://mcp.example.com/mcp', headers: { 'X-Key': 'k1' } },
          old: { command: 'old-server', disabled: true, autoApprove: ['x'] },
        },
      },
      'mcp.json',
      {},
    );
    expect(config).toEqual({
      upstreams: [
        {
          name: 'github',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          env: { TOKEN: 'abc' },
        },
        { name: 'remote', url: 'https://mcp.example.com/mcp', headers: { 'X-Key': 'k1' } },
        { name: 'old', command: 'old-server', disabled: true },
      ],
      alwaysLoaded: [],
      maxBoundTools: DEFAULT_MAX_BOUND_TOOLS,
      callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
    });
    expect(DEFAULT_MAX_BOUND_TOOLS).toBe(40);
  });

  it('reads the toolsearch section and merges TOOLSEARCH_ALWAYS_LOADED without duplicates', () => {
    const config = parseGatewayConfig(
      {
        mcpServers: {},
        toolsearch: {
          alwaysLoaded: ['github__search_issues', 'memory'],
          maxBoundTools: 12,
          callTimeoutMs: 5000,
        },
      },
      'mcp.json',
      { TOOLSEARCH_ALWAYS_LOADED: ' memory, filesystem__read_text_file ,,' },
    );
    expect(config.alwaysLoaded).toEqual(['github__search_issues', 'memory', 'filesystem__read_text_file']);
    expect(config.maxBoundTools).toBe(12);
    expect(config.callTimeoutMs).toBe(5000);
  });

  it('reads listChangedWindowMs, sessionIdleTimeoutMs and maxSessions, and leaves them unset when absent', () => {
    const config = parseGatewayConfig(
      {
        mcpServers: {},
        toolsearch: { listChangedWindowMs: 750, sessionIdleTimeoutMs: 120_000, maxSessions: 8 },
      },
      'mcp.json',
      {},
    );
    expect(config).toMatchObject({ listChangedWindowMs: 750, sessionIdleTimeoutMs: 120_000, maxSessions: 8 });
    const bare = parseGatewayConfig({ mcpServers: {}, toolsearch: {} }, 'mcp.json', {});
    expect('listChangedWindowMs' in bare || 'sessionIdleTimeoutMs' in bare || 'maxSessions' in bare).toBe(
      false,
    );
  });

  it('names the field, the bad value and the known settings in the error', () => {
    expect(parseError({ mcpServers: {}, toolsearch: { sessionIdleTimeoutMs: 'soon' } }).message).toBe(
      'toolsearch-mcp: mcp.json: toolsearch.sessionIdleTimeoutMs must be a positive integer, got "soon"',
    );
    const unknown = parseError({ mcpServers: {}, toolsearch: { sessionTimeout: 5 } });
    expect(unknown.message).toContain('toolsearch.sessionTimeout is not a known setting');
    expect(unknown.message).toContain('sessionIdleTimeoutMs');
    expect(unknown.details).toMatchObject({ field: 'toolsearch.sessionTimeout' });
  });

  it('expands ${VAR} and ${VAR:-default} in args, env, headers and url', () => {
    const config = parseGatewayConfig(
      {
        mcpServers: {
          fs: {
            command: 'fs-server',
            args: ['${HOME_DIR}/docs', '--mode=${MODE:-ro}'],
            env: { KEY: 'k-${API_KEY}' },
          },
          web: { url: 'http://${HOST:-127.0.0.1}:8080/mcp', headers: { Authorization: 'Bearer ${API_KEY}' } },
        },
      },
      'mcp.json',
      { HOME_DIR: '/home/ada', API_KEY: 'secret42' },
    );
    expect(config.upstreams[0]).toMatchObject({
      args: ['/home/ada/docs', '--mode=ro'],
      env: { KEY: 'k-secret42' },
    });
    expect(config.upstreams[1]).toMatchObject({
      url: 'http://127.0.0.1:8080/mcp',
      headers: { Authorization: 'Bearer secret42' },
    });
    // Substituted values are remembered for redaction; defaults are not secrets.
    expect(config.upstreams[0]?.secrets).toEqual(['/home/ada', 'secret42']);
    expect(config.upstreams[1]?.secrets).toEqual(['secret42']);
  });

  it('accepts the type field other clients write', () => {
    const config = parseGatewayConfig(
      {
        mcpServers: {
          a: { type: 'stdio', command: 'a' },
          b: { type: 'streamable-http', url: 'http://localhost/mcp' },
        },
      },
      'mcp.json',
      {},
    );
    expect(config.upstreams.map((u) => u.name)).toEqual(['a', 'b']);
  });

  it.each([
    [null, '(root)'],
    [{}, 'mcpServers'],
    [{ mcpServers: [] }, 'mcpServers'],
    [{ mcpServers: { gh: 'npx' } }, 'mcpServers.gh'],
    [{ mcpServers: { gh: {} } }, 'mcpServers.gh needs "command"'],
    [{ mcpServers: { gh: { command: 'x', url: 'http://x' } } }, 'mcpServers.gh has both'],
    [{ mcpServers: { gh: { command: 42 } } }, 'mcpServers.gh.command'],
    [{ mcpServers: { gh: { command: 'x', args: '--flag' } } }, 'mcpServers.gh.args'],
    [{ mcpServers: { gh: { command: 'x', args: ['ok', 3] } } }, 'mcpServers.gh.args[1]'],
    [{ mcpServers: { gh: { command: 'x', env: { TOKEN: 123 } } } }, 'mcpServers.gh.env.TOKEN'],
    [{ mcpServers: { gh: { command: 'x', headers: { A: 'b' } } } }, 'mcpServers.gh.headers'],
    [{ mcpServers: { gh: { command: 'x', disabled: 'yes' } } }, 'mcpServers.gh.disabled'],
    [{ mcpServers: { web: { url: 'not a url' } } }, 'mcpServers.web.url'],
    [{ mcpServers: { web: { url: 'ftp://host/x' } } }, 'mcpServers.web.url'],
    [{ mcpServers: { web: { url: 'http://h/mcp', env: { A: 'b' } } } }, 'mcpServers.web.env'],
    [{ mcpServers: { web: { url: 'http://h/mcp', type: 'sse' } } }, 'mcpServers.web.type'],
    [{ mcpServers: { web: { url: 'http://h/mcp', type: 'stdio' } } }, 'mcpServers.web.command'],
    [{ mcpServers: { 'my server': { command: 'x' } } }, 'mcpServers.my server'],
    [{ mcpServers: { a__b: { command: 'x' } } }, 'mcpServers.a__b'],
    [{ mcpServers: {}, toolsearch: { maxBoundTools: 0 } }, 'toolsearch.maxBoundTools'],
    [{ mcpServers: {}, toolsearch: { callTimeoutMs: 1.5 } }, 'toolsearch.callTimeoutMs'],
    [{ mcpServers: {}, toolsearch: { alwaysLoaded: 'memory' } }, 'toolsearch.alwaysLoaded'],
    [{ mcpServers: {}, toolsearch: [] }, 'toolsearch'],
    [{ mcpServers: {}, toolsearch: { listChangedWindowMs: '2000' } }, 'toolsearch.listChangedWindowMs'],
    [{ mcpServers: {}, toolsearch: { listChangedWindowMs: -1 } }, 'toolsearch.listChangedWindowMs'],
    [{ mcpServers: {}, toolsearch: { sessionIdleTimeoutMs: 0 } }, 'toolsearch.sessionIdleTimeoutMs'],
    [{ mcpServers: {}, toolsearch: { sessionIdleTimeoutMs: null } }, 'toolsearch.sessionIdleTimeoutMs'],
    [{ mcpServers: {}, toolsearch: { sessionIdleTimeoutMs: 2 ** 31 } }, 'toolsearch.sessionIdleTimeoutMs'],
    [{ mcpServers: {}, toolsearch: { maxSessions: 2.5 } }, 'toolsearch.maxSessions'],
    [
      { mcpServers: {}, toolsearch: { listChangedWindow: 500 } },
      'toolsearch.listChangedWindow is not a known',
    ],
  ])('rejects %j naming %s', (json, where) => {
    const err = parseError(json);
    expect(err.message).toContain(`toolsearch-mcp: mcp.json: ${where}`);
  });

  it('lists every problem at once, each with its path', () => {
    const err = parseError({
      mcpServers: {
        gh: { command: 'gh', args: ['ok', 3], disabled: 'yes' },
        web: { url: 'http://h/mcp', env: { A: 'b' } },
        'bad name': { command: 'x' },
      },
      toolsearch: { maxSessions: 0, colour: 'red' },
    });
    expect(err.details.problems).toEqual([
      { field: 'mcpServers.gh.disabled', message: 'must be true or false', server: 'gh' },
      { field: 'mcpServers.gh.args[1]', message: 'must be a string', server: 'gh' },
      {
        field: 'mcpServers.web.env',
        message: 'only applies to stdio servers (this one has "url")',
        server: 'web',
      },
      {
        field: 'mcpServers.bad name',
        message: 'has an invalid server name: use letters, digits, "_", "-", "." and no "__"',
        server: 'bad name',
      },
      { field: 'toolsearch.maxSessions', message: 'must be a positive integer, got 0' },
      { field: 'toolsearch.colour', message: expect.stringContaining('is not a known setting (known: ') },
    ]);
    expect(err.message).toMatch(/^toolsearch-mcp: mcp\.json: 6 problems: mcpServers\.gh\.disabled must be/);
    expect(err.message).toContain('; toolsearch.maxSessions must be a positive integer, got 0; ');
  });

  it('names the server and field of an unset variable, in the message and details', () => {
    const err = parseError({
      mcpServers: { github: { command: 'gh', env: { GITHUB_TOKEN: '${GH_TOKEN}' } } },
    });
    expect(err.message).toBe(
      'toolsearch-mcp: mcp.json: mcpServers.github.env.GITHUB_TOKEN uses ${GH_TOKEN}, which is not set',
    );
    expect(err.details).toMatchObject({ server: 'github', field: 'mcpServers.github.env.GITHUB_TOKEN' });
  });
});

describe('readGatewayConfig', () => {
  it('reads a file and resolves a relative cwd against its folder', async () => {
    const path = join(dir, 'mcp.json');
    writeFileSync(
      path,
      JSON.stringify({ mcpServers: { local: { command: 'node', args: ['s.js'], cwd: 'servers' } } }),
    );
    const config = await readGatewayConfig(path, {});
    expect(config.upstreams[0]?.cwd).toBe(join(dir, 'servers'));
  });

  it('reports a missing file and invalid JSON as INVALID_CONFIG naming the path', async () => {
    const missing = join(dir, 'nope.json');
    await expect(readGatewayConfig(missing, {})).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringContaining(`cannot read config file ${missing} (ENOENT)`),
    });
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "mcpServers": { ');
    await expect(readGatewayConfig(broken, {})).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringContaining(`${broken} is not valid JSON`),
    });
  });

  it('names the file in field errors', async () => {
    const path = join(dir, 'bad-field.json');
    writeFileSync(path, JSON.stringify({ mcpServers: { gh: { command: 'x', args: [1] } } }));
    await expect(readGatewayConfig(path, {})).rejects.toThrow(
      `${path}: mcpServers.gh.args[0] must be a string`,
    );
  });
});

describe('redactSecrets', () => {
  const configs = [
    { name: 'gh', command: 'gh', env: { GITHUB_TOKEN: 'ghp_abcdef123456', DEBUG: '1', LEVEL: 'info' } },
    {
      name: 'web',
      url: 'https://user:p%40ssw0rd@mcp.example.com/mcp?api_key=key-777888&format=json',
      headers: { Authorization: 'Bearer tok-xyz-987' },
    },
  ];

  it('replaces env and header values, and the bare token of "Bearer <token>"', () => {
    const text =
      'failed with ghp_abcdef123456; sent "Authorization: Bearer tok-xyz-987"; token tok-xyz-987 rejected';
    expect(redactSecrets(text, configs)).toBe(
      `failed with ${REDACTED}; sent "Authorization: ${REDACTED}"; token ${REDACTED} rejected`,
    );
  });

  it('replaces URL passwords and credential query parameters, not other parts of the URL', () => {
    const out = redactSecrets(
      'GET https://user:p%40ssw0rd@mcp.example.com/mcp?api_key=key-777888&format=json',
      configs,
    );
    expect(out).not.toContain('p%40ssw0rd');
    expect(out).not.toContain('key-777888');
    expect(out).toContain('format=json');
    expect(out).toContain('mcp.example.com');
  });

  it('hides values that ${VAR} substituted into args', () => {
    const config = parseGatewayConfig(
      {
        mcpServers: {
          cli: { command: 'srv', args: ['--api-key', '${KEY}'], env: { WRAPPED: 'x-${KEY}-y' } },
        },
      },
      'mcp.json',
      { KEY: 'raw-key-5566' },
    );
    expect(redactSecrets('started with --api-key raw-key-5566', config.upstreams)).toBe(
      `started with --api-key ${REDACTED}`,
    );
  });

  it('leaves values shorter than 4 characters alone but hides longer ones', () => {
    expect(redactSecrets('DEBUG=1 LEVEL=info', configs)).toBe(`DEBUG=1 LEVEL=${REDACTED}`);
  });

  it('returns text without secrets unchanged', () => {
    expect(redactSecrets('all good here', configs)).toBe('all good here');
    expect(redactSecrets('ghp_abcdef123456', [])).toBe('ghp_abcdef123456');
  });
});

describe('resolveSettings (CLI flag > mcp.json > default)', () => {
  const file = parseGatewayConfig(
    {
      mcpServers: {},
      toolsearch: { listChangedWindowMs: 750, sessionIdleTimeoutMs: 120_000, maxSessions: 8 },
    },
    'mcp.json',
    {},
  );
  const bare = parseGatewayConfig({ mcpServers: {} }, 'mcp.json', {});

  it('takes mcp.json values when no flag is given, and nothing (the defaults) when neither is', () => {
    expect(resolveSettings({}, file)).toEqual({
      listChangedWindowMs: 750,
      sessionIdleTimeoutMs: 120_000,
      maxSessions: 8,
    });
    expect(resolveSettings({}, bare)).toEqual({});
  });

  it('lets flags override the file; --session-idle-timeout is in seconds', () => {
    expect(
      resolveSettings(
        { 'list-changed-window': '5000', 'session-idle-timeout': '90', 'max-sessions': '2' },
        file,
      ),
    ).toEqual({ listChangedWindowMs: 5000, sessionIdleTimeoutMs: 90_000, maxSessions: 2 });
  });

  it.each([
    ['session-idle-timeout', '0'],
    ['session-idle-timeout', '-3'],
    ['session-idle-timeout', 'abc'],
    ['session-idle-timeout', ''],
    ['session-idle-timeout', '1.5'],
    ['session-idle-timeout', '9999999'],
    ['list-changed-window', 'soon'],
    ['max-sessions', '0'],
  ])('rejects --%s %j as INVALID_CONFIG naming the flag', (flag, value) => {
    let err: unknown;
    try {
      resolveSettings({ [flag]: value }, bare);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as AdapterError).code).toBe('INVALID_CONFIG');
    expect((err as AdapterError).message).toContain(`--${flag} must be`);
  });
});
