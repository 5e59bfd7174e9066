import { FIELD_NAMES } from './defaults.js';
import { ToolSearchError } from './errors.js';
import type { IndexedDoc } from './retriever.js';
import type { StrategyName, ToolDefinition } from './types.js';

/**
 * The index file format. Documents are stored analysed, so loading a large registry
 * skips text analysis (the expensive part of indexing) and only refills the in-memory
 * structures. `analyzer` changes whenever analysis changes: an index written by an
 * older analyser is re-analysed from its tools instead of trusted.
 */
export const INDEX_FORMAT = 'toolsearch-index';
export const INDEX_VERSION = 1;
export const ANALYZER_VERSION = 2;

export type SerializedDoc = Omit<IndexedDoc, 'id' | 'name'>;

export interface SerializedOptions {
  disable: StrategyName[];
  weights: Partial<Record<StrategyName, number>>;
  rrfK: number;
  synonyms: Record<string, string[]>;
}

export interface SerializedIndex {
  format: typeof INDEX_FORMAT;
  version: number;
  analyzer: number;
  options: SerializedOptions;
  docs: SerializedDoc[];
}

export function serializeIndex(input: {
  docs: readonly IndexedDoc[];
  options: SerializedOptions;
}): SerializedIndex {
  return {
    format: INDEX_FORMAT,
    version: INDEX_VERSION,
    analyzer: ANALYZER_VERSION,
    options: input.options,
    docs: input.docs.map(({ toolset, tool, fields, nameWords, embeddingText }) => ({
      toolset,
      tool,
      fields,
      nameWords,
      embeddingText,
    })),
  };
}

function invalid(message: string): never {
  throw new ToolSearchError('INVALID_INDEX', `toolsearch: invalid index: ${message}`);
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/**
 * Validate toJSON() output. Returns the documents still analysed when the analyser
 * version matches, or only their tools (to be re-analysed) when it does not.
 */
export function deserializeIndex(json: unknown): {
  options: SerializedOptions;
  docs: SerializedDoc[] | null;
  tools: ToolDefinition[];
} {
  const data = typeof json === 'string' ? parseJson(json) : json;
  if (data === null || typeof data !== 'object') invalid('expected an object produced by toJSON()');
  const index = data as Partial<SerializedIndex>;
  if (index.format !== INDEX_FORMAT) invalid(`"format" must be "${INDEX_FORMAT}"`);
  if (index.version !== INDEX_VERSION)
    invalid(`unsupported version ${String(index.version)} (expected ${INDEX_VERSION})`);
  if (!Array.isArray(index.docs)) invalid('"docs" must be an array');
  const options = index.options;
  if (options === null || typeof options !== 'object') invalid('"options" must be an object');
  index.docs.forEach((doc, i) => {
    if (doc === null || typeof doc !== 'object') invalid(`docs[${i}] must be an object`);
    if (doc.tool === null || typeof doc.tool !== 'object' || typeof doc.tool.name !== 'string') {
      invalid(`docs[${i}].tool must be a tool definition`);
    }
    if (typeof doc.toolset !== 'string') invalid(`docs[${i}].toolset must be a string`);
    if (!isStringArray(doc.nameWords)) invalid(`docs[${i}].nameWords must be an array of strings`);
    if (typeof doc.embeddingText !== 'string') invalid(`docs[${i}].embeddingText must be a string`);
    for (const field of FIELD_NAMES) {
      if (!isStringArray(doc.fields?.[field]))
        invalid(`docs[${i}].fields.${field} must be an array of strings`);
    }
  });
  const tools = index.docs.map((doc) => doc.tool);
  return { options, docs: index.analyzer === ANALYZER_VERSION ? index.docs : null, tools };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    return invalid(`not JSON (${(error as Error).message})`);
  }
}
