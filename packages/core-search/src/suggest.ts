import { distance } from 'fastest-levenshtein';

/**
 * Did-you-mean for a name that is not known (an unknown toolset in the engine's error and in
 * the MCP adapter's): the known names spelled closest to `wanted`, nearest first, at most
 * `limit`. Close means, ignoring case, within max(2, ⌊length / 3⌋) edits (one typo in a short
 * name, a few in a long one) or containing `wanted` ("git" → "server-git"). Ties break by name,
 * so the same names always give the same answer. Work is bounded by the names near `wanted`
 * in length: a name whose length differs by more than the allowed edits, and does not contain
 * it, is never compared, so a megabyte-long `wanted` costs one pass over the lengths.
 */
export function closestNames(wanted: string, known: Iterable<string>, limit: number): string[] {
  const lower = wanted.toLowerCase();
  if (lower === '') return [];
  const allowed = Math.max(2, Math.floor(lower.length / 3));
  const near: { name: string; d: number }[] = [];
  for (const name of known) {
    const candidate = name.toLowerCase();
    const contains = candidate.length >= lower.length && candidate.includes(lower);
    if (!contains && Math.abs(candidate.length - lower.length) > allowed) continue;
    const d = distance(lower, candidate);
    if (d <= allowed || contains) near.push({ name, d });
  }
  return near
    .sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, Math.max(0, limit))
    .map((n) => n.name);
}
