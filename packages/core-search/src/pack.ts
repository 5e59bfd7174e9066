/**
 * The phrasing pack: everyday requests written for the tools of the bundled registry
 * (pack/<server>.json, see pack/README.md), applied to any tool list.
 *
 * A tool is recognised by WHAT it is, not by the key a user gave its server in mcp.json:
 * its bare name (after a `server__` prefix; compared by letters and digits only) must
 * equal the registry tool's, and its definition must be the one the pack was written for,
 * or close to it (another server version may reword a description or add a parameter). Another server's `create_issue`
 * does not get GitHub's phrasings: its description and parameters differ.
 *
 * The registry definitions are not shipped a second time: the pack fingerprints the
 * bundled registry lazily (description words and parameter names of the pack's tools
 * only), once per process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AnalysisMemo, analyze } from './analysis/analyze.js';
import { bareName, compactKey } from './analysis/identifier.js';
import { normalizeText } from './analysis/normalize.js';
import { readTools } from './dataset.js';
import { DEFAULTS } from './defaults.js';
import { ToolSearchError } from './errors.js';
import { bundledRegistryPath } from './registry.js';
import type { ToolDefinition } from './types.js';

/** One pack file: the phrasings of one server's tools, by bare tool name. */
export interface PackFile {
  server: string;
  package?: string;
  tools: Record<string, string[]>;
}

/** A registry tool with the server it belongs to (fixtures/registry/tools.json `meta`). */
export interface PackRegistryTool extends ToolDefinition {
  meta?: { server?: string; toolName?: string; [key: string]: unknown };
}

/** The pack entry a tool was recognised as. */
export interface PackMatch {
  server: string;
  toolName: string;
  phrasings: readonly string[];
  /** How the definition compared: the same description, or similar enough. */
  how: 'exact' | 'similar';
}

interface Fingerprint {
  server: string;
  toolName: string;
  description: string;
  terms: ReadonlySet<string>;
  params: ReadonlySet<string>;
  phrasings: readonly string[];
}

/**
 * How close a tool's definition is to a pack tool's (0..1), or undefined when too far
 * (thresholds in DEFAULTS.pack): description words and parameter names, each by Jaccard.
 * The same parameters (several of them) identify an API even when the prose was rewritten.
 */
function similarity(
  tool: { terms: ReadonlySet<string>; params: ReadonlySet<string> },
  fingerprint: Fingerprint,
): number | undefined {
  const { minDescriptionSimilarity, minSimilarity, minSharedParams, minParamSimilarity } = DEFAULTS.pack;
  const description = jaccard(tool.terms, fingerprint.terms);
  const sharedParams = shared(tool.params, fingerprint.params);
  // Two tools without parameters agree on them.
  const params =
    tool.params.size === 0 && fingerprint.params.size === 0 ? 1 : jaccard(tool.params, fingerprint.params);
  const score = (description + params) / 2;
  if (description >= minDescriptionSimilarity && score >= minSimilarity) return score;
  if (sharedParams >= minSharedParams && params >= minParamSimilarity) return score;
  return undefined;
}

function shared(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let count = 0;
  for (const item of a) if (b.has(item)) count++;
  return count;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  const both = shared(a, b);
  return both / (a.size + b.size - both);
}

/** A description as compared for an exact match; `memo` remembers the normalisation for analysis. */
const descriptionKey = (text: string | undefined, memo?: AnalysisMemo) =>
  (memo ? memo.normalize(text ?? '') : normalizeText(text ?? '')).toLowerCase();

function parameterNames(tool: ToolDefinition): Set<string> {
  const properties = tool.inputSchema?.properties;
  return new Set(properties && typeof properties === 'object' ? Object.keys(properties) : []);
}

export class PhrasingPack {
  private readonly byBareName = new Map<string, Fingerprint[]>();
  /** Pack servers, sorted. */
  readonly servers: readonly string[];

