import { describe, expect, it } from 'vitest';
import { gateCharts, retirementMarker } from '../../src/app/charts/gateCharts';

const series = {
  windowMean: [{ x: 5, y: 0.4 }],
  alignment: [{ x: 10, y: 0.02 }],
  competence: [{ x: 10, y: 0.95 }],
};

describe('the gate charts shared by the Train and Replay views', () => {
  it('marks the retirement step, and nothing before the teacher retires', () => {
    expect(retirementMarker(135)).toEqual({ x: 135, label: 'retired @ 135' });
    expect(retirementMarker(0)).toEqual({ x: 0, label: 'retired @ 0' });
    expect(retirementMarker(null)).toBeNull();
    expect(retirementMarker(undefined)).toBeNull();
  });

  it('draws ρ against δ and η against γ, K̄ₘ without a threshold, each from its own series', () => {
    const c = gateCharts(series, { delta: 0.01, gamma: 0.9 }, 20);
    const marker = { x: 20, label: 'retired @ 20' };
    expect(c.windowMean).toEqual({
      lines: [{ name: 'K̄ₘ', points: series.windowMean, color: 'var(--hue-blue, #2563eb)' }],
      marker,
    });
    expect(c.alignment).toEqual({
      lines: [{ name: 'ρ', points: series.alignment, color: 'var(--hue-violet, #7c3aed)' }],
      threshold: { y: 0.01, label: 'δ = 0.01' },
      marker,
    });
    expect(c.competence).toEqual({
      lines: [{ name: 'η', points: series.competence, color: 'var(--hue-green, #059669)' }],
      threshold: { y: 0.9, label: 'γ = 0.9' },
      marker,
      // η 0.95 and γ 0.9 on one scale: span 0.05, margin 8 % of it (0.004) each side → 0.896–0.954, out to the
      // tick step 0.02 → 0.88–0.96
      yDomain: [0.88, 0.96],
    });
  });

  it('fits η’s axis to the data alone when γ is far off it (a relaxed preset), never to [0, 4]', () => {
    // η = 0.95 alone: ±10 % of the value (0.855–1.045), out to the tick step 0.05
    expect(gateCharts(series, { delta: 0, gamma: 1e6 }, null).competence.yDomain).toEqual([0.85, 1.05]);
  });

  it('draws no δ or γ line while the thresholds are unknown (a live run before its config arrives)', () => {
    const c = gateCharts(series, null, undefined);
    expect(c.alignment.threshold).toBeNull();
    expect(c.competence.threshold).toBeNull();
    expect(c.alignment.marker).toBeNull();
  });
});
