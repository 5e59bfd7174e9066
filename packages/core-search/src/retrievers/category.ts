import { analyze } from '../analysis/analyze.js';
import { DEFAULTS } from '../defaults.js';
import type { RetrieverContext } from '../retrieval/context.js';
import type { AnalyzedQuery, IndexedDoc, RetrievalHit, Retriever } from '../retriever.js';

interface Toolset {
  /** Distinctive analysed words of the toolset's name ("server-github" -> ["github"]). */
  terms: string[];
  /** Its tools' ids, ascending: an array, where a Set cost ~30 more bytes a tool. */
  ids: number[];
}

/**
 * `category`: when a query names a toolset ("github", "playwright", "math"), every
 * tool of that toolset gets the same boost, i.e. the same rank in fusion. A toolset is
 * named when every distinctive word of its name is in the query; rarer names score
 * higher. Measured, a looser match (any word of the toolset's name, or of its tools'
 * names) reorders results within toolsets that were merely related and cost up to 15
 * points of R@5 on BFCL, so this strategy is deliberately strict.
 */
export function createCategoryRetriever({ docs }: Pick<RetrieverContext, 'docs'>): Retriever {
  const toolsets = new Map<string, Toolset>();
  /** name term -> toolsets whose name has it */
  const byTerm = new Map<string, Set<string>>();
  const generic = new Set(DEFAULTS.category.genericWords.flatMap((word) => analyze(word)));

  const toolsetFor = (name: string): Toolset => {
    let toolset = toolsets.get(name);
    if (!toolset) {
      // "default" is the absence of a toolset, not a name a query can mention.
      const terms =
        name === 'default' ? [] : [...new Set(analyze(name))].filter((term) => !generic.has(term));
      toolset = { terms, ids: [] };
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
    add(added: readonly IndexedDoc[]) {
      for (const doc of added) {
        const { ids } = toolsetFor(doc.toolset);
        // Appended (a push: a splice made an array per call; category add() of the ~100k-tool
        // corpus 42 -> 29 ms CPU, median of 9, interleaved, load 9), unless a tool is
        // re-indexed under its old id.
        let at = ids.length;
        while (at > 0 && ids[at - 1]! > doc.id) at--;
        if (ids[at - 1] === doc.id) continue;
        if (at === ids.length) ids.push(doc.id);
        else ids.splice(at, 0, doc.id);
      }
    },
    remove(ids) {
      // A removed tool's toolset is read from its document (the engine removes a document
      // from its retrievers before it drops it): a toolset name per id cost ~40 bytes a tool.
      const removed = new Map<string, Set<number>>();
      for (const id of ids) {
        const name = docs.get(id)?.toolset;
        if (name === undefined || !toolsets.has(name)) continue;
        const ofToolset = removed.get(name);
        if (ofToolset) ofToolset.add(id);
        else removed.set(name, new Set([id]));
      }
      for (const [name, gone] of removed) {
        const toolset = toolsets.get(name)!;
        toolset.ids = toolset.ids.filter((id) => !gone.has(id));
        if (toolset.ids.length > 0) continue;
        toolsets.delete(name);
        for (const term of toolset.terms) {
          byTerm.get(term)?.delete(name);
          if (byTerm.get(term)?.size === 0) byTerm.delete(term);
        }
      }
    },
    retrieve(query: AnalyzedQuery, limit, accept) {
      if (toolsets.size < 2) return []; // one toolset: nothing to tell apart
      // Most queries name no toolset: a lookup per word in a loop, nothing made (this runs
      // once per search, unoptimised for the first thousand or so searches).
      const queryTerms = query.terms;
      let candidates: Set<string> | undefined;
      for (let t = 0; t < queryTerms.length; t++) {
        const names = byTerm.get(queryTerms[t]!);
        if (names === undefined) continue;
        candidates ??= new Set();
        for (const name of names) candidates.add(name);
      }
      if (candidates === undefined) return [];
      const named: [string, number][] = [];
      for (const name of candidates) {
        const { terms } = toolsets.get(name)!;
        if (!terms.every((term) => queryTerms.includes(term))) continue;
        const score = terms.reduce(
          (sum, term) => sum + Math.log(1 + toolsets.size / byTerm.get(term)!.size),
          0,
        );
        named.push([name, score]);
      }
      named.sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
      const hits: RetrievalHit[] = [];
      for (let k = 0; k < named.length && k < DEFAULTS.category.maxToolsets && hits.length < limit; k++) {
        const [name, score] = named[k]!;
        const { ids } = toolsets.get(name)!; // ascending
        for (let i = 0; i < ids.length && hits.length < limit; i++) {
          const id = ids[i]!;
          if (!accept || accept(id)) hits.push({ id, score, matched: [name] });
        }
      }
      return hits;
    },
  };
}
