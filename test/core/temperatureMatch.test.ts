import { describe, expect, it } from 'vitest';
import { matchTemperature } from '../../src/core/temperatureMatch';

/** Entropy (nats, float64) of softmax(logits / T): the plain-JS reference distribution. */
function entropyAt(logits: readonly number[], T: number): number {
  const z = logits.map((l) => l / T);
  const m = Math.max(...z);
  const e = z.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return -e.reduce((a, x) => a + (x / s) * Math.log(x / s), 0);
}

const H2 = (p: number): number => -(p * Math.log(p) + (1 - p) * Math.log(1 - p));

// Two tokens with logits [0, ln 3]: at temperature T the probabilities are ∝ (1, 3^(1/T)). The entropy of
// (1/3, 2/3) is reached where 3^(1/T) = 2, i.e. T = ln 3 / ln 2 = log2 3 ≈ 1.585 (hotter than 1); the entropy of
// (1/5, 4/5) where 3^(1/T) = 4, i.e. T = ln 3 / ln 4 ≈ 0.792 (colder than 1).
const LOGITS = [0, Math.log(3)];

describe('temperature matching by bisection', () => {
  it('finds T = log2 3 for the entropy of (1/3, 2/3) (bracketing upwards from T = 1)', async () => {
    const target = H2(1 / 3);
    const m = await matchTemperature((T) => entropyAt(LOGITS, T), target, { tolerance: 1e-10, maxIterations: 60 });
    expect(m.converged).toBe(true);
    expect(Math.abs(m.entropy - target)).toBeLessThanOrEqual(1e-10);
    expect(m.temperature).toBeCloseTo(Math.log2(3), 6);
  });

  it('finds T = ln 3 / ln 4 for the entropy of (1/5, 4/5) (bracketing downwards)', async () => {
    const m = await matchTemperature((T) => entropyAt(LOGITS, T), H2(1 / 5), { tolerance: 1e-10, maxIterations: 60 });
    expect(m.converged).toBe(true);
    expect(m.temperature).toBeCloseTo(Math.log(3) / Math.log(4), 6);
  });

  it('stops within the default tolerance (1e-3 nats) in a bounded number of evaluations', async () => {
    const target = H2(1 / 3);
    let calls = 0;
    const m = await matchTemperature((T) => {
      calls++;
      return entropyAt(LOGITS, T);
    }, target);
    expect(m.converged).toBe(true);
    expect(Math.abs(m.entropy - target)).toBeLessThanOrEqual(1e-3);
    expect(m.evaluations).toBe(calls);
    // 1 (T = 1) + 1 (T = 2 brackets) + at most 30 bisection steps
    expect(calls).toBeLessThanOrEqual(32);
    // the answer is within the entropy tolerance, so T is near log2 3 but not exactly
    expect(Math.abs(m.temperature - Math.log2(3))).toBeLessThan(0.02);
  });

  it('returns the nearest end, not converged, for an unreachable target (above ln 2 for two tokens)', async () => {
    const m = await matchTemperature((T) => entropyAt(LOGITS, T), Math.log(2) + 0.01);
    expect(m.converged).toBe(false);
    expect(m.temperature).toBe(64);
    expect(m.entropy).toBeLessThan(Math.log(2));
  });

  it('returns T = 1 at once when the entropy already matches', async () => {
    const m = await matchTemperature((T) => entropyAt(LOGITS, T), entropyAt(LOGITS, 1));
    expect(m).toMatchObject({ temperature: 1, converged: true, evaluations: 1 });
  });

  it('rejects a non-finite target and a non-finite entropy', async () => {
    await expect(matchTemperature(() => 0.5, NaN)).rejects.toThrow(/target entropy/);
    await expect(matchTemperature(() => NaN, 0.3)).rejects.toThrow(/entropy at T = 1 is NaN/);
  });
});
