import { describe, expect, it } from 'vitest';
import {
  ACROSS_WORLDS,
  worldPooledCells,
  cellKey,
  cellSign,
  cellText,
  type HelpsCell,
  type MapRun,
  bestCells,
  mergeSeeds,
  pageCells,
  runCells,
} from '../../../src/core/experiment/helpsMap';
import { parseOutcomePage } from '../../../src/core/experiment/outcomePage';

const cell = (over: Partial<HelpsCell>): HelpsCell => ({
  env: 'shell',
  world: 1,
  misleadingFraction: 0.375,
  source: 'p.md',
  n: 10,
  mean: 3.6,
  halfWidth: 11.6,
  perSeed: null,
  note: '',
  runIds: [],
  ...over,
});

const run = (
  id: string,
  seed: number,
  schedule: string,
  success: number | null,
  fraction = 0.375,
  world = 1,
): MapRun => ({
  id,
  config: { seed, env: { name: 'shell', seed: world, misleadingSkillFraction: fraction }, student: { schedule } },
  testSuccess: success,
});

describe('the where-it-helps map', () => {
  it('colours a cell by sign only when its interval excludes 0', () => {
    expect(cellSign(cell({}))).toBe('null');
    expect(cellSign(cell({ mean: -4.6, halfWidth: 3.9 }))).toBe('lower');
    expect(cellSign(cell({ mean: 51, halfWidth: 10.6 }))).toBe('higher');
    expect(cellSign(cell({ halfWidth: null }))).toBe('no interval');
    expect(cellSign(cell({ n: 1, halfWidth: 0 }))).toBe('no interval');
  });

  it('words each cell, a null as "no measurable difference"', () => {
    expect(cellText(cell({}))).toBe('+3.6 ± 11.6 (n = 10; no measurable difference)');
    expect(cellText(cell({ mean: -4.6, halfWidth: 3.9 }))).toBe('−4.6 ± 3.9 (n = 10; RetireOPD measurably lower)');
    expect(cellText(cell({ mean: -13.9, halfWidth: null }))).toBe('−13.9 (n = 10; no interval)');
  });

  it('names the arm whose difference a cell is when it is measurable (a third arm against OPD throughout)', () => {
    expect(cellText(cell({ mean: -9.5, halfWidth: 5.4, n: 5 }), 'competence-only')).toBe(
      '−9.5 ± 5.4 (n = 5; competence-only measurably lower)',
    );
    expect(cellText(cell({ mean: 1.0, halfWidth: 8.3, n: 4 }), 'competence-only')).toBe(
      '+1.0 ± 8.3 (n = 4; no measurable difference)',
    );
  });

  it('makes a page’s cells: its paired line at the preset’s fraction, the no-misleading arms at 0', () => {
    const text = [
      '# Protocol: house, reporting seeds 1000–1009',
      'Commit f3eb6cc, 2026-12-03. Command:',
      '| RetireOPD (adaptive gate) | 2 | 92.0 ± 3.1 | — | — |',
      '| RetireOPD, no misleading skills | 2 | 89.6 ± 12.0 | +2.3 ± 10.9 | 1 of 2 | — |',
      '| OPD throughout, no misleading skills | 2 | 96.8 ± 4.8 | −4.9 ± 6.6 | 0 of 2 | — |',
      'RetireOPD − OPD throughout: −0.4 ± 2.9 points over 2 seeds; RetireOPD is higher on 1 of 2 (per seed: 1000: −2.1, 1001: +4.0).',
    ].join('\n');
    const cells = pageCells(parseOutcomePage(text, 'h.md'), 'h.md', 0.2, 1);
    expect(cells.map((c) => [c.env, c.world, c.misleadingFraction, c.mean, c.halfWidth, c.n])).toEqual([
      ['house', 1, 0.2, -0.4, 2.9, 2],
      // 89.6 − 96.8, no per-seed values on the page: no interval
      ['house', 1, 0, -7.2, null, 2],
    ]);
  });

  it('pairs the user’s finished runs on the seed when their configs differ only in the schedule', () => {
    const cells = runCells([
      run('r1', 1, 'adaptive', 0.7),
      run('o1', 1, 'never', 0.6),
      run('r2', 2, 'adaptive', 0.5),
      run('o2', 2, 'never', 0.6),
      run('r3', 3, 'adaptive', 0.9), // no OPD partner: left out
      run('o4', 4, 'never', null), // not finished: left out
      run('g1', 1, 'none', 0.1), // pure GRPO: not an arm of this map
      run('x1', 1, 'adaptive', 0.8, 0), // another fraction, no partner
    ]);
    expect(cells).toHaveLength(1);
    const c = cells[0]!;
    expect(c).toMatchObject({ env: 'shell', world: 1, misleadingFraction: 0.375, n: 2, source: 'your runs' });
    // differences +10 and −10 points: mean 0, sd = √200, half-width t(0.975, 1) · sd / √2 = 12.7062 · 10
    expect(c.mean).toBeCloseTo(0, 10);
    expect(c.halfWidth).toBeCloseTo(127.062, 2);
    expect(c.runIds).toEqual(['r1', 'o1', 'r2', 'o2']);
  });

  it('keeps per cell a source with an interval over one without, then the one with more seeds, then the later', () => {
    const means = cell({ misleadingFraction: 0, n: 10, halfWidth: null, source: 'protocol.md' });
    const paired = cell({ misleadingFraction: 0, n: 5, halfWidth: 4, source: 'dose.md' });
    const more = cell({ misleadingFraction: 0, n: 6, halfWidth: 9, source: 'more.md' });
    const later = cell({ misleadingFraction: 0, n: 6, halfWidth: 1, source: 'later.md' });
    expect(bestCells([means, paired]).map((c) => c.source)).toEqual(['dose.md']);
    expect(bestCells([paired, means]).map((c) => c.source)).toEqual(['dose.md']);
    expect(bestCells([paired, more, means]).map((c) => c.source)).toEqual(['more.md']);
    expect(bestCells([more, later]).map((c) => c.source)).toEqual(['later.md']);
    expect(bestCells([means, cell({ source: 'other.md' })]).map((c) => c.misleadingFraction)).toEqual([0, 0.375]);
  });

  it('adds a newer measurement’s seeds to an earlier cell, the newer difference winning for a seed both hold', () => {
    const earlier = cell({ source: 'old.md', perSeed: [1, 2].map((seed) => ({ seed, difference: seed * 10 })) });
    const newer = cell({
      source: 'new.md',
      note: 'paired',
      perSeed: [
        { seed: 2, difference: 30 },
        { seed: 3, difference: 0 },
      ],
    });
    const merged = mergeSeeds(earlier, newer);
    expect(merged.perSeed).toEqual([
      { seed: 1, difference: 10 },
      { seed: 2, difference: 30 },
      { seed: 3, difference: 0 },
    ]);
    // [10, 30, 0]: mean 13.333; sd √(466.67 / 2) = 15.275; t(0.975, 2) = 4.3027 → half-width 37.95
    expect(merged.n).toBe(3);
    expect(merged.mean).toBeCloseTo(13.3333, 3);
    expect(merged.halfWidth).toBeCloseTo(37.95, 1);
    expect(merged.source).toBe('new.md');
    expect(merged.note).toBe('paired; seeds 1 from old.md');
    // no seed to add, no per-seed values on either side, or another cell: the newer cell as it is
    expect(mergeSeeds(cell({ perSeed: [{ seed: 2, difference: 1 }] }), newer)).toBe(newer);
    expect(mergeSeeds(cell({ perSeed: null }), newer)).toBe(newer);
    expect(mergeSeeds(earlier, cell({ perSeed: null }))).toEqual(cell({ perSeed: null }));
    expect(mergeSeeds(cell({ ...earlier, world: 2 }), newer)).toBe(newer);
  });

  it('keeps task worlds apart: the same level in two worlds is two cells, each paired within its world', () => {
    const cells = runCells([
      run('a1', 1, 'adaptive', 0.7, 0.375, 1),
      run('b1', 1, 'never', 0.6, 0.375, 1),
      run('a2', 1, 'adaptive', 0.2, 0.375, 2),
      run('b2', 1, 'never', 0.5, 0.375, 2),
      run('a3', 2, 'adaptive', 0.9, 0.375, 3), // its OPD partner is in another world: no pair
      run('b3', 2, 'never', 0.1, 0.375, 2),
    ]);
    expect(cells.map((c) => [c.world, c.n, Math.round(c.mean)])).toEqual([
      [1, 1, 10],
      [2, 1, -30],
    ]);
    expect(cellKey(cells[1]!)).toBe('shell#2@0.375');
    expect(bestCells([cell({ world: 2 }), cell({ world: 1 })]).map((c) => c.world)).toEqual([1, 2]);
  });

  it('contrasts other schedules when asked: competence-only − OPD throughout pairs those runs and ignores the adaptive', () => {
    const runs = [
      run('a1', 1, 'adaptive', 0.9, 0.375, 1),
      run('c1', 1, 'competence-only', 0.7, 0.375, 1),
      run('o1', 1, 'never', 0.6, 0.375, 1),
      run('c2', 2, 'competence-only', 0.4, 0.375, 1),
      run('o2', 2, 'never', 0.5, 0.375, 1),
    ];
    const gate = runCells(runs, { treatment: 'competence-only', control: 'never' });
    // +10 and −10 points
    expect(gate.map((c) => [c.n, Math.round(c.mean)])).toEqual([[2, 0]]);
    expect(gate[0]!.runIds).toEqual(['c1', 'o1', 'c2', 'o2']);
    // the map's default contrast still reads adaptive − never only: one seed, +30 points
    expect(runCells(runs).map((c) => [c.n, Math.round(c.mean)])).toEqual([[1, 30]]);
    const vs = runCells(runs, { treatment: 'adaptive', control: 'competence-only' });
    expect(vs.map((c) => [c.n, Math.round(c.mean)])).toEqual([[1, 20]]);
  });

  it('pools a level measured in several worlds: the mean of the worlds’ means, a t-interval over worlds', () => {
    const cells = [
      cell({ world: 1, misleadingFraction: 0, mean: -10, halfWidth: 5, n: 5 }),
      cell({ world: 2, misleadingFraction: 0, mean: 0, halfWidth: 5, n: 5 }),
      cell({ world: 3, misleadingFraction: 0, mean: 4, halfWidth: 5, n: 5 }),
      cell({ world: 1, misleadingFraction: 0.5, mean: 1, halfWidth: 2, n: 5 }), // one world only: not pooled
      cell({ world: 2, misleadingFraction: 0.25, mean: 1, halfWidth: null, n: 5 }), // no interval: not pooled
    ];
    const pooled = worldPooledCells(cells, 'dose.md');
    expect(pooled).toHaveLength(1);
    const p = pooled[0]!;
    expect(p).toMatchObject({ world: ACROSS_WORLDS, misleadingFraction: 0, n: 3, source: 'dose.md', perSeed: null });
    // world means −10, 0, 4: mean −2, sd √52, half-width t(0.975, 2) · √52 / √3 = 4.3027 · 4.1633
    expect(p.mean).toBeCloseTo(-2, 12);
    expect(p.halfWidth).toBeCloseTo((4.30265273 * Math.sqrt(52)) / Math.sqrt(3), 4);
    expect(p.note).toContain('world 1 −10.0 (n = 5), world 2 +0.0 (n = 5), world 3 +4.0 (n = 5)');
    expect(cellKey(p)).toBe('shell#-1@0');
  });
});
