import { describe, expect, it } from 'vitest';
import { mean, trailingMeans, windowedMeans } from '../../src/core/windowedMean';

describe('windowed means', () => {
  it('mean sums left to right and is NaN when empty', () => {
    expect(mean([1, 2, 3, 6])).toBe(3);
    expect(mean([])).toBeNaN();
  });
  it('non-overlapping windows drop a trailing partial window unless asked', () => {
    expect(windowedMeans([1, 2, 3, 4, 5], 2)).toEqual([1.5, 3.5]);
    expect(windowedMeans([1, 2, 3, 4, 5], 2, true)).toEqual([1.5, 3.5, 5]);
    expect(windowedMeans([], 3)).toEqual([]);
  });
  it('trailing means average up to W values ending at each index', () => {
    expect(trailingMeans([1, 2, 3, 4], 2)).toEqual([1, 1.5, 2.5, 3.5]);
    expect(trailingMeans([4, 8, 0], 5)).toEqual([4, 6, 4]);
  });
  it('rejects a window that is not a positive integer', () => {
    expect(() => windowedMeans([1], 0)).toThrow(/positive integer/);
    expect(() => trailingMeans([1], 1.5)).toThrow(/positive integer/);
  });
});
