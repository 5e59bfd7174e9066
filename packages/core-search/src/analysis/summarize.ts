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
