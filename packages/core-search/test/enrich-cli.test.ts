/** `toolsearch enrich`, spawned for real against the fake chat endpoint on 127.0.0.1. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeChat, startFakeChat } from './fake-chat.js';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const KEY = 'sk-cli-secret-123';

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=toolsearch-source', CLI, ...args],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, OPENAI_API_KEY: '', ...env },
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

let chat: FakeChat;
let dir: string;
beforeAll(async () => {
  chat = await startFakeChat();
  dir = mkdtempSync(join(tmpdir(), 'toolsearch-enrich-cli-'));
});
afterAll(async () => {
  await chat?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('toolsearch enrich', () => {
  it('writes the tools back with phrasings, reads the key from the environment only, and reuses its cache', async () => {
    const tools = join(dir, 'tools.json');
    writeFileSync(
      tools,
      JSON.stringify([
        {
          name: 'db__rename_collection',
          description: 'Rename a collection.',
          phrasings: ['rename my table'],
        },
        { name: 'browser__press_key', description: 'Press a key on the keyboard.' },
      ]),
    );
    const out = join(dir, 'out.json');
    const env = { XDG_CACHE_HOME: join(dir, 'cache'), TOOLSEARCH_ENRICH_API_KEY: KEY };
    const args = ['enrich', '--tools', tools, '--endpoint', chat.url, '--model', 'fake', '--out', out];
    const first = await run(args, env);
    expect(first.code).toBe(0);
    const written = JSON.parse(readFileSync(out, 'utf8')) as { name: string; phrasings: string[] }[];
    expect(written.map((t) => t.name)).toEqual(['db__rename_collection', 'browser__press_key']);
    expect(written[0]?.phrasings[0]).toBe('rename my table'); // the tool's own come first
    expect(written[1]?.phrasings.length).toBeGreaterThanOrEqual(8);
    expect(first.stderr).toMatch(/enrich/);
    expect(first.stderr).toContain('2/2 tools have phrasings (0 from the cache, 2 asked)');
    expect(first.stderr).not.toContain(KEY);
    expect(chat.authorizations).toContain(`Bearer ${KEY}`);

    const asked = chat.requests.get('browser__press_key');
    const second = await run(args, env);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('(2 from the cache, 0 asked)');
    expect(chat.requests.get('browser__press_key')).toBe(asked);
  });

  it('takes no key as a flag, and exits 1 naming a tool that failed', async () => {
    const tools = join(dir, 'broken.json');
    writeFileSync(
      tools,
      JSON.stringify([
        { name: 'broken_tool', description: 'x' },
        { name: 'ok_tool', description: 'y' },
      ]),
    );
    const flag = await run(
      ['enrich', '--tools', tools, '--endpoint', chat.url, '--model', 'm', '--api-key', KEY],
      {},
    );
    expect(flag.code).toBe(2);
    const failed = await run(
      [
        'enrich',
        '--tools',
        tools,
        '--endpoint',
        chat.url,
        '--model',
        'm',
        '--retries',
        '0',
        '--no-cache',
        '--out',
        join(dir, 'o.json'),
      ],
      {},
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/broken_tool: .*\[ENRICH_BAD_ANSWER\]/);
    expect(failed.stderr).toContain('1/2 tools have phrasings');
    const missing = await run(['enrich', '--tools', tools, '--model', 'm'], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--endpoint is required');
  });
});
