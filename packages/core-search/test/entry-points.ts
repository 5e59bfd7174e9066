import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Guards a package's public surface (package.json `exports`, tiered as src/index.ts says):
 * its entry points are exactly `expected`'s keys, each with the source, types and import
 * conditions side by side, shipped by `files`, and each exports exactly the listed values,
 * sorted. Adding, moving or removing an export fails, so a change to the public API is a
 * deliberate edit of the list. Shared by both packages' exports tests.
 */
export function describeEntryPoints(packageDir: URL, expected: Record<string, string[]>): void {
  interface Entry {
    'toolsearch-source': string;
    types: string;
    import: string;
  }
  const pkg = JSON.parse(readFileSync(new URL('package.json', packageDir), 'utf8')) as {
    exports: Record<string, Entry | string>;
    files: string[];
  };
  const entries = Object.entries(pkg.exports).filter((e): e is [string, Entry] => typeof e[1] !== 'string');

  describe('package entry points', () => {
    it(`are exactly ${Object.keys(expected).join(', ')}, each with source, types and import, all shipped`, () => {
      expect(entries.map(([path]) => path).sort()).toEqual(Object.keys(expected).sort());
      for (const [, entry] of entries) {
        const stem = entry['toolsearch-source'].replace(/^\.\/src\//, '').replace(/\.ts$/, '');
        expect(entry).toEqual({
          'toolsearch-source': `./src/${stem}.ts`,
          types: `./dist/${stem}.d.ts`,
          import: `./dist/${stem}.js`,
        });
      }
      expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'src']));
    });

    it.each(entries)('%s exports exactly its listed values', async (path, entry) => {
      const module = (await import(new URL(entry['toolsearch-source'], packageDir).href)) as object;
      expect(Object.keys(module).sort()).toEqual(expected[path]);
    });

    it('no value is exported from two tiers', () => {
      const all = Object.values(expected).flat();
      expect(new Set(all).size).toBe(all.length);
    });
  });
}
