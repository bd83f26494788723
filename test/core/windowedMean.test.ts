import { describe, expect, it } from 'vitest';
import { mean } from '../../src/core/windowedMean';

describe('mean', () => {
  it('is the sum over the count, and NaN when empty', () => {
    expect(mean([1, 2, 3, 6])).toBe(3);
    expect(mean([])).toBeNaN();
  });
  it('sums left to right as Python does: (1e16 + 1) − 1e16 rounds to 0, not 1', () => {
    // Python: sum([1e16, 1.0, -1e16]) / 3 == 0.0; a pairwise or compensated sum would give 1/3.
    expect(mean([1e16, 1, -1e16])).toBe(0);
    expect(mean([-1e16, 1e16, 1])).toBe(1 / 3);
  });
});
