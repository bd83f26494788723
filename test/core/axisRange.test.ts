// Chart y ranges: rates on [0, 1], a ratio around its threshold, a constant series around its value.
import { describe, expect, it } from 'vitest';
import { fitRange, isRateMetric, metricAxisRange, niceStep } from '../../src/core/axisRange';

describe('metric axis ranges', () => {
  it('draws a rate on [0, 1] even when every value is 0', () => {
    expect(metricAxisRange('rollout/success_rate', [0, 0, 0])).toEqual([0, 1]);
    expect(metricAxisRange('val/success_rate', [0.5, 0.75])).toEqual([0, 1]);
    expect(['critic/frac_reward_zero_std', 'pass@4'].map(isRateMetric)).toEqual([true, true]);
    expect(['actor/entropy', 'retire_opd/competence_ratio'].map(isRateMetric)).toEqual([false, false]);
  });

  it('puts η and γ on one scale with an 8 % margin of the span, out to round numbers', () => {
    // η 0.8–1.0 with γ = 0.9: span 0.2, margin 0.016 → 0.784–1.016, tick step 0.05 → 0.75–1.05
    expect(metricAxisRange('retire_opd/competence_ratio', [0.8, 1.0], 0.9)).toEqual([0.75, 1.05]);
    // γ above every η: the span reaches up to it (0.5–0.9 → 0.468–0.932, step 0.1 → 0.4–1)
    expect(fitRange([0.5, 0.6], 0.9)).toEqual([0.4, 1]);
  });

  it('centres a constant series on its value, not on [0, 4]', () => {
    // 0: ±0.5, step 0.2 → ±0.6; 2: ±10 % (1.8–2.2), step 0.1
    expect(fitRange([0, 0])).toEqual([-0.6, 0.6]);
    expect(fitRange([2, 2])).toEqual([1.8, 2.2]);
    expect(fitRange([])).toEqual([0, 1]);
  });

  it('picks tick steps of 1, 2 or 5 × 10^k for about five ticks', () => {
    expect([niceStep(1), niceStep(0.232), niceStep(0.464), niceStep(400)]).toEqual([0.2, 0.05, 0.1, 100]);
  });
});
