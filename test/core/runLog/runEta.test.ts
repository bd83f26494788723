import { describe, expect, it } from 'vitest';
import { durationWords, ETA_WINDOW, runEta } from '../../../src/core/runLog/runEta';
import type { MetricsLine } from '../../../src/core/runLog/trainerEvent';

/** step lines whose wall time is `seconds[i]` (time/steps_per_s = 1 / seconds) */
const lines = (seconds: number[]): MetricsLine[] => seconds.map((s, i) => ({ step: i + 1, 'time/steps_per_s': 1 / s }));
const STEPS = { sft: 160, teacher: 0, student: 400 };

describe('runEta', () => {
  it('multiplies the steps left in the running stage by the mean wall time of its recent steps', () => {
    // 4 steps of 0.5, 0.5, 1.5, 0.5 s: mean 0.75 s; 400 − 100 = 300 steps left → 225 s
    const eta = runEta('student', 100, 400, lines([0.5, 0.5, 1.5, 0.5]), STEPS)!;
    expect(eta.secondsPerStep).toBeCloseTo(0.75, 12);
    expect(eta.stageSeconds).toBeCloseTo(225, 9);
    expect(eta.measuredSteps).toBe(4);
    expect(eta.laterStages).toEqual([]);
  });

  it('averages only the most recent steps, so an early slow compile stops counting', () => {
    // 10 steps of 5 s, then ETA_WINDOW steps of 1 s: the mean is 1 s
    const eta = runEta('student', 30, 40, lines([...Array(10).fill(5), ...Array(ETA_WINDOW).fill(1)]), STEPS)!;
    expect(eta.secondsPerStep).toBeCloseTo(1, 12);
    expect(eta.stageSeconds).toBeCloseTo(10, 9);
  });

  it('gives no estimate before three timed steps, and skips lines without a usable timing', () => {
    expect(runEta('student', 2, 400, lines([1, 1]), STEPS)).toBeNull();
    const odd: MetricsLine[] = [{ step: 1 }, { step: 2, 'time/steps_per_s': 0 }, ...lines([2, 2])];
    expect(runEta('student', 4, 400, odd, STEPS)).toBeNull();
  });

  it('names the later stages with their step counts instead of estimating them from this stage', () => {
    const eta = runEta('sft', 10, 160, lines([0.1, 0.1, 0.1]), STEPS)!;
    expect(eta.stageSeconds).toBeCloseTo(15, 9);
    expect(eta.laterStages).toEqual([{ stage: 'student', steps: 400 }]);
  });
});

describe('durationWords', () => {
  it('rounds seconds to 5 s under a minute, then whole minutes, then hours and minutes', () => {
    expect(durationWords(0.4)).toBe('1 s');
    expect(durationWords(42)).toBe('40 s');
    expect(durationWords(90)).toBe('2 min');
    expect(durationWords(3900)).toBe('1 h 5 min');
    expect(durationWords(Number.NaN)).toBe('—');
  });
});
