// The embedding strategy inside the engine: default on, never blocks startup, degrades cleanly.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Progress, ToolSearch } from '../src/engine.js';
import type { ToolDefinition } from '../src/types.js';

const scratch = mkdtempSync(join(tmpdir(), 'toolsearch-embedding-engine-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const TOOLS: ToolDefinition[] = [
  {
    name: 'devtools__performance_trace',
    description: 'Record page load timing and rendering latency of a web page',
  },
  { name: 'mail__send_email', description: 'Send an email message to a recipient' },
  { name: 'weather__forecast', description: 'Temperature, rain and wind forecast for a city' },
  { name: 'git__commit', description: 'Create a git commit with the staged changes' },
];

describe('engine with the embedding strategy', () => {
  it('answers lexically while loading, then fuses the embedding ranking', async () => {
    const engine = new ToolSearch({ tools: TOOLS, embedding: { cacheDir: join(scratch, 'cache'), env: {} } });
    const early = await engine.search('my site feels slow');
    expect(early.degraded).toBe('embedding-loading');
    expect(early.strategies).not.toContain('embedding');
    await engine.ready();
    const later = await engine.search('my site feels slow');
    expect(later.degraded).toBeUndefined();
    expect(later.strategies).toContain('embedding');
    // No word of the query is in any tool: only the embedding finds it.
    expect(later.results[0]?.name).toBe('devtools__performance_trace');
    expect(later.results[0]?.matchedBy.map((m) => m.strategy)).toContain('embedding');
  });

  it('is off with embedding: false or disable: ["embedding"]', async () => {
    for (const engine of [
      new ToolSearch({ tools: TOOLS, embedding: false }),
      new ToolSearch({ tools: TOOLS, disable: ['embedding'] }),
    ]) {
      const response = await engine.search('my site feels slow');
      expect(response.degraded).toBeUndefined();
      expect(response.strategies).not.toContain('embedding');
    }
  });

  it('a model that cannot load gives one warning and lexical results marked unavailable', async () => {
    const warnings: string[] = [];
    const engine = new ToolSearch({
      tools: TOOLS,
      embedding: { modelPath: join(scratch, 'missing'), onWarning: (w) => warnings.push(w), env: {} },
    });
    await engine.ready();
    const response = await engine.search('send email');
    expect(response.degraded).toBe('embedding-unavailable');
    expect(response.results[0]?.name).toBe('mail__send_email');
    await engine.search('git commit');
    expect(warnings).toHaveLength(1);
  });

  it('writes nothing to stdout while loading, searching or failing (MCP stdio servers embed it)', async () => {
    const script = join(scratch, 'stdout-check.mts');
    const index = resolve(import.meta.dirname, '../src/index.ts');
    writeFileSync(
      script,
      `import { ToolSearch } from ${JSON.stringify(index)};
const tools = [{ name: 'mail__send', description: 'send an email' }];
const ok = new ToolSearch({ tools, embedding: { cacheDir: false } });
await ok.ready();
await ok.search('mail my boss');
const broken = new ToolSearch({ tools, embedding: { cacheDir: false, modelPath: 'no-such-model-dir' } });
await broken.ready();
await broken.search('mail');
`,
    );
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((done, fail) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', '--conditions=toolsearch-source', script],
        (error, stdout, stderr) => (error ? fail(error) : done({ stdout, stderr })),
      );
    });
    expect(stdout).toBe('');
    expect(stderr.match(/^toolsearch: /gm)).toHaveLength(1);
  });

  it('reports embedding progress through onProgress for 1,000 tools', async () => {
    const progress: Progress[] = [];
    const tools = Array.from({ length: 1000 }, (_, i) => ({
      name: `tool_${i}`,
      description: `does thing ${i}`,
    }));
    const engine = new ToolSearch({
      tools,
      embedding: { cacheDir: false, env: {} },
      onProgress: (p) => progress.push(p),
    });
    await engine.ready();
    const embedding = progress.filter((p) => p.phase === 'embedding');
    expect(embedding.at(-1)).toEqual({ phase: 'embedding', done: 1000, total: 1000 });
  });
});
