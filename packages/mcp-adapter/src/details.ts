/**
 * Details that teach the caller how a tool is asked for and what goes with it:
 * a few everyday requests (learned from use first, then model-written or the
 * tool's own) and related tools (called together in past conversations, else
 * the closest tools of its toolset). Bounded so that a detail costs a few
 * dozen tokens, whatever the store holds.
 */
import type { Catalog } from './catalog.js';
import type { Learning } from './learn/learning.js';

export const DETAIL_LIMITS = {
  /** Requests shown per tool. */
  examples: 3,
  /** Characters per request shown. */
  exampleChars: 80,
  /** Related tools shown per tool. */
  related: 3,
  /** Tools of one answer that get details (a 20-hit search does not get 20). */
  tools: 5,
} as const satisfies Record<string, number>;

export interface ToolDetail {
  examples: string[];
  related: string[];
}

export async function toolDetails(
  catalog: Catalog,
  learning: Learning | undefined,
  names: readonly string[],
): Promise<Map<string, ToolDetail>> {
  const out = new Map<string, ToolDetail>();
  for (const name of names.slice(0, DETAIL_LIMITS.tools)) {
    if (!catalog.has(name)) continue;
    const seen = new Set<string>();
    const examples: string[] = [];
    for (const text of [
      ...(learning?.queriesFor(name, DETAIL_LIMITS.examples) ?? []),
      ...catalog.phrasingsOf(name),
    ]) {
      const short = text.replace(/\s+/g, ' ').trim().slice(0, DETAIL_LIMITS.exampleChars);
      const key = short.toLowerCase();
      if (short === '' || seen.has(key)) continue;
      seen.add(key);
      examples.push(short);
      if (examples.length >= DETAIL_LIMITS.examples) break;
    }
    let related = (learning?.related(name, DETAIL_LIMITS.related * 2) ?? []).filter((n) => catalog.has(n));
    if (related.length === 0) related = await catalog.closest(name, DETAIL_LIMITS.related);
    out.set(name, { examples, related: related.slice(0, DETAIL_LIMITS.related) });
  }
  return out;
}

/** One line under a tool: `  e.g. "a"; "b" | used with: x, y`, or '' when there is nothing to say. */
export function renderDetail(detail: ToolDetail | undefined, indent = '   '): string {
  if (!detail) return '';
  const parts: string[] = [];
  if (detail.examples.length > 0)
    parts.push(`e.g. ${detail.examples.map((e) => JSON.stringify(e)).join('; ')}`);
  if (detail.related.length > 0) parts.push(`related: ${detail.related.join(', ')}`);
  return parts.length > 0 ? `${indent}${parts.join(' | ')}` : '';
}
