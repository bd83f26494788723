import { describe, expect, it } from 'vitest';
import {
  acrossWorlds,
  commonLevels,
  doseResponsePage,
  levelAcrossWorlds,
  pooledSlope,
  seedSlopes,
  slopeWords,
} from '../../../src/core/experiment/doseResponse';
import type { HelpsCell } from '../../../src/core/experiment/helpsMap';

const cell = (fraction: number, perSeed: [number, number][], world = 1): HelpsCell => ({
  env: 'shell',
  world,
  misleadingFraction: fraction,
  source: 'your runs',
  n: perSeed.length,
  mean: perSeed.reduce((a, [, d]) => a + d, 0) / perSeed.length,
  halfWidth: 1,
  perSeed: perSeed.map(([seed, difference]) => ({ seed, difference })),
  note: '',
  runIds: [],
});

describe('the dose–response of RetireOPD − OPD throughout on the teacher’s error level', () => {
  it('fits each seed’s least-squares line over its levels (hand-computed)', () => {
    // seed 1: (0, 0), (0.5, 10), (1, 20) → slope 20, intercept 0; seed 2: (0, 4), (0.5, 0), (1, 2) → x̄ 0.5, ȳ 2,
    // Sxy = (−0.5)(2) + 0 + (0.5)(0) = −1, Sxx = 0.5 → slope −2, intercept 3
    const cells = [
      cell(0, [
        [1, 0],
        [2, 4],
      ]),
      cell(0.5, [
        [1, 10],
        [2, 0],
      ]),
      cell(1, [
        [1, 20],
        [2, 2],
        [3, 7],
      ]),
    ];
    const slopes = seedSlopes(cells);
    // seed 3 ran one level: no slope
    expect(slopes.map((s) => s.seed)).toEqual([1, 2]);
    expect(slopes[0]!.slope).toBeCloseTo(20, 12);
    expect(slopes[0]!.intercept).toBeCloseTo(0, 12);
    expect(slopes[1]!.slope).toBeCloseTo(-2, 12);
    expect(slopes[1]!.intercept).toBeCloseTo(3, 12);
    // mean 9, sd √242 = 15.556, t(0.975, 1) = 12.706 → half-width 12.706 · 15.556 / √2 = 139.77
    const { slope } = pooledSlope(cells);
    expect(slope.mean).toBeCloseTo(9, 12);
    expect(slope.halfWidth).toBeCloseTo((12.7062047 * Math.sqrt(242)) / Math.SQRT2, 4);
  });

  it('says the slope per 10 % of misleading entries, and a null as a null', () => {
    expect(slopeWords({ n: 5, mean: 40, sd: 1, halfWidth: 30, lower: 10, upper: 70, level: 0.95 })).toBe(
      '+4.0 ± 3.0 points per 10 % more misleading entries (n = 5 seeds; the difference measurably rises with the error level)',
    );
    expect(slopeWords({ n: 5, mean: -10, sd: 1, halfWidth: 30, lower: -40, upper: 20, level: 0.95 })).toBe(
      '−1.0 ± 3.0 points per 10 % more misleading entries (n = 5 seeds; no measurable slope)',
    );
  });

  it('writes a page with one row per level, each seed’s difference and slope, and the slope in words', () => {
    const page = doseResponsePage(
      [
        cell(0.5, [
          [1, 10],
          [2, 0],
        ]),
        cell(0, [
          [1, 0],
          [2, 4],
        ]),
      ],
      { title: 'T', env: 'shell', intro: 'Intro.', command: 'npm run x', commit: 'abc', date: '2026-12-06' },
    );
    const rows = page.split('\n').filter((l) => /^\| 0(\.5)? \|/.test(l));
    expect(rows.map((r) => r.split(' | ')[0])).toEqual(['| 0', '| 0.5']);
    expect(page).toContain('| 1 | +2.0 | +0.0 |');
    expect(page).toContain('| 2 | −0.8 | +4.0 |');
    expect(page).toMatch(
      /\*\*Slope over seeds in world 1: \+0\.6 ± .* points per 10 % more misleading entries \(n = 2 seeds;/,
    );
    // one world: no section across worlds
    expect(page).not.toContain('## Across worlds');
  });

  it('pools the worlds’ slopes on the levels every world ran, with a t-interval over worlds (hand-computed)', () => {
    // world 1 ran 0, 0.5, 1; world 2 ran 0 and 1 only → common levels 0 and 1.
    // world 1 on {0, 1}: seed 1 (0 → 20) slope 20, seed 2 (4 → 2) slope −2 → mean 9
    // world 2 on {0, 1}: seed 1 (−10 → 10) slope 20, seed 2 (0 → 10) slope 10 → mean 15
    const cells = [
      cell(0, [
        [1, 0],
        [2, 4],
      ]),
      cell(0.5, [
        [1, 10],
        [2, 0],
      ]),
      cell(1, [
        [1, 20],
        [2, 2],
      ]),
      cell(
        0,
        [
          [1, -10],
          [2, 0],
        ],
        2,
      ),
      cell(
        1,
        [
          [1, 10],
          [2, 10],
        ],
        2,
      ),
    ];
    expect(commonLevels(cells)).toEqual([0, 1]);
    const a = acrossWorlds(cells);
    expect(a.perWorld.map((w) => [w.world, w.slope.mean])).toEqual([
      [1, 9],
      [2, 15],
    ]);
    // over worlds: mean 12, sd √18, half-width 12.7062 · √18 / √2 = 38.119
    expect(a.overWorlds.n).toBe(2);
    expect(a.overWorlds.mean).toBeCloseTo(12, 12);
    expect(a.overWorlds.halfWidth).toBeCloseTo((12.7062047 * Math.sqrt(18)) / Math.SQRT2, 4);
    // every (world, seed) slope: 20, −2, 20, 10 → mean 12, sd √(64 + 196 + 64 + 4)/3 = √(328/3)
    expect(a.overReplicates.n).toBe(4);
    expect(a.overReplicates.mean).toBeCloseTo(12, 12);
    expect(a.overReplicates.sd).toBeCloseTo(Math.sqrt(328 / 3), 12);
    // level 0 across worlds: world means 2 and −5 → mean −1.5; level 0.5 only in world 1 → n = 1
    expect(levelAcrossWorlds(cells, 0).mean).toBeCloseTo(-1.5, 12);
    expect(levelAcrossWorlds(cells, 0.5).n).toBe(1);
    const page = doseResponsePage(cells, {
      title: 'T',
      env: 'shell',
      intro: '',
      command: 'c',
      commit: 'abc',
      date: '2026-12-06',
      teachers: [
        { world: 2, misleadingFraction: 0, teacherSuccess: 0.98, retireRuns: 2, retired: 1, triggerSteps: [110, 110] },
      ],
    });
    expect(page).toContain('## World 1 (env.seed 1)');
    expect(page).toContain('## World 2 (env.seed 2)');
    expect(page).toContain('| 2 | 0 | 98.0 % | 1 of 2 | 110–110 |');
    // the level one world ran has no interval across worlds
    expect(page).toContain('| 0.5 | +5.0 ± 1.0 | – | – |');
    expect(page).toMatch(
      /\*\*Slope over worlds: \+1\.2 ± 3\.8 points per 10 % .* \(n = 2 worlds; no measurable slope\)/,
    );
  });
  it('writes a page of worlds that ran one error level, saying there is no slope to fit instead of failing', () => {
    // world means +3 (+10, −4) and +4 (+2, +6): over worlds +3.5, sd 0.707, t(0.975, 1) = 12.71 → ± 6.4
    const page = doseResponsePage(
      [
        cell(0.5, [
          [1, 10],
          [2, -4],
        ]),
        cell(
          0.5,
          [
            [1, 2],
            [2, 6],
          ],
          2,
        ),
      ],
      { title: 'T', env: 'shell', intro: '', command: 'c', commit: 'abc', date: '2026-12-08' },
    );
    expect(page).toContain('One error level in world 1: no slope to fit.');
    expect(page).toContain('One error level in world 2: no slope to fit.');
    expect(page).toContain('The worlds share fewer than two error levels: no slope across worlds to fit.');
    expect(page).toContain('| 0.5 | +3.0 ± 1.0 | +4.0 ± 1.0 | +3.5 ± 6.4 (n = 2 worlds; no measurable difference) |');
    expect(page).not.toMatch(/NaN|Slope over/);
  });
});
