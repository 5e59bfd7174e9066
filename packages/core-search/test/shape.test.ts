import { describe, expect, it } from 'vitest';
import { SHAPES, shapeNumber } from '../src/retrieval/shape.js';

describe('query shapes by number', () => {
  it('gives each shape its place in SHAPES, which holds each shape once', () => {
    expect(new Set(SHAPES).size).toBe(SHAPES.length);
    expect(SHAPES.map(shapeNumber)).toEqual(SHAPES.map((_, i) => i));
  });
});
