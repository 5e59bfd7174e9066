import { describe, expect, it } from 'vitest';
import { onGrid } from '../src/retrieval/grid.js';

describe('onGrid', () => {
  it('keeps a count below 2^bits exact', () => {
    for (let x = 0; x < 32; x++) expect(onGrid(x, 5)).toBe(x);
    expect(onGrid(3, 2)).toBe(3);
  });

  it('rounds a larger count to the nearest multiple of its step, about 2^-bits of it', () => {
    // 5 bits: 32-63 in steps of 2, 64-127 in steps of 4, 1000 in steps of 32.
    expect(onGrid(33, 5)).toBe(34); // halfway rounds up
    expect(onGrid(63, 5)).toBe(64);
    expect(onGrid(65, 5)).toBe(64);
    expect(onGrid(67, 5)).toBe(68);
    expect(onGrid(1000, 5)).toBe(992);
    expect(onGrid(1009, 5)).toBe(1024);
    for (let x = 32; x < 5000; x++) {
      const rounded = onGrid(x, 5);
      const step = 2 ** (Math.floor(Math.log2(x)) + 1 - 5);
      expect(rounded % step).toBe(0);
      expect(Math.abs(rounded - x)).toBeLessThanOrEqual(step / 2);
    }
  });

  it('never decreases as the count grows, and moves seldom for a large one', () => {
    let previous = 0;
    let steps = 0;
    for (let x = 1; x <= 20_000; x++) {
      const rounded = onGrid(x, 5);
      expect(rounded).toBeGreaterThanOrEqual(previous);
      if (x > 10_000 && rounded !== previous) steps++;
      previous = rounded;
    }
    // Between 10k and 20k the step is 512 or 1024: about fifteen moves in 10k counts.
    expect(steps).toBeLessThan(25);
  });

  it('takes counts past 2^31 by the floating-point path, on the same grid', () => {
    expect(onGrid(2 ** 33 + 5, 5)).toBe(2 ** 33);
    expect(onGrid(3 * 2 ** 31 + 5, 2)).toBe(3 * 2 ** 31); // 1.5 x 2^32: two bits kept
    expect(onGrid(2 ** 31 - 1, 5)).toBe(2 ** 31);
  });
});
