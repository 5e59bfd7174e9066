import type { ToolDefinition } from '@toolsearch/core-search';

/**
 * A tool's toolset as the engine defines it: `toolset` ?? `category` ?? the
 * `server` part of a `server__tool` name ?? "default". The MiniSearch baseline
 * and datasets without `relevantToolsets` need it outside the engine.
 */
export function toolsetOf(tool: ToolDefinition): string {
  if (typeof tool.toolset === 'string' && tool.toolset !== '') return tool.toolset;
  if (typeof tool.category === 'string' && tool.category !== '') return tool.category;
  const split = tool.name.indexOf('__');
  if (split > 0) return tool.name.slice(0, split);
  return 'default';
}
