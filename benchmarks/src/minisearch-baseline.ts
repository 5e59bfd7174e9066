/**
 * What a user would reach for instead of toolsearch: MiniSearch (BM25+) with
 * fuzzy and prefix matching on, over the split tool name (boosted), the
 * description and the toolset. It is run on the same queries as the engine.
 */
import { type ToolDefinition, toolsetOf } from '@toolsearch/core-search';
import MiniSearch from 'minisearch';

export const MINISEARCH_SETTINGS = {
  fields: ['name', 'description', 'toolset'],
  searchOptions: { boost: { name: 3 }, fuzzy: 0.2, prefix: true },
} as const;

/** "browser_takeScreenshot" -> "browser take screenshot": what a user would index for names. */
export function splitName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .join(' ')
    .toLowerCase();
}

interface BaselineDoc {
  id: number;
  name: string;
  description: string;
  toolset: string;
}

export interface BaselineHit {
  name: string;
  toolset: string;
  score: number;
}

export interface BaselineResponse {
  results: BaselineHit[];
  /** Toolsets ranked by summed score of their tools in `results`, the way the engine suggests them. */
  toolsets: string[];
}

export class MiniSearchBaseline {
  private readonly index: MiniSearch<BaselineDoc>;
  private readonly docs: BaselineDoc[];
  private readonly originalNames: string[];

  constructor(tools: readonly ToolDefinition[]) {
    this.docs = tools.map((tool, id) => ({
      id,
      name: splitName(tool.name),
      description: typeof tool.description === 'string' ? tool.description : '',
      toolset: toolsetOf(tool),
    }));
    this.originalNames = tools.map((t) => t.name);
    this.index = new MiniSearch<BaselineDoc>({
      fields: [...MINISEARCH_SETTINGS.fields],
      searchOptions: {
        ...MINISEARCH_SETTINGS.searchOptions,
        boost: { ...MINISEARCH_SETTINGS.searchOptions.boost },
      },
    });
    this.index.addAll(this.docs);
  }

  search(query: string, limit: number): BaselineResponse {
    const hits = this.index
      .search(query)
      .map((r) => ({ id: r.id as number, score: r.score }))
      // Equal scores keep insertion order, the same tie-break the engine uses.
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, limit)
      .map((r) => ({ name: this.originalNames[r.id]!, toolset: this.docs[r.id]!.toolset, score: r.score }));
    const byToolset = new Map<string, number>();
    for (const hit of hits) byToolset.set(hit.toolset, (byToolset.get(hit.toolset) ?? 0) + hit.score);
    const toolsets = [...byToolset.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([toolset]) => toolset);
    return { results: hits, toolsets };
  }
}
