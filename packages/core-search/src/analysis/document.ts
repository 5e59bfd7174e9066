import { DEFAULTS } from '../defaults.js';
import type { IndexedDoc } from '../retriever.js';
import type { JsonSchemaObject, ToolDefinition } from '../types.js';
import { AnalysisMemo } from './analyze.js';
import { bareName, serverPrefix, splitIdentifier } from './identifier.js';
import { normalizeText } from './normalize.js';
import { fromSource, mergePhrasings, type Phrasing } from './phrasings.js';

/** A tool's toolset: `toolset` ?? `category` ?? the `server` of `server__tool` ?? "default". */
export function toolsetOf(tool: ToolDefinition): string {
  if (typeof tool.toolset === 'string' && tool.toolset !== '') return tool.toolset;
  if (typeof tool.category === 'string' && tool.category !== '') return tool.category;
  return serverPrefix(tool.name) ?? 'default';
}

/**
 * Property names and their descriptions, depth-first, bounded in depth and length.
 * Parameter names say a lot ("repo", "owner", "url"); their prose says less, hence the
 * low field weight in defaults.ts.
 */
export function schemaText(schema: JsonSchemaObject | undefined): string {
  const parts: string[] = [];
  let length = 0;
  const max = DEFAULTS.analysis.maxSchemaChars;
  const walk = (node: JsonSchemaObject | undefined, depth: number): void => {
    if (!node || typeof node !== 'object' || depth > DEFAULTS.analysis.maxSchemaDepth) return;
    const properties = node.properties;
    if (properties && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) {
        if (length >= max) return;
        const text = `${key} ${typeof child?.description === 'string' ? child.description : ''}`;
        parts.push(text);
        length += text.length + 1;
        walk(child, depth + 1);
      }
    }
    const items = node.items;
    if (Array.isArray(items)) for (const item of items) walk(item, depth + 1);
    else if (items && typeof items === 'object') walk(items, depth + 1);
  };
  walk(schema, 0);
  return parts.join(' ').slice(0, max);
}

/** The phrasings a tool definition brings itself: `examples` and `phrasings`. */
export function ownPhrasings(tool: ToolDefinition): Phrasing[] {
  return [...fromSource(tool.examples, 'tool'), ...fromSource(tool.phrasings, 'tool')];
}

/** Phrasings from outside the definition: the API's (`added`) and the pack's. */
export interface ExtraPhrasings {
  added?: readonly string[] | undefined;
  pack?: readonly string[] | undefined;
  /** The `learned` field's terms, already analysed and weighted (learning.ts). */
  learned?: readonly string[] | undefined;
}

/**
 * Analyse a validated tool into the document every retriever indexes. Phrasings (the
 * tool's own, then `extra.added`, then `extra.pack`, bounded and de-duplicated) get their
 * own field, not the description's: they are everyday requests, weighted per query shape.
 */
export function analyzeTool(
  tool: ToolDefinition,
  id: number,
  extra: ExtraPhrasings = {},
  memo: AnalysisMemo = new AnalysisMemo(),
): IndexedDoc {
  const analyze = (text: string, maxChars?: number) => memo.analyze(text, maxChars);
  const toolset = toolsetOf(tool);
  const bare = bareName(tool.name);
  const prefix = serverPrefix(tool.name);
  const description = memo.normalize(tool.description ?? '');
  const phrasings = mergePhrasings(
    ownPhrasings(tool),
    fromSource(extra.added, 'added'),
    fromSource(extra.pack, 'pack'),
  );
  const phrasingText = phrasings.map((phrasing) => phrasing.text).join('\n');
  const toolsetText = prefix && prefix !== toolset ? `${toolset} ${prefix}` : toolset;
  const nameWords = splitIdentifier(bare);
  const doc = {
    id,
    name: tool.name,
    toolset,
    tool,
    phrasings,
    fields: {
      name: analyze(bare),
      title: analyze(tool.title ?? ''),
      tags: analyze((tool.tags ?? []).join(' ')),
      toolset: analyze(toolsetText),
      description: analyze(description),
      schema: analyze(schemaText(tool.inputSchema), DEFAULTS.analysis.maxSchemaChars),
      phrasings: analyze(phrasingText, DEFAULTS.phrasings.maxPerTool * (DEFAULTS.phrasings.maxChars + 1)),
      learned: extra.learned ? [...extra.learned] : [],
    },
    nameWords,
  };
  return new AnalysedDoc(doc);
}

/**
 * The text an embedding model sees for a document: split name, normalised description,
 * toolset, and its phrasings bounded. Phrasings join it bounded: word vectors are
 * averaged, and a tool's many requests should colour its vector, not replace what its
 * description says.
 */
export function embeddingTextOf(
  doc: Pick<IndexedDoc, 'nameWords' | 'toolset' | 'phrasings' | 'tool'>,
): string {
  const { nameWords, toolset, phrasings, tool } = doc;
  const embeddingPhrasings = phrasings
    .map((phrasing) => phrasing.text)
    .join('\n')
    .slice(0, DEFAULTS.phrasings.maxEmbeddingChars)
    .replace(/\n/g, '. ');
  const description = normalizeText(tool.description ?? '', DEFAULTS.analysis.maxTextChars);
  return (
    `${nameWords.join(' ')}: ${description.slice(0, 1000)} (${splitIdentifier(toolset).join(' ')})` +
    (embeddingPhrasings === '' ? '' : ` ${embeddingPhrasings}`)
  );
}

/**
 * An analysed document whose `embeddingText` is made when read (by the embedding
 * strategy, once, and by toJSON) rather than held: a lexical index never reads it, and it
 * was ~360 bytes a tool. A getter on the class, not one defined on each document: a
 * closure and accessor per document cost ~540 bytes a tool (54 MB of a 100k-tool index,
 * measured with heapUsed before and after). It normalises the description again rather
 * than hold a normalised copy of it.
 */
class AnalysedDoc implements IndexedDoc {
  readonly id: number;
  readonly name: string;
  readonly toolset: string;
  readonly tool: ToolDefinition;
  readonly phrasings: readonly Phrasing[];
  readonly fields: IndexedDoc['fields'];
  readonly nameWords: readonly string[];

  constructor(doc: Omit<IndexedDoc, 'embeddingText'>) {
    this.id = doc.id;
    this.name = doc.name;
    this.toolset = doc.toolset;
    this.tool = doc.tool;
    this.phrasings = doc.phrasings;
    this.fields = doc.fields;
    this.nameWords = doc.nameWords;
  }

  get embeddingText(): string {
    return embeddingTextOf(this);
  }
}
