import { describe, expect, it } from 'vitest';
import { parseOutcomePage } from '../../../src/core/experiment/outcomePage';
import {
  type SeedSpread,
  intervalWords,
  seedCount,
  seedSpreadOf,
  seedSpreadText,
  signedPoints,
} from '../../../src/core/experiment/seedSpread';

const spread = (over: Partial<SeedSpread>): SeedSpread => ({
  source: 'docs/outcomes/x.md',
  commit: 'abc1234',
  date: '2026-12-03',
  comparison: 'RetireOPD − OPD throughout',
  seed: 1000,
  thisSeed: 16.7,
  n: 10,
  mean: 3.6,
  halfWidth: 11.6,
  level: 0.95,
  perSeed: [],
  ...over,
});

const PAGE = [
  '# Protocol: shell, reporting seeds 1000–1009',
  '',
  'Commit e1ba75a, 2026-12-03. Command:',
  '',
  'RetireOPD − OPD throughout: +3.6 ± 11.6 points over 3 seeds; RetireOPD is higher on 2 of 3 (per seed: 1000: +16.7, 1001: +4.9, 1005: −33.0).',
  'RetireOPD − OPD throughout at T = 0.4: +5.0 ± 12.1 points; RetireOPD is higher on 2 of 3 (per seed: 1000: +17.4, 1001: +6.3, 1005: −33.8).',
].join('\n');

describe('the recorded seed among the reporting seeds', () => {
  it('reads a null as a null: an interval holding 0 is worded "no measurable difference"', () => {
    expect(seedSpreadText(spread({}))).toBe(
      'this seed: +16.7; ten seeds: +3.6 ± 11.6 (95 % interval; no measurable difference)',
    );
    // the edge: an interval whose end touches 0 still holds it
    expect(intervalWords(-4.6, 4.6, 10)).toBe('no measurable difference');
  });

  it('words an interval that excludes 0 by its sign', () => {
    expect(seedSpreadText(spread({ thisSeed: -6.5, mean: -4.6, halfWidth: 3.9 }))).toBe(
      'this seed: −6.5; ten seeds: −4.6 ± 3.9 (95 % interval; RetireOPD measurably lower)',
    );
    expect(intervalWords(51.0, 10.6, 10)).toBe('RetireOPD measurably higher');
  });

  it('writes signed points with a typographic minus and no negative zero', () => {
    expect([signedPoints(16.7), signedPoints(-33), signedPoints(0), signedPoints(-0.04)]).toEqual([
      '+16.7',
      '−33.0',
      '+0.0',
      '+0.0',
    ]);
    expect([seedCount(1), seedCount(10), seedCount(12)]).toEqual(['one seed', 'ten seeds', '12 seeds']);
  });

  it('takes the recorded seed and the interval from the page’s primary (T = 1) line, as printed', () => {
    const s = seedSpreadOf(parseOutcomePage(PAGE, 'p.md'), 'p.md', 1005);
    expect(s).toMatchObject({ seed: 1005, thisSeed: -33, n: 3, mean: 3.6, halfWidth: 11.6, commit: 'e1ba75a' });
    expect(s.perSeed.map((p) => p.difference)).toEqual([16.7, 4.9, -33]);
  });

  it('refuses a seed the page does not list, naming the page', () => {
    expect(() => seedSpreadOf(parseOutcomePage(PAGE, 'p.md'), 'p.md', 7)).toThrow(/p\.md: seed 7 is not among/);
  });
});
