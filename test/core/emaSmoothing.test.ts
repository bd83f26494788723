import { describe, expect, it } from 'vitest';
import { emaSmooth, MAX_SMOOTHING } from '../../src/core/emaSmoothing';

describe('emaSmooth', () => {
  const pts = [
    { x: 1, y: 1 },
    { x: 2, y: 3 },
    { x: 3, y: 0 },
  ];

  it('smooths as TensorBoard does: a debiased exponential moving average (hand-computed, 1e-12)', () => {
    // w = 0.5: s = 0.5, 1.75, 0.875; debias 1 − 0.5ⁿ = 0.5, 0.75, 0.875 → 1, 7/3, 1
    const s = emaSmooth(pts, 0.5);
    expect(s.map((p) => p.x)).toEqual([1, 2, 3]);
    expect(s[0]!.y).toBeCloseTo(1, 12);
    expect(s[1]!.y).toBeCloseTo(7 / 3, 12);
    expect(s[2]!.y).toBeCloseTo(1, 12);
  });

  it('starts at the first value whatever the weight (the debiasing), not pulled towards zero', () => {
    expect(emaSmooth([{ x: 0, y: 0.8 }], 0.9)[0]!.y).toBeCloseTo(0.8, 12);
    // w = 0.9, y = 0.8 then 0: s = 0.08, 0.072; debias 0.1, 0.19 → 0.8, 0.072 / 0.19
    const s = emaSmooth(
      [
        { x: 0, y: 0.8 },
        { x: 1, y: 0 },
      ],
      0.9,
    );
    expect(s[1]!.y).toBeCloseTo(0.072 / 0.19, 12);
  });

  it('returns the points unchanged at weight 0 and caps a weight of 1', () => {
    expect(emaSmooth(pts, 0)).toEqual(pts);
    const capped = emaSmooth(pts, 1);
    expect(capped).toEqual(emaSmooth(pts, MAX_SMOOTHING));
    expect(capped.every((p) => Number.isFinite(p.y))).toBe(true);
  });

  it('skips a non-finite value: a gap at its step, the average and its count unchanged by it', () => {
    const s = emaSmooth([pts[0]!, { x: 2, y: Number.NaN }, pts[1]!], 0.5);
    expect(s[1]!.y).toBeNaN();
    expect(s[2]!.y).toBeCloseTo(7 / 3, 12);
  });
});