  /**
   * A pack from pack files and the registry definitions they were written for. Throws
   * INVALID_PACK when a file names a tool the registry does not hold for that server.
   */
  constructor(packs: readonly PackFile[], registry: readonly PackRegistryTool[]) {
    const definitions = new Map<string, PackRegistryTool>();
    for (const tool of registry) {
      const server = tool.meta?.server;
      const toolName = tool.meta?.toolName ?? bareName(tool.name);
      if (typeof server === 'string') definitions.set(`${server}\u0000${toolName}`, tool);
    }
    const servers = new Set<string>();
    for (const pack of packs) {
      servers.add(pack.server);
      for (const [toolName, phrasings] of Object.entries(pack.tools)) {
        const tool = definitions.get(`${pack.server}\u0000${toolName}`);
        if (!tool) {
          throw new ToolSearchError(
            'INVALID_PACK',
            `toolsearch: pack "${pack.server}" has phrasings for "${toolName}", which the registry does not hold for that server`,
            [{ name: toolName, field: `tools.${toolName}`, message: 'not a registry tool of this server' }],
          );
        }
        const fingerprint: Fingerprint = {
          server: pack.server,
          toolName,
          description: descriptionKey(tool.description),
          terms: new Set(analyze(tool.description ?? '')),
          params: parameterNames(tool),
          phrasings,
        };
        // By the name's letters and digits: `tavily-search` and `tavily_search` are one tool
        // in two versions of a server.
        const key = compactKey(toolName);
        const list = this.byBareName.get(key) ?? [];
        list.push(fingerprint);
        this.byBareName.set(key, list);
      }
    }
    this.servers = [...servers].sort();
  }

  /** The pack shipped with this package (pack/*.json), read once, on first use. */
  static shipped(): PhrasingPack {
    shippedPack ??= loadShipped();
    return shippedPack;
  }

  /**
   * The pack entry this tool is, or undefined. With `exclude`, entries of those servers
   * are left out (leave-one-server-out measurement): a tool recognised as an excluded
   * server's tool gets nothing, never a lesser match from another server.
   */
  match(tool: ToolDefinition, exclude?: ReadonlySet<string>, memo?: AnalysisMemo): PackMatch | undefined {
    const candidates = this.byBareName.get(compactKey(bareName(tool.name)));
    if (!candidates) return undefined;
    // With the memo of the add() indexing this tool, its description is analysed once for both.
    const text = tool.description ?? '';
    const description = descriptionKey(text, memo);
    const own = {
      terms: new Set(memo ? memo.analyze(text) : analyze(text)),
      params: parameterNames(tool),
    };
    let best: { fingerprint: Fingerprint; score: number; how: PackMatch['how'] } | undefined;
    for (const fingerprint of candidates) {
      let score: number;
      let how: PackMatch['how'];
      if (description !== '' && description === fingerprint.description) {
        score = 2;
        how = 'exact';
      } else {
        const similar = similarity(own, fingerprint);
        if (similar === undefined) continue;
        score = similar;
        how = 'similar';
      }
      // Ties (the same definition on two servers) go to the first server by name: stable.
      if (
        !best ||
        score > best.score ||
        (score === best.score && fingerprint.server < best.fingerprint.server)
      ) {
        best = { fingerprint, score, how };
      }
    }
    if (!best || exclude?.has(best.fingerprint.server)) return undefined;
    const { server, toolName, phrasings } = best.fingerprint;
    return { server, toolName, phrasings, how: best.how };
  }
}

let shippedPack: PhrasingPack | undefined;

/** The folder of the shipped pack: pack/ beside src/ and dist/. */
export function shippedPackDir(): string {
  return fileURLToPath(new URL('../pack/', import.meta.url));
}

function loadShipped(): PhrasingPack {
  const dir = shippedPackDir();
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort();
  } catch {
    names = []; // no pack folder: an engine without pack phrasings, not a failure
  }
  const packs = names.map((name) => readPackFile(join(dir, name)));
  return new PhrasingPack(packs, packs.length === 0 ? [] : readTools(bundledRegistryPath()));
}

/** Read and validate one pack file; problems are INVALID_PACK errors naming the file and field. */
export function readPackFile(path: string): PackFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ToolSearchError('INVALID_PACK', `toolsearch: pack ${path}: ${(error as Error).message}`);
  }
  return parsePackFile(json, path);
}

export function parsePackFile(json: unknown, origin: string): PackFile {
  const fail = (field: string, message: string): never => {
    throw new ToolSearchError('INVALID_PACK', `toolsearch: pack ${origin}: "${field}" ${message}`, [
      { field, message },
    ]);
  };
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return fail('(file)', 'must be an object');
  const data = json as Record<string, unknown>;
  if (typeof data.server !== 'string' || data.server === '') fail('server', 'must be a non-empty string');
  if (data.package !== undefined && typeof data.package !== 'string') fail('package', 'must be a string');
  const tools = data.tools;
  if (tools === null || typeof tools !== 'object' || Array.isArray(tools))
    return fail('tools', 'must be an object');
  for (const [name, phrasings] of Object.entries(tools)) {
    if (!Array.isArray(phrasings)) fail(`tools.${name}`, 'must be an array of strings');
    (phrasings as unknown[]).forEach((item, i) => {
      if (typeof item !== 'string' || item.trim() === '')
        fail(`tools.${name}[${i}]`, 'must be a non-empty string');
    });
  }
  return data as unknown as PackFile;
}
