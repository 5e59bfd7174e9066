import { analyze } from '../analysis/analyze.js';
import { DEFAULTS } from '../defaults.js';
import type { AnalyzedQuery, IndexedDoc, RetrievalHit, Retriever } from '../retriever.js';

interface Toolset {
  /** Distinctive analysed words of the toolset's name ("server-github" -> ["github"]). */
  terms: string[];
  ids: Set<number>;
}

/**
 * `category`: when a query names a toolset ("github", "playwright", "math"), every
 * tool of that toolset gets the same boost, i.e. the same rank in fusion. A toolset is
 * named when every distinctive word of its name is in the query; rarer names score
 * higher. Measured, a looser match (any word of the toolset's name, or of its tools'
 * names) reorders results within toolsets that were merely related and cost up to 15
 * points of R@5 on BFCL, so this strategy is deliberately strict.
 */
export function createCategoryRetriever(): Retriever {
  const toolsets = new Map<string, Toolset>();
  /** name term -> toolsets whose name has it */
  const byTerm = new Map<string, Set<string>>();
  const toolsetOf = new Map<number, string>();
  const generic = new Set(DEFAULTS.category.genericWords.flatMap((word) => analyze(word)));

  const toolsetFor = (name: string): Toolset => {
    let toolset = toolsets.get(name);
    if (!toolset) {
      // "default" is the absence of a toolset, not a name a query can mention.
      const terms =
        name === 'default' ? [] : [...new Set(analyze(name))].filter((term) => !generic.has(term));
      toolset = { terms, ids: new Set() };
      toolsets.set(name, toolset);
      for (const term of terms) {
        const names = byTerm.get(term) ?? new Set<string>();
        names.add(name);
        byTerm.set(term, names);
      }
    }
    return toolset;
  };

  return {
    name: 'category',
    add(docs: readonly IndexedDoc[]) {
      for (const doc of docs) {
        toolsetFor(doc.toolset).ids.add(doc.id);
        toolsetOf.set(doc.id, doc.toolset);
      }
    },
    remove(ids) {
      for (const id of ids) {
        const name = toolsetOf.get(id);
        if (name === undefined) continue;
        const toolset = toolsets.get(name)!;
        toolset.ids.delete(id);
        toolsetOf.delete(id);
        if (toolset.ids.size > 0) continue;
        toolsets.delete(name);
        for (const term of toolset.terms) {
          byTerm.get(term)?.delete(name);
          if (byTerm.get(term)?.size === 0) byTerm.delete(term);
        }
      }
    },
    retrieve(query: AnalyzedQuery, limit, accept) {
      if (toolsets.size < 2) return []; // one toolset: nothing to tell apart
      const queryTerms = new Set(query.terms);
      const candidates = new Set<string>();
      for (const term of queryTerms) for (const name of byTerm.get(term) ?? []) candidates.add(name);
      const named: [string, number][] = [];
      for (const name of candidates) {
        const { terms } = toolsets.get(name)!;
        if (!terms.every((term) => queryTerms.has(term))) continue;
        const score = terms.reduce(
          (sum, term) => sum + Math.log(1 + toolsets.size / byTerm.get(term)!.size),
          0,
        );
        named.push([name, score]);
      }
      named.sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
      const hits: RetrievalHit[] = [];
      for (const [name, score] of named.slice(0, DEFAULTS.category.maxToolsets)) {
        const ids = [...toolsets.get(name)!.ids].filter((id) => !accept || accept(id)).sort((a, b) => a - b);
        for (const id of ids) hits.push({ id, score, matched: [name] });
      }
      return hits.slice(0, limit);
    },
  };
}
