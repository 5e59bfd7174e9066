/**
 * Adapts the word vectors to tool retrieval with one linear map W (dims x dims),
 * learnt on (query, relevant tool) pairs of labelled datasets and then applied to
 * every row of the table. Mean pooling is linear, so W(mean of rows) = mean of
 * W(rows): the adapted model is still a plain lookup table. Loss: in-batch softmax
 * over cosines (each query against every tool of the batch), plus a pull of W
 * towards the identity so words unseen in training keep their GloVe neighbours.
 * Deterministic: fixed shuffling seed, fixed order of sums.
 */
import { readFileSync } from 'node:fs';
import { mulberry32 as seeded } from '@toolsearch/core-search/eval';
import { analyzeTool, embeddingInput } from '@toolsearch/core-search/internals';

export interface AdaptOptions {
  epochs: number;
  batchSize: number;
  learningRate: number;
  temperature: number;
  /** Weight of |W - I|^2. */
  identityPull: number;
}

export const DEFAULT_ADAPT: AdaptOptions = {
  epochs: 8,
  batchSize: 128,
  learningRate: 2e-3,
  temperature: 0.05,
  identityPull: 1e-3,
};

interface Dataset {
  tools: { name: string; description?: string; category?: string | null }[];
  queries: { query: string; relevant: string[] }[];
}

/** Sum of the rows of the text's known words (the tokenizer's view: lower-case, split on non-alphanumerics). */
export function bagVector(text: string, rowOf: Map<string, Float64Array>, dims: number): Float64Array {
  const sum = new Float64Array(dims);
  for (const word of embeddingInput(text)
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)) {
    const row = rowOf.get(word);
    if (row) for (let i = 0; i < dims; i++) sum[i]! += row[i]!;
  }
  return sum;
}

/** (query vector, tool vector) pairs of the datasets' labelled queries. */
export function trainingPairs(files: readonly string[], rowOf: Map<string, Float64Array>, dims: number) {
  const pairs: [Float64Array, Float64Array][] = [];
  for (const file of files) {
    const data = JSON.parse(readFileSync(file, 'utf8')) as Dataset;
    const toolVector = new Map<string, Float64Array>();
    data.tools.forEach((tool, i) => {
      const doc = analyzeTool({ ...tool, category: tool.category ?? undefined }, i);
      toolVector.set(tool.name, bagVector(doc.embeddingText, rowOf, dims));
    });
    for (const q of data.queries) {
      const qv = bagVector(q.query, rowOf, dims);
      for (const name of q.relevant) {
        const tv = toolVector.get(name);
        if (tv) pairs.push([qv, tv]);
      }
    }
  }
  return pairs.filter(([q, t]) => norm(q) > 0 && norm(t) > 0);
}

function norm(v: Float64Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

/** Learns W (row-major dims x dims), starting from the identity, with Adam. */
export function learnMap(
  pairs: readonly [Float64Array, Float64Array][],
  dims: number,
  options: AdaptOptions = DEFAULT_ADAPT,
  log: (line: string) => void = () => {},
): Float64Array {
  const W = new Float64Array(dims * dims);
  for (let i = 0; i < dims; i++) W[i * dims + i] = 1;
  const m = new Float64Array(dims * dims);
  const v = new Float64Array(dims * dims);
  let step = 0;
  const random = seeded(42);
  const order = pairs.map((_, i) => i);
  const apply = (x: Float64Array) => {
    const out = new Float64Array(dims);
    for (let r = 0; r < dims; r++) {
      let s = 0;
      for (let c = 0; c < dims; c++) s += W[r * dims + c]! * x[c]!;
      out[r] = s;
    }
    return out;
  };
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    let epochLoss = 0;
    for (let start = 0; start + 2 <= order.length; start += options.batchSize) {
      const batch = order.slice(start, start + options.batchSize).map((i) => pairs[i]!);
      const B = batch.length;
      const a = batch.map(([q]) => q);
      const b = batch.map(([, t]) => t);
      const u = a.map(apply);
      const w = b.map(apply);
      const un = u.map(norm);
      const wn = w.map(norm);
      const uh = u.map((x, i) => x.map((y) => y / un[i]!));
      const wh = w.map((x, i) => x.map((y) => y / wn[i]!));
      const cos = uh.map((x) => wh.map((y) => x.reduce((s, xi, k) => s + xi * y[k]!, 0)));
      // G[i][j] = dLoss/dcos[i][j]
      const G = cos.map((row, i) => {
        const logits = row.map((c) => c / options.temperature);
        const max = Math.max(...logits);
        const exp = logits.map((l) => Math.exp(l - max));
        const z = exp.reduce((s, e) => s + e, 0);
        epochLoss += -(logits[i]! - max - Math.log(z));
        return exp.map((e, j) => (e / z - (i === j ? 1 : 0)) / options.temperature / B);
      });
      const grad = new Float64Array(dims * dims);
      const accumulate = (g: Float64Array, x: Float64Array) => {
        for (let r = 0; r < dims; r++) {
          const gr = g[r]!;
          if (gr === 0) continue;
          for (let c = 0; c < dims; c++) grad[r * dims + c]! += gr * x[c]!;
        }
      };
      for (let i = 0; i < B; i++) {
        const gu = new Float64Array(dims);
        for (let j = 0; j < B; j++) {
          const g = G[i]![j]!;
          for (let k = 0; k < dims; k++) gu[k]! += (g * (wh[j]![k]! - cos[i]![j]! * uh[i]![k]!)) / un[i]!;
        }
        accumulate(gu, a[i]!);
      }
      for (let j = 0; j < B; j++) {
        const gw = new Float64Array(dims);
        for (let i = 0; i < B; i++) {
          const g = G[i]![j]!;
          for (let k = 0; k < dims; k++) gw[k]! += (g * (uh[i]![k]! - cos[i]![j]! * wh[j]![k]!)) / wn[j]!;
        }
        accumulate(gw, b[j]!);
      }
      step++;
      for (let p = 0; p < dims * dims; p++) {
        const identity = p % (dims + 1) === 0 ? 1 : 0;
        const g = grad[p]! + 2 * options.identityPull * (W[p]! - identity);
        m[p] = 0.9 * m[p]! + 0.1 * g;
        v[p] = 0.999 * v[p]! + 0.001 * g * g;
        const mh = m[p]! / (1 - 0.9 ** step);
        const vh = v[p]! / (1 - 0.999 ** step);
        W[p]! -= (options.learningRate * mh) / (Math.sqrt(vh) + 1e-8);
      }
    }
    log(`adapt: epoch ${epoch + 1}/${options.epochs} mean loss ${(epochLoss / order.length).toFixed(4)}`);
  }
  return W;
}

export function applyMap(W: Float64Array, row: Float64Array): Float64Array {
  const dims = row.length;
  const out = new Float64Array(dims);
  for (let r = 0; r < dims; r++) {
    let s = 0;
    for (let c = 0; c < dims; c++) s += W[r * dims + c]! * row[c]!;
    out[r] = s;
  }
  return out;
}
