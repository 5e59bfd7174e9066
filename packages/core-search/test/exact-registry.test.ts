import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ToolDefinition, ToolSearch } from '../src/index.js';
import { bareName, compactKey, serverPrefix } from '../src/internals.js';

/** The committed default registry: the real tools/list of 27 MCP servers (480 tools). */
const registry = JSON.parse(
  readFileSync(new URL('../../../fixtures/registry/tools.json', import.meta.url), 'utf8'),
) as { tools: ToolDefinition[] };

function camelCase(name: string): string {
  return name.replace(/[_-]+([a-z0-9])/gi, (_, c: string) => c.toUpperCase());
}

describe('exact names over the 480-tool registry', () => {
  const tools = registry.tools;
  const search = new ToolSearch({ tools, embedding: false });
  /** Tools sharing a bare name must all rank first together. */
  const byBare = new Map<string, string[]>();
  for (const tool of tools) {
    const key = compactKey(bareName(tool.name));
    byBare.set(key, [...(byBare.get(key) ?? []), tool.name]);
  }

  it('holds all 480 tools', () => {
    expect(tools).toHaveLength(480);
  });

  /** The server as people say it: "server-github" -> "github", "playwright-mcp" -> "playwright". */
  const spoken = (server: string) => server.replace(/(^|-)(server|mcp)(?=-|$)/g, '').replace(/^-+|-+$/g, '');
  const bySpoken = new Map<string, string[]>();
  for (const tool of tools) {
    const key = compactKey(`${spoken(serverPrefix(tool.name)!)} ${bareName(tool.name)}`);
    bySpoken.set(key, [...(bySpoken.get(key) ?? []), tool.name]);
  }

  it('ranks the tool first for its bare, prefixed, camelCase and "server tool" names', async () => {
    const failures: string[] = [];
    for (const tool of tools) {
      const bare = bareName(tool.name);
      const server = serverPrefix(tool.name)!;
      const sharing = byBare.get(compactKey(bare))!;
      const forms: [string, string[]][] = [
        [bare, sharing],
        [camelCase(bare), sharing],
        [tool.name, [tool.name]],
        [`${server} ${bare}`, [tool.name]],
        [`${spoken(server)} ${bare}`, bySpoken.get(compactKey(`${spoken(server)} ${bare}`))!],
      ];
      for (const [query, expected] of forms) {
        const response = await search.search(query, { limit: Math.max(expected.length, 3) });
        const head = response.results.slice(0, expected.length).map((r) => r.name);
        if ([...head].sort().join() !== [...expected].sort().join()) {
          failures.push(`${query} -> ${head.join(', ')} (want ${expected.join(', ')})`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
