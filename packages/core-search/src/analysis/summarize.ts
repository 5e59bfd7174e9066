/**
 * A one-line summary of a description for result lists: the first sentence, markdown
 * and whitespace flattened, cut at a word boundary with an ellipsis to fit `maxChars`.
 */
export function summarize(description: string | undefined, maxChars = 80): string {
  if (!description) return '';
  const flat = description
    .slice(0, 2000)
    .normalize('NFKC')
    .replace(/```[\s\S]*?(```|$)/gu, ' ') // code blocks
    .replace(/[*`#>]+/gu, '') // emphasis, code, headings, quotes
    .replace(/(^|\s)_+|_+(?=\s|$)/gu, '$1') // _emphasis_, but not snake_case names
    .replace(/\[([^\]]*)\]\([^)]*\)/gu, '$1') // links -> their text
    .replace(/\s+/gu, ' ')
    .trim();
  // First sentence: up to ". " / "! " / "? " (not "e.g. x" mid-sentence abbreviations of one letter).
  const end = flat.search(/(?<!\b\p{L})[.!?](\s|$)/u);
  const sentence = end >= 0 ? flat.slice(0, end + 1) : flat;
  if (sentence.length <= maxChars) return sentence;
  const room = sentence.slice(0, maxChars - 1);
  const cut = room.lastIndexOf(' ');
  const head = (cut > maxChars / 2 ? room.slice(0, cut) : room).replace(/[\s,;:.\-–]+$/u, '');
  return `${head}…`;
}

/** How much of a query an answer repeats back (CLI lines, search_tools answers). */
export const QUOTED_QUERY_CHARS = 80;

/**
 * A query as an answer quotes it: whitespace flattened, at most `maxChars` characters
 * (then "…"), in double quotes. An agent pays for every token of an answer, and a long
 * query echoed back in full would cost it as much again.
 */
export function quoteQuery(query: string, maxChars = QUOTED_QUERY_CHARS): string {
  // Slice before flattening: a 200 KB query is not scanned whole for a short quote.
  const head = query.slice(0, maxChars * 4);
  const chars = [...head.replace(/\s+/gu, ' ').trim()];
  const cut = chars.length > maxChars || head.length < query.length;
  return `"${cut ? `${chars.slice(0, maxChars).join('').trimEnd()}…` : chars.join('')}"`;
}

/** "1 hit", "3 hits": a count with its noun (plural by "s"). */
export function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
