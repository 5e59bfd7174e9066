/** Loading the scale corpora, with duplicate names dropped visibly, never silently. */

import type { ToolDefinition } from '@toolsearch/core-search';
import { readTools } from '@toolsearch/core-search/eval';

export interface Corpus {
  label: string;
  /** Path relative to the repository root, as shown in reports. */
  file: string;
  tools: ToolDefinition[];
  /** Tools in the file before dropping duplicates. */
  rawCount: number;
  /** Names dropped because an earlier tool had the same name (first kept). */
  droppedDuplicates: string[];
}

/** Read a tools file and keep the first tool of each name, in file order. */
export function loadCorpus(label: string, path: string, shownPath: string): Corpus {
  const raw = readTools(path);
  const seen = new Set<string>();
  const tools: ToolDefinition[] = [];
  const droppedDuplicates: string[] = [];
  for (const tool of raw) {
    if (seen.has(tool.name)) {
      droppedDuplicates.push(tool.name);
      continue;
    }
    seen.add(tool.name);
    tools.push(tool);
  }
  return { label, file: shownPath, tools, rawCount: raw.length, droppedDuplicates };
}
