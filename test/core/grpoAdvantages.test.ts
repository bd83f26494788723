import { describe, expect, it } from 'vitest';
import { fracRewardZeroStd, grpoAdvantages, standardDeviation } from '../../src/core/grpoAdvantages';

describe('grpoAdvantages', () => {
  it('group-std with the unbiased std: [1,0,0,1] → ±0.5/√(1/3) = ±√3/2', () => {
    const { advantages } = grpoAdvantages([[1, 0, 0, 1]], { scaling: 'group-std', epsilon: 0 });
    const a = Math.sqrt(3) / 2;
    advantages[0]?.forEach((v, i) => expect(v).toBeCloseTo([a, -a, -a, a][i] ?? 0, 14));
  });

  it('group-std adds ε to the std: 0.5/(√(1/3) + 0.1)', () => {
    const { advantages } = grpoAdvantages([[1, 0, 0, 1]], { scaling: 'group-std', epsilon: 0.1 });
    expect(advantages[0]?.[0]).toBeCloseTo(0.5 / (Math.sqrt(1 / 3) + 0.1), 14);
  });

  it('group-std with the population std: [1,0,0,1] → ±1', () => {
    const { advantages } = grpoAdvantages([[1, 0, 0, 1]], { scaling: 'group-std', epsilon: 0, std: 'population' });
    expect(advantages).toEqual([[1, -1, -1, 1]]);
  });

  it('batch-std divides by one std of all rewards: [[1,0],[1,1]] has batch std 0.5', () => {
    // all rewards 1,0,1,1: mean 0.75, unbiased variance (3·0.0625 + 0.5625)/3 = 0.25
    const { advantages, fracRewardZeroStd } = grpoAdvantages(
      [
        [1, 0],
        [1, 1],
      ],
      { scaling: 'batch-std', epsilon: 0 },
    );
    expect(advantages).toEqual([
      [1, -1],
      [0, 0],
    ]);
    expect(fracRewardZeroStd).toBe(0.5);
  });

  it('none (Dr. GRPO) only centres: [3,1] → [1,−1], [2,2,5] → [−1,−1,2]', () => {
    const { advantages } = grpoAdvantages(
      [
        [3, 1],
        [2, 2, 5],
      ],
      { scaling: 'none' },
    );
    expect(advantages).toEqual([
      [1, -1],
      [-1, -1, 2],
    ]);
  });

  it('gives exactly zero advantage to an all-equal group and a one-reward group', () => {
    const { advantages, fracRewardZeroStd } = grpoAdvantages([[0.5, 0.5, 0.5], [1]], { scaling: 'group-std' });
    expect(advantages).toEqual([[0, 0, 0], [0]]);
    expect(fracRewardZeroStd).toBe(1);
  });

  it('rejects empty groups, non-finite rewards and a negative ε', () => {
    expect(() => grpoAdvantages([[]], { scaling: 'none' })).toThrow(/group 0 is empty/);
    expect(() => grpoAdvantages([[1, Number.NaN]], { scaling: 'none' })).toThrow(/group 0, reward 1/);
    expect(() => grpoAdvantages([[1]], { scaling: 'none', epsilon: -1 })).toThrow(/epsilon/);
  });
});

describe('fracRewardZeroStd and standardDeviation', () => {
  it('counts the groups whose rewards are all equal', () => {
    expect(fracRewardZeroStd([[1, 1], [0, 1], [0, 0], [1]])).toBe(0.75);
    expect(fracRewardZeroStd([])).toBeNaN();
  });
  it('std of [2,4,4,4,5,5,7,9]: population 2, unbiased √(32/7)', () => {
    const xs = [2, 4, 4, 4, 5, 5, 7, 9];
    expect(standardDeviation(xs, 'population')).toBe(2);
    expect(standardDeviation(xs)).toBeCloseTo(Math.sqrt(32 / 7), 14);
  });
});
