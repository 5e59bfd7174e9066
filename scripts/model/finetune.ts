/**
 * Fine-tunes the word vectors themselves for tool retrieval. A sentence vector is
 * the sum of its words' rows (the model's mean pooling + L2 norm give the same
 * cosine), so each row can be trained directly: contrastive loss over cosines
 * between a query and the tools of its batch (in-batch negatives, temperature),
 * plus an L2 pull of every touched row back to its starting value, so words
 * that training sees rarely or never keep their GloVe meaning and neighbours.
 * Each batch comes from one dataset, so its negatives are tools of the same registry.
 *
 * Held out: a fixed share of every dataset's tools (by a hash of the tool name)
 * and every query that has one of them as an answer are never trained on, so
 * the held-out slice (heldOutSlice) measures generalisation to unseen tools.
 * Deterministic: fixed seed, fixed order of sums.
 */
import { createHash } from 'node:crypto';
import { readDataset, mulberry32 as seeded } from '@toolsearch/core-search/eval';
import { analyzeTool, embeddingInput } from '@toolsearch/core-search/internals';

export interface FinetuneOptions {
  epochs: number;
  batchSize: number;
  learningRate: number;
  temperature: number;
  /** Weight of |row - initial row|^2, per touched row and step. */
  initPull: number;
  /** Share of each dataset's tools held out (with all their queries). */
  heldOutShare: number;
}

export const DEFAULT_FINETUNE: FinetuneOptions = {
  epochs: 10,
  batchSize: 128,
  learningRate: 3e-3,
  temperature: 0.05,
  initPull: 1,
  heldOutShare: 0.2,
};

interface Dataset {
  name?: string;
  license?: string;
  tools: { name: string; description?: string; category?: string | null }[];
  queries: { id?: string; query: string; relevant: string[] }[];
}

/** Whether a tool is in the held-out share: a hash of its name, so the split never depends on order. */
export function isHeldOutTool(name: string, share: number): boolean {
  const h = createHash('sha256').update(`toolsearch-finetune:${name}`).digest();
  return h.readUInt32BE(0) / 2 ** 32 < share;
}

/** The dataset restricted to queries whose answers include a held-out tool (all tools stay in the registry). */
export function heldOutSlice<T extends Dataset>(data: T, share: number): T {
  const held = new Set(data.tools.filter((t) => isHeldOutTool(t.name, share)).map((t) => t.name));
  return {
    ...data,
    name: `${data.name ?? 'dataset'}-heldout-tools`,
    queries: data.queries.filter((q) => q.relevant.some((name) => held.has(name))),
  };
}

/** Word ids of a text, the tokenizer's view: lower-case, split on non-alphanumerics, unknown words dropped. */
export function wordIds(text: string, idOf: Map<string, number>): number[] {
  const ids: number[] = [];
  for (const word of embeddingInput(text)
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)) {
    const id = idOf.get(word);
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

interface Group {
  file: string;
  tools: number[][];
  /** (query words, target tool, other relevant tools of the query) */
  pairs: { query: number[]; tool: number; also: number[] }[];
}

/** Training pairs of each dataset, held-out tools and their queries excluded. */
export function finetuneGroups(files: readonly string[], idOf: Map<string, number>, share: number): Group[] {
  return files.map((file) => {
    const data = readDataset(file);
    const index = new Map(data.tools.map((tool, i) => [tool.name, i]));
    const tools = data.tools.map((tool, i) => {
      const doc = analyzeTool({ ...tool, category: tool.category ?? undefined }, i);
      return wordIds(doc.embeddingText, idOf);
    });
    const pairs: Group['pairs'] = [];
    for (const q of data.queries) {
      if (q.relevant.some((name) => isHeldOutTool(name, share))) continue;
      const query = wordIds(q.query, idOf);
      const relevant = q.relevant.map((name) => index.get(name)).filter((i) => i !== undefined);
      if (query.length === 0) continue;
      for (const tool of relevant) {
        if (tools[tool]!.length > 0) pairs.push({ query, tool, also: relevant.filter((r) => r !== tool) });
      }
    }
    return { file, tools, pairs };
  });
}

function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}

