/**
 * The second baseline: wink-bm25-text-search (BM25F) with wink-nlp's tokenizer, Porter2
 * stems and stop words, the way its README sets it up, over the same fields as the
 * MiniSearch baseline (split name boosted 3x, description, toolset).
 */
import { type ToolDefinition, toolsetOf } from '@toolsearch/core-search';
// @ts-expect-error: wink-bm25-text-search ships no type declarations
import bm25 from 'wink-bm25-text-search';
import model from 'wink-eng-lite-web-model';
import winkNLP, { type ItemToken } from 'wink-nlp';
import { splitName } from './minisearch-baseline.js';

interface WinkEngine {
  defineConfig(config: { fldWeights: Record<string, number> }): void;
  definePrepTasks(tasks: ((text: string) => string[])[]): void;
  addDoc(doc: Record<string, string>, id: number): void;
  consolidate(): void;
  search(text: string, limit?: number): [number, number][];
}

const nlp = winkNLP(model);
const its = nlp.its;

/** wink-nlp's own pipeline: words only, stop words out, Porter2 stems. */
function prepare(text: string): string[] {
  const tokens: string[] = [];
  nlp
    .readDoc(text)
    .tokens()
    .filter((t: ItemToken) => t.out(its.type) === 'word' && !t.out(its.stopWordFlag))
    .each((t: ItemToken) => {
      // wink-nlp types its.stem with an addons parameter its ItsFunction type lacks
      tokens.push((t.out as (f: unknown) => string)(its.stem));
    });
  return tokens;
}

export class WinkBaseline {
  private readonly engine: WinkEngine;
  private readonly names: string[];

  constructor(tools: readonly ToolDefinition[]) {
    this.engine = (bm25 as () => WinkEngine)();
    this.engine.defineConfig({ fldWeights: { name: 3, description: 1, toolset: 1 } });
    this.engine.definePrepTasks([prepare]);
    this.names = tools.map((t) => t.name);
    tools.forEach((tool, id) => {
      this.engine.addDoc(
        {
          name: splitName(tool.name),
          description: typeof tool.description === 'string' ? tool.description : '',
          toolset: toolsetOf(tool),
        },
        id,
      );
    });
    this.engine.consolidate();
  }

  /** Tool names, best first. */
  search(query: string, limit: number): string[] {
    return this.engine.search(query, limit).map(([id]) => this.names[id]!);
  }
}
