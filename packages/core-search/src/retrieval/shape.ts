import type { QueryShape } from '../types.js';

/** The query shapes in a fixed order: state kept per shape lives in arrays by this place. */
export const SHAPES: readonly QueryShape[] = ['identifier', 'keywords', 'natural'];

/**
 * A shape's place in SHAPES, found by comparisons. Hot code looks per-shape state up by this
 * number, never as `record[shape]`: a keyed load on the shape's name there made V8 throw the
 * optimised function out ("wrong name", --trace-deopt) on every call once a second shape had
 * come, in some runs and not others, ~900 times in the first searches after 40 adds (one run
 * in four), fieldWeightedTfs and the TF-IDF patch among them.
 */
export function shapeNumber(shape: QueryShape): number {
  return shape === SHAPES[0] ? 0 : shape === SHAPES[1] ? 1 : 2;
}
