import { FIELD_NAMES } from './defaults.js';
import { ToolSearchError } from './errors.js';
import { type LearnedUse, validateUses } from './learning.js';
import type { IndexedDoc } from './retriever.js';
import type { PhrasingSource, StrategyName, ToolDefinition } from './types.js';

/**
 * The index file format. Documents are stored analysed, so loading a large registry
 * skips text analysis (the expensive part of indexing) and only refills the in-memory
 * structures. `analyzer` changes whenever analysis changes: an index written by an
 * older analyser is re-analysed from its tools instead of trusted.
 */
export const INDEX_FORMAT = 'toolsearch-index';
export const INDEX_VERSION = 1;
/** 3: phrasings (own, added, pack) in their own field and listed per document; `learned` field. 4: learned requests of several clauses are attributed per tool (learning.ts useTerms). */
export const ANALYZER_VERSION = 4;

export type SerializedDoc = Omit<IndexedDoc, 'id' | 'name'>;

export interface SerializedOptions {
  disable: StrategyName[];
  weights: Partial<Record<StrategyName, number>>;
  rrfK: number;
  synonyms: Record<string, string[]>;
  /** The pack setting the documents were analysed with (absent in older indexes: the default). */
  pack?: false | { exclude: string[] };
}

export interface SerializedIndex {
  format: typeof INDEX_FORMAT;
  version: number;
  analyzer: number;
  options: SerializedOptions;
  docs: SerializedDoc[];
  /** Uses learned through engine.learn(), aggregated (absent: none). */
  learned?: LearnedUse[];
}

export function serializeIndex(input: {
  docs: readonly IndexedDoc[];
  options: SerializedOptions;
  learned: LearnedUse[];
}): SerializedIndex {
  return {
    learned: input.learned,
    format: INDEX_FORMAT,
    version: INDEX_VERSION,
    analyzer: ANALYZER_VERSION,
    options: input.options,
    docs: input.docs.map(({ toolset, tool, fields, nameWords, embeddingText, phrasings }) => ({
      toolset,
      tool,
      fields,
      nameWords,
      embeddingText,
      phrasings,
    })),
  };
}

/** The one error a saved index that toJSON()/toBytes() did not produce gets: INVALID_INDEX naming what is wrong. */
export function invalidIndex(message: string): never {
  throw new ToolSearchError('INVALID_INDEX', `toolsearch: invalid index: ${message}`);
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

export const PHRASING_SOURCES: readonly string[] = ['tool', 'added', 'pack'] satisfies PhrasingSource[];

/** Learned uses of a saved index (validated like learn() input, reported as INVALID_INDEX). */
export function savedUses(value: unknown): LearnedUse[] {
  if (value === undefined) return [];
  try {
    return validateUses(value).map(({ query, tool, count, lastSeen }) => ({
      query,
      tool,
      count: count ?? 1,
      ...(lastSeen === undefined ? {} : { lastSeen }),
    }));
  } catch (error) {
    return invalidIndex(`"learned": ${(error as Error).message.replace(/^toolsearch: /, '')}`);
  }
}

/**
 * Validate toJSON() output. Returns the documents still analysed when the analyser
 * version matches, or only their tools (to be re-analysed) when it does not, with the
 * phrasings each was given through addPhrasings (kept across a re-analysis).
 */
export function deserializeIndex(json: unknown): {
  options: SerializedOptions;
  docs: SerializedDoc[] | null;
  tools: ToolDefinition[];
  added: string[][];
  learned: LearnedUse[];
} {
  const data = typeof json === 'string' ? parseJson(json) : json;
  if (data === null || typeof data !== 'object') invalidIndex('expected an object produced by toJSON()');
  const index = data as Partial<SerializedIndex>;
  if (index.format !== INDEX_FORMAT) invalidIndex(`"format" must be "${INDEX_FORMAT}"`);
  if (index.version !== INDEX_VERSION)
    invalidIndex(`unsupported version ${String(index.version)} (expected ${INDEX_VERSION})`);
  if (!Array.isArray(index.docs)) invalidIndex('"docs" must be an array');
  const options = index.options;
  if (options === null || typeof options !== 'object') invalidIndex('"options" must be an object');
  const current = index.analyzer === ANALYZER_VERSION;
  index.docs.forEach((doc, i) => {
    if (doc === null || typeof doc !== 'object') invalidIndex(`docs[${i}] must be an object`);
    if (doc.tool === null || typeof doc.tool !== 'object' || typeof doc.tool.name !== 'string') {
      invalidIndex(`docs[${i}].tool must be a tool definition`);
    }
    if (typeof doc.toolset !== 'string') invalidIndex(`docs[${i}].toolset must be a string`);
    if (!isStringArray(doc.nameWords)) invalidIndex(`docs[${i}].nameWords must be an array of strings`);
    if (typeof doc.embeddingText !== 'string') invalidIndex(`docs[${i}].embeddingText must be a string`);
    if (!current) return; // only the tool (and added phrasings, when well-formed) is read
    for (const field of FIELD_NAMES) {
      if (!isStringArray(doc.fields?.[field]))
        invalidIndex(`docs[${i}].fields.${field} must be an array of strings`);
    }
    if (!Array.isArray(doc.phrasings)) invalidIndex(`docs[${i}].phrasings must be an array`);
    doc.phrasings.forEach((phrasing, j) => {
      if (
        phrasing === null ||
        typeof phrasing !== 'object' ||
        typeof phrasing.text !== 'string' ||
        !PHRASING_SOURCES.includes(phrasing.source)
      ) {
        invalidIndex(`docs[${i}].phrasings[${j}] must be {text, source: ${PHRASING_SOURCES.join('|')}}`);
      }
    });
  });
  const tools = index.docs.map((doc) => doc.tool);
  const added = index.docs.map((doc) =>
    Array.isArray(doc.phrasings)
      ? doc.phrasings.filter((p) => p?.source === 'added' && typeof p.text === 'string').map((p) => p.text)
      : [],
  );
  return { options, docs: current ? index.docs : null, tools, added, learned: savedUses(index.learned) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    return invalidIndex(`not JSON (${(error as Error).message})`);
  }
}
