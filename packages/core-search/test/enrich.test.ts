import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletionsUrl, enrichTools, ToolSearchError } from '../src/index.js';
import { parseAnswer } from '../src/internals.js';
import { type FakeChat, startFakeChat } from './fake-chat.js';

let chat: FakeChat;
let dir: string;
beforeAll(async () => {
  chat = await startFakeChat(10_000);
  dir = await mkdtemp(join(tmpdir(), 'toolsearch-enrich-'));
});
afterAll(async () => {
  await chat?.close();
  await rm(dir, { recursive: true, force: true });
});

const tool = (name: string) => ({ name, description: `Does ${name.replace(/_/g, ' ')}.` });
const fast = { retries: 2, backoffMs: 1 };

describe('enrichTools against a fake endpoint on 127.0.0.1', () => {
  it('writes 8-12 phrasings per tool, sends the key as a bearer token, and caches by content', async () => {
    const cacheDir = join(dir, 'a');
    const done: string[] = [];
    const tools = [tool('rename_collection'), tool('press_key'), tool('check_crawl_status')];
    const report = await enrichTools(tools, {
      endpoint: chat.url,
      model: 'fake',
      apiKey: 'sk-test-key',
      cacheDir,
      onResult: (name) => done.push(name),
      ...fast,
    });
    expect(report.failed).toEqual([]);
    expect(report.requested).toBe(3);
    for (const t of tools) {
      const list = report.phrasings.get(t.name) ?? [];
      expect(list.length).toBeGreaterThanOrEqual(8);
      expect(list.length).toBeLessThanOrEqual(12);
    }
    expect(done.sort()).toEqual(tools.map((t) => t.name).sort());
    expect(chat.authorizations.at(-1)).toBe('Bearer sk-test-key');
    // Same tools again: every answer from the cache, no request at all.
    const before = chat.requests.get('press_key');
    const again = await enrichTools(tools, { endpoint: chat.url, model: 'fake', cacheDir, ...fast });
    expect(again.cached).toBe(3);
    expect(again.requested).toBe(0);
    expect(chat.requests.get('press_key')).toBe(before);
    expect(again.phrasings.get('press_key')).toEqual(report.phrasings.get('press_key'));
    // A changed description is another tool: asked again.
    const changed = await enrichTools([{ ...tool('press_key'), description: 'Press a key.' }], {
      endpoint: chat.url,
      model: 'fake',
      cacheDir,
      ...fast,
    });
    expect(changed.requested).toBe(1);
    expect((await readdir(join(cacheDir, 'enrich'))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('retries a slow answer (per-request timeout), a 500 and a malformed answer', async () => {
    const report = await enrichTools([tool('slow_one'), tool('flaky500_one'), tool('garbled_one')], {
      endpoint: chat.url,
      model: 'fake',
      cacheDir: false,
      timeoutMs: 2_000, // far above a prompt answer even on a loaded machine, far below the stall
      ...fast,
    });
    expect(report.failed).toEqual([]);
    expect(report.phrasings.size).toBe(3);
    expect(chat.requests.get('slow_one')).toBe(2);
    expect(chat.requests.get('flaky500_one')).toBe(2);
    expect(chat.requests.get('garbled_one')).toBe(2);
  });

  it('reports a tool that never gets a usable answer with a typed error, and goes on with the others', async () => {
    const report = await enrichTools([tool('broken_one'), tool('fine_one'), tool('huge_one')], {
      endpoint: chat.url,
      model: 'fake',
      cacheDir: false,
      ...fast,
    });
    expect(report.phrasings.has('fine_one')).toBe(true);
    expect(report.failed.map((f) => [f.name, f.code]).sort()).toEqual([
      ['broken_one', 'ENRICH_BAD_ANSWER'],
      ['huge_one', 'ENRICH_BAD_ANSWER'],
    ]);
    expect(chat.requests.get('broken_one')).toBe(3); // 1 + 2 retries
    expect(chat.requests.get('huge_one')).toBe(1); // oversized is not retried
  });

  it('keeps to the concurrency limit', async () => {
    const tools = Array.from({ length: 12 }, (_, i) => tool(`parallel_${i}`));
    chat.resetMax();
    const report = await enrichTools(tools, {
      endpoint: chat.url,
      model: 'fake',
      cacheDir: false,
      concurrency: 2,
    });
    expect(report.phrasings.size).toBe(12);
    expect(chat.maxInFlight()).toBe(2);
  });

  it('validates settings and answers', () => {
    expect(chatCompletionsUrl('http://127.0.0.1:11434/v1')).toBe(
      'http://127.0.0.1:11434/v1/chat/completions',
    );
    expect(chatCompletionsUrl('http://h/v1/chat/completions')).toBe('http://h/v1/chat/completions');
    for (const bad of ['ftp://h', 'not a url'])
      expect(() => chatCompletionsUrl(bad)).toThrow(ToolSearchError);
    expect(() => parseAnswer('{"choices":[]}')).toThrow(/no message content/);
    expect(
      parseAnswer(
        JSON.stringify({
          choices: [{ message: { content: '["a b c","A  b c","d e f","g h i","j k l", 3]' } }],
        }),
      ),
    ).toEqual(['a b c', 'd e f', 'g h i', 'j k l']);
  });
});
