// Tolerance checks shared by the loss tests.
import { expect } from 'vitest';

/**
 * Norm-wise relative closeness: max|a − e| ≤ rel · max|e| + abs. The stated tolerance of these tests is rel = 1e-4
 * relative to the largest reference magnitude (float32 tfjs against float64 references).
 */
export function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, rel = 1e-4, abs = 1e-7): void {
  expect(actual.length).toBe(expected.length);
  let maxErr = 0;
  let maxRef = 0;
  for (let i = 0; i < expected.length; i++) {
    const d = Math.abs((actual[i] ?? NaN) - (expected[i] ?? NaN));
    maxErr = Number.isFinite(d) ? Math.max(maxErr, d) : Infinity;
    maxRef = Math.max(maxRef, Math.abs(expected[i] ?? 0));
  }
  expect(maxErr, `max abs error ${maxErr} vs allowed ${rel * maxRef + abs}`).toBeLessThanOrEqual(rel * maxRef + abs);
}

export function expectScalarClose(actual: number, expected: number, rel = 1e-4, abs = 1e-7): void {
  expectClose([actual], [expected], rel, abs);
}
