/**
 * Smooth inverse frequency (Arora et al. 2017): weight a/(a+p(w)) so frequent
 * words count less in a mean, then remove the first principal component, the
 * direction all word vectors share, which otherwise dominates every cosine.
 */

/** p(w) from the frequency rank, assuming Zipf's law over the whole source vocabulary. */
export function zipfProbability(rank: number, vocabularySize: number): number {
  let harmonic = 0;
  for (let r = 1; r <= vocabularySize; r++) harmonic += 1 / r;
  return 1 / (rank * harmonic);
}

export function sifWeight(probability: number, a: number): number {
  return a / (a + probability);
}

/**
 * The first (uncentered) principal direction of `rows`, by power iteration on
 * the dims x dims scatter matrix. Deterministic: fixed start, fixed order.
 */
export function firstPrincipalDirection(rows: Float64Array[], dims: number): Float64Array {
  const scatter = new Float64Array(dims * dims);
  for (const row of rows) {
    for (let i = 0; i < dims; i++) {
      const ri = row[i]!;
      for (let j = 0; j < dims; j++) scatter[i * dims + j]! += ri * row[j]!;
    }
  }
  let direction = new Float64Array(dims).fill(1 / Math.sqrt(dims));
  for (let iteration = 0; iteration < 500; iteration++) {
    const next = new Float64Array(dims);
    for (let i = 0; i < dims; i++) {
      let sum = 0;
      for (let j = 0; j < dims; j++) sum += scatter[i * dims + j]! * direction[j]!;
      next[i] = sum;
    }
    const norm = Math.hypot(...next);
    for (let i = 0; i < dims; i++) next[i]! /= norm;
    let change = 0;
    for (let i = 0; i < dims; i++) change += Math.abs(next[i]! - direction[i]!);
    direction = next;
    if (change < 1e-12) break;
  }
  return direction;
}

/** row - (row . u) u, in place. */
export function projectOut(row: Float64Array, direction: Float64Array): void {
  let dot = 0;
  for (let i = 0; i < row.length; i++) dot += row[i]! * direction[i]!;
  for (let i = 0; i < row.length; i++) row[i]! -= dot * direction[i]!;
}

/** Per-row symmetric int8 quantisation: row ~= q * scale, q in [-127, 127]. */
export function quantizeRow(row: Float64Array): { q: Int8Array; scale: number } {
  let max = 0;
  for (const v of row) max = Math.max(max, Math.abs(v));
  const scale = max === 0 ? 1 : max / 127;
  const q = new Int8Array(row.length);
  for (let i = 0; i < row.length; i++) q[i] = Math.round(row[i]! / scale);
  return { q, scale };
}
