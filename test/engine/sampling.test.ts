import { describe, expect, it } from 'vitest';
import { makeSamplingScratch, sampleToken, SeededRandom, validateSamplingOptions } from '../../src/engine/sampling';

const logits = Float32Array.from([Math.log(0.5), Math.log(0.3), Math.log(0.15), Math.log(0.05)]);

function frequencies(temperature: number, topP: number, n = 40000): number[] {
  const rng = new SeededRandom(1);
  const scratch = makeSamplingScratch(4);
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) counts[sampleToken(logits, 0, 4, { temperature, topP }, rng, scratch).token]! += 1;
  return counts.map((c) => c / n);
}

describe('sampleToken', () => {
  it('samples the softmax at temperature 1 (frequencies within 4 standard errors)', () => {
    const f = frequencies(1, 1);
    [0.5, 0.3, 0.15, 0.05].forEach((p, i) =>
      expect(Math.abs((f[i] as number) - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / 40000)),
    );
  });

  it('keeps the smallest set of tokens whose mass reaches top-p, renormalised', () => {
    // top-p 0.75: {0.5, 0.3} reach 0.8 ≥ 0.75 → 0.625 / 0.375
    const f = frequencies(1, 0.75);
    expect(f[2]).toBe(0);
    expect(f[3]).toBe(0);
    expect(Math.abs((f[0] as number) - 0.625)).toBeLessThan(0.01);
  });

  it('sharpens with temperature < 1: p ∝ p₀^(1/τ)', () => {
    const f = frequencies(0.5, 1);
    const z = 0.25 + 0.09 + 0.0225 + 0.0025;
    expect(Math.abs((f[0] as number) - 0.25 / z)).toBeLessThan(0.01);
  });

  it('reports the temperature-1 log-prob and entropy whatever the sampling temperature', () => {
    const s = sampleToken(logits, 0, 4, { temperature: 0.3, topP: 0.9 }, new SeededRandom(2), makeSamplingScratch(4));
    const p = [0.5, 0.3, 0.15, 0.05];
    expect(s.logProb).toBeCloseTo(Math.log(p[s.token] as number), 6);
    expect(s.entropy).toBeCloseTo(-p.reduce((a, q) => a + q * Math.log(q), 0), 6);
  });

  it('is reproducible from the seed', () => {
    const draw = (seed: number): number[] => {
      const rng = new SeededRandom(seed);
      const sc = makeSamplingScratch(4);
      return Array.from({ length: 50 }, () => sampleToken(logits, 0, 4, { temperature: 1, topP: 1 }, rng, sc).token);
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it('rejects a non-positive temperature and top-p outside (0, 1]', () => {
    expect(() => validateSamplingOptions({ temperature: 0, topP: 1 })).toThrow(/temperature/);
    expect(() => validateSamplingOptions({ temperature: 1, topP: 1.5 })).toThrow(/topP/);
  });
});
