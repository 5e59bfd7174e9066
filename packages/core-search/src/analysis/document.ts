import { DEFAULTS } from '../defaults.js';
import type { IndexedDoc } from '../retriever.js';
import type { JsonSchemaObject, ToolDefinition } from '../types.js';
import { AnalysisMemo } from './analyze.js';
import { bareName, identifierWords, serverPrefix, splitIdentifier } from './identifier.js';
import { NON_ASCII, normalizeText } from './normalize.js';
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
  const out = { parts: [] as string[], length: 0 };
  schemaWalk(schema, 0, out);
  return out.parts.join(' ').slice(0, DEFAULTS.analysis.maxSchemaChars);
}

/**
 * schemaText's depth-first walk, adding each property's key and description as two parts
 * of `out.parts` (joined with spaces: "key description"), until `out.length` (the text's
 * length with a separator after each property) reaches the bound. One function without
 * closures or entry arrays: it runs per tool. Joined once at the end: concatenating the
 * text part by part made a rope that the analysis memo's hash then had to flatten
 * (schemaText + memo lookup over the ~100k-tool corpus 395 -> 327 ms CPU, median of 9, load 9).
 */
function schemaWalk(
  node: JsonSchemaObject | undefined,
  depth: number,
  out: { parts: string[]; length: number },
): void {
  if (!node || typeof node !== 'object' || depth > DEFAULTS.analysis.maxSchemaDepth) return;
  const properties = node.properties;
  if (properties && typeof properties === 'object') {
    for (const key of Object.keys(properties)) {
      if (out.length >= DEFAULTS.analysis.maxSchemaChars) return;
      const child = properties[key];
      const description = typeof child?.description === 'string' ? child.description : '';
      out.parts.push(key, description);
      out.length += key.length + 1 + description.length + 1;
      schemaWalk(child, depth + 1, out);
    }
  }
  const items = node.items;
  if (Array.isArray(items)) for (const item of items) schemaWalk(item, depth + 1, out);
  else if (items && typeof items === 'object') schemaWalk(items, depth + 1, out);
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
  const toolset = toolsetOf(tool);
  const bare = bareName(tool.name);
  const prefix = serverPrefix(tool.name);
  const raw = tool.description ?? '';
  // A non-ASCII description is analysed normalised (NFKC may lengthen it, and the bound
  // then applies again); an ASCII one analyses the same either way, without that pass.
  const description = NON_ASCII.test(raw) ? memo.normalize(raw) : raw;
  const { phrasings, terms: phrasingTerms } = toolPhrasings(tool, extra, memo);
  const toolsetText = prefix && prefix !== toolset ? `${toolset} ${prefix}` : toolset;
  const fields = {
    name: memo.analyze(bare),
    title: memo.analyze(tool.title ?? ''),
    tags: memo.analyze(tool.tags ? tool.tags.join(' ') : ''),
    toolset: memo.analyze(toolsetText),
    description: memo.analyze(description),
    schema: memo.analyze(schemaText(tool.inputSchema), DEFAULTS.analysis.maxSchemaChars),
    phrasings: phrasingTerms,
    learned: extra.learned ? [...extra.learned] : NONE,
  };
  return new AnalysedDoc(id, tool.name, toolset, tool, phrasings, fields, nameWordsOf(tool.name, bare));
}

/** The empty list most documents hold (no phrasings, nothing learned): one, frozen, not one each. */
const NONE: readonly never[] = Object.freeze([]);

/** The phrasings field is analysed up to this many characters: every phrasing, each on its line. */
const PHRASINGS_CHARS = DEFAULTS.phrasings.maxPerTool * (DEFAULTS.phrasings.maxChars + 1);

/** A tool's merged phrasings and the phrasings field's terms. */
interface ToolPhrasings {
  phrasings: readonly Phrasing[];
  terms: readonly string[];
}

/**
 * A tool's merged phrasings (mergePhrasings) and their terms; most tools have none, which
 * then costs nothing. A tool whose only phrasings are the pack's gets what every tool of
 * the add matched to the same pack entry gets (the forks and mirrors of a server): one
 * merge and one analysis per entry, and one read-only list its documents share.
 */
function toolPhrasings(tool: ToolDefinition, extra: ExtraPhrasings, memo: AnalysisMemo): ToolPhrasings {
  const packOnly = isEmpty(tool.examples) && isEmpty(tool.phrasings) && isEmpty(extra.added);
  if (packOnly && isEmpty(extra.pack)) return phrasingField(NONE, memo);
  if (packOnly) {
    const pack = extra.pack!;
    return memo.byObject(pack, () => phrasingField(mergePhrasings(fromSource(pack, 'pack')), memo));
  }
  const merged = mergePhrasings(
    ownPhrasings(tool),
    fromSource(extra.added, 'added'),
    fromSource(extra.pack, 'pack'),
  );
  return phrasingField(merged, memo);
}

function phrasingField(phrasings: readonly Phrasing[], memo: AnalysisMemo): ToolPhrasings {
  return { phrasings, terms: memo.analyze(phrasingText(phrasings), PHRASINGS_CHARS) };
}

const isEmpty = (list: readonly string[] | undefined) => list === undefined || list.length === 0;

function phrasingText(phrasings: readonly Phrasing[]): string {
  return phrasings.length === 0 ? '' : phrasings.map((phrasing) => phrasing.text).join('\n');
}

/**
 * A tool name split into lower-case words, unstemmed, without its server prefix
 * (IndexedDoc.nameWords; read-only, shared); `bare` when the caller has bareName(name).
 */
export function nameWordsOf(name: string, bare: string = bareName(name)): readonly string[] {
  return identifierWords(bare);
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
  const embeddingPhrasings = phrasingText(phrasings)
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
 * measured with heapUsed before and after), and put each document in dictionary mode. It
 * normalises the description again rather than hold a normalised copy of it.
 */
class AnalysedDoc implements IndexedDoc {
  constructor(
    readonly id: number,
    readonly name: string,
    readonly toolset: string,
    readonly tool: ToolDefinition,
    readonly phrasings: readonly Phrasing[],
    readonly fields: IndexedDoc['fields'],
    readonly nameWords: readonly string[],
  ) {}

  get embeddingText(): string {
    return embeddingTextOf(this);
  }
}
