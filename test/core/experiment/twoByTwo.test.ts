import { describe, expect, it } from 'vitest';
import { effectWords, twoByTwo, twoByTwoPage, type FactorRun } from '../../../src/core/experiment/twoByTwo';

// test success (0–1) per seed at (λ, clip): seed 1 and 2 ran all four, seed 3 missed one
const runs: FactorRun[] = [
  { seed: 1, a: '0.1', b: '1', test: 0.5 },
  { seed: 1, a: '1', b: '1', test: 0.7 },
  { seed: 1, a: '0.1', b: '0', test: 0.4 },
  { seed: 1, a: '1', b: '0', test: 0.8 },
  { seed: 2, a: '0.1', b: '1', test: 0.3 },
  { seed: 2, a: '1', b: '1', test: 0.6 },
  { seed: 2, a: '0.1', b: '0', test: 0.3 },
  { seed: 2, a: '1', b: '0', test: 0.5 },
  { seed: 3, a: '0.1', b: '1', test: 0.9 },
];

describe('a 2 × 2 factorial paired on the seed', () => {
  it('keeps the seeds that ran every combination and forms the simple effects and the interaction (hand-computed)', () => {
    const t = twoByTwo(runs, ['0.1', '1'], ['1', '0']);
    expect(t.seeds).toEqual([1, 2]);
    // λ 1 − 0.1 with the clip at 1: seed 1 +20, seed 2 +30; with the clip off: +40, +20
    expect(t.aEffect.map((e) => e.perSeed.map((x) => Math.round(x)))).toEqual([
      [20, 30],
      [40, 20],
    ]);
    expect(t.aEffect[0]!.interval.mean).toBeCloseTo(25, 10);
    // clip off − on at λ 0.1: −10, 0; at λ 1: +10, −10
    expect(t.bEffect.map((e) => e.perSeed.map((x) => Math.round(x)))).toEqual([
      [-10, 0],
      [10, -10],
    ]);
    // interaction: (40 − 20, 20 − 30) = (+20, −10) → mean +5, sd √450, half-width 12.7062 · √450 / √2
    expect(t.interaction.mean).toBeCloseTo(5, 10);
    expect(t.interaction.halfWidth).toBeCloseTo((12.7062047 * Math.sqrt(450)) / Math.SQRT2, 3);
    expect(t.cells.find((c) => c.a === '1' && c.b === '0')!.interval.mean).toBeCloseTo(65, 10);
  });

  it('refuses a seed that ran one combination twice', () => {
    expect(() => twoByTwo([...runs, { seed: 1, a: '1', b: '0', test: 0.1 }], ['0.1', '1'], ['1', '0'])).toThrow(
      'seed 1 ran 1 × 0 twice',
    );
  });

  it('words an effect by its interval, a null as a null', () => {
    const d = (mean: number, halfWidth: number) => ({
      n: 5,
      mean,
      sd: 1,
      halfWidth,
      lower: mean - halfWidth,
      upper: mean + halfWidth,
      level: 0.95,
    });
    expect(effectWords(d(25, 10))).toBe('+25.0 ± 10.0 (measurably positive)');
    expect(effectWords(d(-25, 10))).toBe('−25.0 ± 10.0 (measurably negative)');
    expect(effectWords(d(5, 10))).toBe('+5.0 ± 10.0 (no measurable difference)');
  });

  it('writes the combinations, the effects and the clip table on its page', () => {
    const t = twoByTwo(runs, ['0.1', '1'], ['1', '0']);
    const page = twoByTwoPage(t, {
      title: 'λ × clip',
      intro: '',
      command: 'c',
      commit: 'abc',
      date: '2026-12-06',
      aName: 'λ_opd',
      bName: 'grad clip',
      clip: [
        { seed: 1, a: '1', b: '1', clipped: 0.6, coef: 0.7, overNorm: 0.6 },
        { seed: 2, a: '1', b: '1', clipped: 0.8, coef: 0.8, overNorm: 0.8 },
        { seed: 3, a: '1', b: '1', clipped: 0, coef: 1, overNorm: 0 }, // not a complete seed: left out
      ],
    });
    expect(page).toContain('| λ_opd ╲ grad clip | 1 | 0 |');
    expect(page).toContain('| 1 | 65.0 ± ');
    expect(page).toContain('| λ_opd 1 − 0.1, grad clip 1 | +25.0 ± ');
    expect(page).toContain('| 1 | 1 | 70 % | 0.75 | 70 % |');
    expect(page).toContain('| 0.1 | 0 | – | – | – |');
  });
});
