/** Word counts over the tool names and descriptions of dataset files (queries are never read). */
import { readFileSync } from 'node:fs';

/** "browser_takeScreenshot" -> "browser take Screenshot": identifiers become words before counting. */
export function splitIdentifiers(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_\-./:]+/g, ' ');
}

export function corpusWordCounts(files: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of files) {
    const data = JSON.parse(readFileSync(file, 'utf8')) as {
      tools: { name: string; description?: string }[];
    };
    for (const tool of data.tools) {
      const text = splitIdentifiers(`${tool.name} ${tool.description ?? ''}`).toLowerCase();
      for (const word of text.match(/[a-z0-9]+/g) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return counts;
}
