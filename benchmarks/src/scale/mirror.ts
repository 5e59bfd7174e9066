/**
 * The ~100k-tool corpus: every real tool of ../shared/datasets (first of each name kept),
 * then the same tools again under mirror server prefixes (`mirror-2__server__tool`, toolset
 * `server-mirror-2`), the way public registries carry many forks of the same servers, until
 * `size` tools. Deterministic: file order, then copy order.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type ToolDefinition, toolsetOf } from '@toolsearch/core-search';
import { readTools } from '@toolsearch/core-search/eval';

/** Every distinct real tool of the shared datasets, in file-name order. */
export function sharedTools(datasetsDir: string): ToolDefinition[] {
  if (!existsSync(datasetsDir)) return [];
  const seen = new Set<string>();
  const tools: ToolDefinition[] = [];
  for (const file of readdirSync(datasetsDir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const path = join(datasetsDir, file);
    for (const tool of readTools(path)) {
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      tools.push(tool);
    }
  }
  return tools;
}

/** `size` tools: the real ones, then mirror copies of them under new server prefixes. */
export function mirrorCorpus(real: readonly ToolDefinition[], size: number): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  if (real.length === 0) return tools;
  for (let copy = 1; tools.length < size; copy++) {
    for (const tool of real) {
      if (tools.length >= size) break;
      if (copy === 1) tools.push(tool);
      else
        tools.push({
          ...tool,
          name: `mirror-${copy}__${tool.name}`,
          category: `${toolsetOf(tool)}-mirror-${copy}`,
        });
    }
  }
  return tools;
}
