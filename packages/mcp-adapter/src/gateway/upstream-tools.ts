/**
 * An upstream's tools: its tools/list read across every page, each tool kept
 * exactly as the upstream returned it and named `server__tool` for the index.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { MAX_LIST_PAGES } from '../defaults.js';
import type { UpstreamConnection } from './upstream-client.js';

export interface UpstreamTool {
  upstream: string;
  /** The tool's name on its upstream. */
  name: string;
  /** `${upstream}__${name}`: the name the gateway indexes and exposes. */
  qualifiedName: string;
  /** The tool exactly as the upstream's tools/list returned it. */
  definition: Tool;
}

/** Reads tools/list across all pages. */
export async function listAllTools(
  upstream: string,
  connection: UpstreamConnection,
  timeoutMs: number,
  log: (line: string) => void,
): Promise<UpstreamTool[]> {
  if (!connection.hasTools) return [];
  const tools: UpstreamTool[] = [];
  const seenNames = new Set<string>();
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await connection.listToolsPage(cursor, timeoutMs);
    for (const tool of result.tools) {
      if (seenNames.has(tool.name)) continue;
      seenNames.add(tool.name);
      const qualifiedName = `${upstream}__${tool.name}`;
      tools.push({ upstream, name: tool.name, qualifiedName, definition: tool as Tool });
    }
    cursor = result.nextCursor;
    if (cursor === undefined || seenCursors.has(cursor)) return tools;
    seenCursors.add(cursor);
  }
  log(`${upstream}: tools/list still paginating after ${MAX_LIST_PAGES} pages, stopped`);
  return tools;
}