/** Trains the rows in place (rows[id] = vector of word id); returns how many rows moved. */
export function finetuneRows(
  rows: Float64Array[],
  groups: readonly Group[],
  options: FinetuneOptions = DEFAULT_FINETUNE,
  log: (line: string) => void = () => {},
): number {
  const dims = rows[0]!.length;
  const initial = new Map<number, Float64Array>();
  const m = new Map<number, Float64Array>();
  const v = new Map<number, Float64Array>();
  const steps = new Map<number, number>();
  const random = seeded(7);
  const tau = options.temperature;

  const sum = (ids: readonly number[]) => {
    const out = new Float64Array(dims);
    for (const id of ids) {
      const row = rows[id]!;
      for (let k = 0; k < dims; k++) out[k]! += row[k]!;
    }
    return out;
  };
  const unit = (x: Float64Array) => {
    let s = 0;
    for (const y of x) s += y * y;
    const n = Math.sqrt(s) || 1;
    return { n, u: x.map((y) => y / n) };
  };

  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const batches: { group: Group; pairs: Group['pairs'] }[] = [];
    for (const group of groups) {
      const order = [...group.pairs];
      shuffle(order, random);
      for (let s = 0; s + 2 <= order.length; s += options.batchSize) {
        batches.push({ group, pairs: order.slice(s, s + options.batchSize) });
      }
    }
    shuffle(batches, random);
    let loss = 0;
    let count = 0;
    for (const { group, pairs } of batches) {
      const candidates = [...new Set(pairs.map((p) => p.tool))];
      const slot = new Map(candidates.map((tool, c) => [tool, c]));
      const qs = pairs.map((p) => unit(sum(p.query)));
      const ts = candidates.map((tool) => unit(sum(group.tools[tool]!)));
      const gq = pairs.map(() => new Float64Array(dims));
      const gt = candidates.map(() => new Float64Array(dims));
      const B = pairs.length;
      pairs.forEach((pair, i) => {
        const q = qs[i]!;
        const also = new Set(pair.also);
        const cos = ts.map((t) => q.u.reduce((s, x, k) => s + x * t.u[k]!, 0));
        const logits = cos.map((c, j) => (also.has(candidates[j]!) ? -Infinity : c / tau));
        const max = Math.max(...logits);
        const exp = logits.map((l) => Math.exp(l - max));
        const z = exp.reduce((s, e) => s + e, 0);
        const target = slot.get(pair.tool)!;
        loss += -(logits[target]! - max - Math.log(z));
        count++;
        exp.forEach((e, j) => {
          const g = (e / z - (j === target ? 1 : 0)) / tau / B;
          if (g === 0) return;
          const t = ts[j]!;
          const c = cos[j]!;
          for (let k = 0; k < dims; k++) {
            gq[i]![k]! += (g * (t.u[k]! - c * q.u[k]!)) / q.n;
            gt[j]![k]! += (g * (q.u[k]! - c * t.u[k]!)) / t.n;
          }
        });
      });
      // Row gradients: a sentence is a sum, so each occurrence of a word gets the sentence's gradient.
      const grads = new Map<number, Float64Array>();
      const spread = (ids: readonly number[], g: Float64Array) => {
        for (const id of ids) {
          let acc = grads.get(id);
          if (!acc) {
            acc = new Float64Array(dims);
            grads.set(id, acc);
          }
          for (let k = 0; k < dims; k++) acc[k]! += g[k]!;
        }
      };
      pairs.forEach((pair, i) => {
        spread(pair.query, gq[i]!);
      });
      candidates.forEach((tool, j) => {
        spread(group.tools[tool]!, gt[j]!);
      });
      for (const id of [...grads.keys()].sort((a, b) => a - b)) {
        const g = grads.get(id)!;
        const row = rows[id]!;
        if (!initial.has(id)) {
          initial.set(id, Float64Array.from(row));
          m.set(id, new Float64Array(dims));
          v.set(id, new Float64Array(dims));
        }
        const init = initial.get(id)!;
        const mm = m.get(id)!;
        const vv = v.get(id)!;
        const step = (steps.get(id) ?? 0) + 1;
        steps.set(id, step);
        for (let k = 0; k < dims; k++) {
          const gk = g[k]! + 2 * options.initPull * (row[k]! - init[k]!);
          mm[k] = 0.9 * mm[k]! + 0.1 * gk;
          vv[k] = 0.999 * vv[k]! + 0.001 * gk * gk;
          const mh = mm[k]! / (1 - 0.9 ** step);
          const vh = vv[k]! / (1 - 0.999 ** step);
          row[k]! -= (options.learningRate * mh) / (Math.sqrt(vh) + 1e-8);
        }
      }
    }
    log(`finetune: epoch ${epoch + 1}/${options.epochs} mean loss ${(loss / Math.max(1, count)).toFixed(4)}`);
  }
  return initial.size;
}

/** Recall@k and MRR of cosine retrieval with the rows (no quantisation), for quick measurement. */
export function evaluateRows(
  rows: Float64Array[],
  data: Dataset,
  idOf: Map<string, number>,
  k = 5,
): { queries: number; recall: number; mrr: number } {
  const dims = rows[0]!.length;
  const vec = (text: string) => {
    const out = new Float64Array(dims);
    for (const id of wordIds(text, idOf)) for (let i = 0; i < dims; i++) out[i]! += rows[id]![i]!;
    const n = Math.hypot(...out) || 1;
    return out.map((x) => x / n);
  };
  const tools = data.tools.map((tool, i) =>
    vec(analyzeTool({ ...tool, category: tool.category ?? undefined }, i).embeddingText),
  );
  let recall = 0;
  let mrr = 0;
  for (const q of data.queries) {
    const qv = vec(q.query);
    const scores = tools.map((t, i) => ({ i, s: t.reduce((s, x, d) => s + x * qv[d]!, 0) }));
    scores.sort((a, b) => b.s - a.s || a.i - b.i);
    const ranked = scores.map((s) => data.tools[s.i]!.name);
    const relevant = new Set(q.relevant);
    recall += ranked.slice(0, k).filter((name) => relevant.has(name)).length / relevant.size;
    const first = ranked.findIndex((name) => relevant.has(name));
    mrr += first < 0 ? 0 : 1 / (first + 1);
  }
  const n = Math.max(1, data.queries.length);
  return { queries: data.queries.length, recall: recall / n, mrr: mrr / n };
}
