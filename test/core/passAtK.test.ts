import { describe, expect, it } from 'vitest';
import { meanPassAtK, passAtK } from '../../src/core/passAtK';

describe('passAtK', () => {
  it('matches 1 − C(n−c,k)/C(n,k) on small hand-computed cases', () => {
    expect(passAtK(5, 2, 2)).toBeCloseTo(1 - 3 / 10, 15); // C(3,2)=3, C(5,2)=10
    expect(passAtK(16, 4, 1)).toBeCloseTo(0.25, 15);
    expect(passAtK(10, 3, 4)).toBeCloseTo(1 - 35 / 210, 15); // C(7,4)=35, C(10,4)=210
    expect(passAtK(16, 0, 8)).toBe(0);
  });

  it('is 1 when n − c < k', () => {
    expect(passAtK(4, 2, 3)).toBe(1);
    expect(passAtK(16, 16, 1)).toBe(1);
  });

  it('stays accurate where the binomials overflow float64', () => {
    // C(1197,10)/C(1200,10) = (1190·1189·1188)/(1200·1199·1198)
    expect(passAtK(1200, 3, 10)).toBeCloseTo(1 - (1190 * 1189 * 1188) / (1200 * 1199 * 1198), 14);
    const big = passAtK(5000, 1, 2500); // = k/n = 0.5 exactly for c = 1
    expect(big).toBeCloseTo(0.5, 14);
    expect(passAtK(5000, 2500, 2500)).toBeGreaterThan(0.999999);
  });

  it('rejects counts out of range', () => {
    expect(() => passAtK(0, 0, 1)).toThrow(/n must be a positive integer/);
    expect(() => passAtK(5, 6, 1)).toThrow(/c must be an integer in \[0, 5\]/);
    expect(() => passAtK(5, 2, 6)).toThrow(/k must be an integer in \[1, 5\]/);
    expect(() => passAtK(5, 1.5, 1)).toThrow(/c must be/);
  });

  it('averages over tasks', () => {
    expect(
      meanPassAtK(
        [
          { n: 4, c: 0 },
          { n: 4, c: 4 },
        ],
        2,
      ),
    ).toBe(0.5);
    expect(meanPassAtK([], 1)).toBeNaN();
  });
});
