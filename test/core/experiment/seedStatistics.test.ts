import { describe, expect, it } from 'vitest';
import {
  pairedDifference,
  perSeedMeans,
  regularizedBeta,
  seedInterval,
  studentTCdf,
  studentTQuantile,
} from '../../../src/core/experiment/seedStatistics';

// Reference values: scipy.stats.t (float64), e.g. `stats.t.ppf(0.975, 9)`; tolerance 1e-9 absolute.
const TOL = 9;

describe('Student t quantiles', () => {
  it.each([
    [1, 12.706204736174694],
    [2, 4.302652729749462],
    [4, 2.7764451051977934],
    [9, 2.262157162798205],
    [30, 2.0422724563012378],
  ])('t_{0.975, %i} matches the float64 reference', (df, expected) => {
    expect(studentTQuantile(0.975, df)).toBeCloseTo(expected, TOL);
  });

  it('gives t_{0.995, 4} = 4.6041 and is antisymmetric around the median', () => {
    expect(studentTQuantile(0.995, 4)).toBeCloseTo(4.604094871349992, TOL);
    expect(studentTQuantile(0.025, 9)).toBeCloseTo(-2.262157162798205, TOL);
    expect(studentTQuantile(0.5, 3)).toBe(0);
  });

  it('has a CDF matching the reference at t = 1.5 with 3 degrees of freedom', () => {
    expect(studentTCdf(1.5, 3)).toBeCloseTo(0.8847080673775886, TOL);
    expect(studentTCdf(-1.5, 3)).toBeCloseTo(1 - 0.8847080673775886, TOL);
  });

  it('has I_x(1, 1) = x (the uniform distribution) and I_x(a, 1) = x^a', () => {
    expect(regularizedBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(regularizedBeta(0.6, 2.5, 1)).toBeCloseTo(0.6 ** 2.5, 12);
  });

  it('refuses a probability outside (0, 1) and non-positive degrees of freedom', () => {
    expect(() => studentTQuantile(1, 4)).toThrow(/p must be in/);
    expect(() => studentTQuantile(0.9, 0)).toThrow(/df must be/);
  });
});

describe('seedInterval', () => {
  it('is the mean ± t_{0.975, n−1}·sd/√n over seeds', () => {
    // RetireOPD's five tuning-seed test successes of docs/outcomes/shell-400steps-5seeds.md
    const r = seedInterval([0.846, 0.81, 0.901, 0.88, 0.864]);
    expect(r.n).toBe(5);
    expect(r.mean).toBeCloseTo(0.8602, 12);
    expect(r.halfWidth).toBeCloseTo(0.04298023113305051, TOL);
    expect(r.lower).toBeCloseTo(0.8602 - 0.04298023113305051, TOL);
  });

  it('has no interval with a single seed', () => {
    const r = seedInterval([0.5]);
    expect(r.mean).toBe(0.5);
    expect(Number.isNaN(r.halfWidth)).toBe(true);
  });

  it('refuses a non-finite per-seed value', () => {
    expect(() => seedInterval([0.5, NaN])).toThrow(/finite/);
  });
});

describe('perSeedMeans', () => {
  it('averages the episodes of each seed first, so a seed with many episodes is still one replication', () => {
    const episodes = [
      { seed: 2, value: 1 },
      { seed: 0, value: 1 },
      { seed: 0, value: 0 },
      { seed: 0, value: 0 },
      { seed: 0, value: 1 },
      { seed: 2, value: 0 },
    ];
    expect(perSeedMeans(episodes)).toEqual([
      { seed: 0, mean: 0.5 },
      { seed: 2, mean: 0.5 },
    ]);
  });
});

describe('pairedDifference', () => {
  it('differences the arms per seed and intervals the differences', () => {
    const retire = new Map([
      [0, 0.846],
      [1, 0.81],
      [2, 0.901],
      [3, 0.88],
      [4, 0.864],
    ]);
    const opd = new Map([
      [0, 0.824],
      [1, 0.756],
      [2, 0.837],
      [3, 0.827],
      [4, 0.833],
      [7, 0.1],
    ]);
    const d = pairedDifference(retire, opd);
    expect(d.seeds).toEqual([0, 1, 2, 3, 4]);
    expect(d.differences.map((x) => Number(x.toFixed(6)))).toEqual([0.022, 0.054, 0.064, 0.053, 0.031]);
    expect(d.mean).toBeCloseTo(0.0448, 12);
    expect(d.sd).toBeCloseTo(0.017541379649275043, TOL);
    expect(d.halfWidth).toBeCloseTo(0.02178049958932899, TOL);
    expect(d.positive).toBe(5);
  });

  it('counts only strictly positive differences', () => {
    const d = pairedDifference(
      new Map([
        [0, 0.5],
        [1, 0.4],
        [2, 0.9],
      ]),
      new Map([
        [0, 0.5],
        [1, 0.6],
        [2, 0.1],
      ]),
    );
    expect(d.positive).toBe(1);
    expect(d.mean).toBeCloseTo((0 - 0.2 + 0.8) / 3, 12);
  });
});
