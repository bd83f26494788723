// Arms paired on the seed against a baseline (src/core/experiment/pairedArms.ts), against hand-computed values:
// t₀.₉₇₅,₂ = 4.3027, so three differences −0.1, 0.1, 0 (sd 0.1) give ± 4.3027 · 0.1 / √3 = 0.2484, and arm b's
// successes 0.4, 0.7, 0.7 (sd √0.03) ± 4.3027 · √0.03 / √3 = 0.4303.
import { describe, expect, it } from 'vitest';
import { pairedArmsPage, verdictOf, type ArmRun } from '../../../src/core/experiment/pairedArms';
import { seedInterval } from '../../../src/core/experiment/seedStatistics';

const run = (arm: string, seed: number, test: number, at04?: number): ArmRun => ({
  arm,
  seed,
  test,
  testAt: new Map(
    at04 === undefined
      ? [[1, test]]
      : [
          [1, test],
          [0.4, at04],
        ],
  ),
  triggerStep: arm === 'b' && seed === 1 ? 120 : null,
});

const RUNS = [
  run('base', 1, 0.5, 0.5),
  run('base', 2, 0.6, 0.5),
  run('base', 3, 0.7, 0.5),
  run('a', 1, 0.6, 0.6),
  run('a', 2, 0.7, 0.6),
  run('a', 3, 0.8, 0.6),
  run('b', 1, 0.4, 0.5),
  run('b', 2, 0.7, 0.5),
  run('b', 3, 0.7, 0.5),
];

const page = pairedArmsPage(RUNS, {
  title: 'T',
  baseline: 'base',
  arms: ['base', 'a', 'b'],
  seeds: [1, 2, 3, 4],
  intro: ['intro line'],
  command: 'cmd --x',
  commit: 'abc1234',
  date: '2026-12-06',
});

describe('arms paired on the seed', () => {
  it('reads an interval that holds zero as no measurable difference, and one that does not by its sign', () => {
    expect(verdictOf(seedInterval([-0.1, 0.1, 0]))).toBe('no measurable difference');
    expect(verdictOf(seedInterval([0.1, 0.12, 0.09]))).toBe('measurably higher');
    expect(verdictOf(seedInterval([-0.1, -0.12, -0.09]))).toBe('measurably lower');
    expect(verdictOf(seedInterval([0.3]))).toBe('fewer than two seeds');
  });

  it('gives each arm − baseline with its hand-computed t-interval and the seeds where it is higher', () => {
    expect(page).toContain('| a | 3 | 10.0 ± 0.0 | 3 of 3 | measurably higher |');
    expect(page).toContain('| b | 3 | 0.0 ± 24.8 | 1 of 3 | no measurable difference |');
  });

  it('pairs the other temperature separately and keeps T = 1 as the primary column only once', () => {
    expect(page).toContain('## Paired on the seed: arm − base, test success % (T = 0.4)');
    expect(page.match(/test success % \(T = 1\), mean/g)?.length).toBe(1);
    expect(page).toContain('| b | 3 | 0.0 ± 0.0 | 0 of 3 | no measurable difference |');
  });

  it('names the seeds without a finished run, the command and the commit', () => {
    expect(page).toContain('- `base`: no finished run on seed 4');
    expect(page).toContain('Command:\n\n```sh\ncmd --x\n```');
    expect(page).toContain('Commit: abc1234');
    expect(page).toContain('| b | 3 | 60.0 ± 43.0 | 50.0 ± 0.0 | 1 of 3 | 120, –, – |');
  });
});

describe('the paired page in words', () => {
  it('names the nulls and the measurable differences in a sentence under each table', () => {
    expect(page).toContain('In words (test success % (T = 1)): measurably higher: `a`; no measurable difference: `b`.');
  });
});
