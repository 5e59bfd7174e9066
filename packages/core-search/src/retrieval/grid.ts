/**
 * A count (a document frequency, the document count) rounded to `bits` significant bits: the
 * nearest multiple of 2^(floor(log2 x) + 1 - bits), so a count below 2^bits is kept exact and
 * a larger one moves in steps of about 2^-bits of itself. The rounded count is a function of
 * the count alone, so what is made from it stays a function of the set of documents (a fresh
 * build and an engine changed by adds score alike), while one add() moves a large count past
 * a step only now and then (TF-IDF's norms: DESIGN.md, "After an add(): norms on a grid").
 */
export function onGrid(x: number, bits: number): number {
  if (!(x > 0)) return x;
  // By integer operations (once per changed term per update): a floating-point log2 and
  // division here were a tenth of the TF-IDF update.
  if (x < 2 ** 31 && (x | 0) === x) {
    const drop = 32 - Math.clz32(x) - bits; // low bits below the kept ones
    if (drop <= 0) return x;
    return ((x + (1 << (drop - 1))) >>> drop) * 2 ** drop;
  }
  let exponent = Math.floor(Math.log2(x));
  // log2 of a number just below a power of two can round up to it: the binade is x's own.
  if (2 ** exponent > x) exponent--;
  const step = 2 ** (exponent + 1 - bits);
  return Math.round(x / step) * step;
}
