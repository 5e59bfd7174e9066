/**
 * What an embedding model is given. Word-level models know "take" and
 * "screenshot" but not "takeScreenshot", so camelCase and snake_case
 * identifiers are split into words (the same way for queries and documents)
 * before tokenising; other punctuation is left to the model's tokenizer.
 */
export function embeddingInput(text: string): string {
  return text
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/_+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
