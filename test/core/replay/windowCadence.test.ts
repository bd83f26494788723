import { describe, expect, it } from 'vitest';
import { replayGate } from '../../../src/core/replay/gateReplay';
import { cadenceWarning, evidenceHeadline, typicalGapsPerValidation } from '../../../src/core/replay/windowCadence';

/** A log with a gap at every step 1…last (K = 1) and a validation every `cadence` steps: S = 0.5, then 0.8 at 170 and
 *  1 at 180, so that with S_T = 1 and γ = 0.9 the gate retires at 180 (η = (1 + 0.8)/2 = 0.9; ρ = 0 ≤ δ = 0). */
function log(last: number, cadence: number): string {
  const lines: string[] = [];
  for (let step = 1; step <= last; step++) {
    const val = step % cadence === 0 ? (step === 180 ? 1 : step === 170 ? 0.8 : 0.5) : undefined;
    lines.push(JSON.stringify(val === undefined ? { step, gap: -1 } : { step, gap: -1, val }));
  }
  return lines.join('\n');
}

const replay = (windowSize: number, cadence = 10) =>
  replayGate([{ name: 'run.jsonl', text: log(180, cadence) }], { gate: { teacherPerformance: 1, windowSize } });

describe('how fresh the replayed gate’s evidence is', () => {
  it('takes the most frequent count of gaps between validations, the smaller on a tie', () => {
    expect(typicalGapsPerValidation([10, 10, 7, 10])).toBe(10);
    expect(typicalGapsPerValidation([0, 5, 10])).toBe(5);
    expect(typicalGapsPerValidation([0, 0])).toBeNull();
  });

  it('says the decision at 180 with W 5 and a validation every 10 steps read window 18 (steps 86–90), 90 steps old', () => {
    const { summary } = replay(5);
    expect(summary.trigger_step).toBe(180);
    expect(summary.evidence).toEqual({
      step: 180,
      window_index: 18,
      window_start_step: 86,
      window_end_step: 90,
      previous_window_index: 17,
      previous_window_end_step: 85,
      age_steps: 90,
    });
    expect(evidenceHeadline(summary.evidence!, true)).toBe(
      'retired at 180 on window 18 (steps 86–90) against window 17; this evidence is 90 steps old',
    );
    expect(summary.warnings).toEqual([
      '18 of 18 evaluations read a window that had closed before their validation (at step 180 the gate read ' +
        'window 18 (steps 86–90), 90 steps old): windows close every W = 5 gaps but a validation comes every 10 ' +
        'gaps, and each validation evaluates the oldest window not yet evaluated, so unevaluated windows pile up. ' +
        'W = 10 (or a multiple: 20, 30) would evaluate each window at the validation that closes it.',
    ]);
  });

  it('gives no warning when W is the validation cadence or a multiple of it: each window is read where it closes', () => {
    const ten = replay(10).summary;
    expect(ten.evidence).toMatchObject({ step: 180, window_index: 18, window_start_step: 171, age_steps: 0 });
    expect(evidenceHeadline(ten.evidence!, true)).toBe(
      'retired at 180 on window 18 (steps 171–180) against window 17; this evidence is fresh (the window closed at this step)',
    );
    expect(ten.warnings).toBeUndefined();
    expect(replay(20).summary.warnings).toBeUndefined();
  });

  it('words a window wider than the cadence, but no multiple of it, as waiting for the next validation', () => {
    // W 15: windows close at 15, 30, 45, …; validations at 10 (none), 20 (window 1, 5 steps old), 30 (window 2,
    // fresh), 40 (none), 50 (window 3, 5 old), 60 (window 4, fresh), …: every other evaluation is 5 steps old.
    const { summary } = replay(15);
    expect(summary.warnings?.[0]).toMatch(/^6 of 12 evaluations read a window/);
    expect(summary.warnings?.[0]).toContain('W = 10 (or a multiple: 20, 30)');
    expect(summary.warnings?.[0]).not.toContain('pile up');
  });

  it('blames an offset, not W, where W already is a multiple of the cadence', () => {
    const cited = {
      step: 10,
      window_index: 1,
      window_start_step: 0,
      window_end_step: 9,
      previous_window_index: null,
      previous_window_end_step: null,
      age_steps: 1,
    };
    expect(cadenceWarning({ windowSize: 10, gapsPerValidation: 10, stale: 3, evaluations: 3, cited })).toBe(
      '3 of 3 evaluations read a window that had closed before their validation (at step 10 the gate read window 1 ' +
        '(steps 0–9), 1 step old): W = 10 is a multiple of the 10 gaps between validations, so the log’s validation ' +
        'steps are offset from the windows’ last gap steps (where the gaps and validations start).',
    );
    expect(evidenceHeadline(cited, false)).toBe(
      'kept the teacher at 10, its latest evaluation, on window 1 (steps 0–9) with no window before it; this evidence is 1 step old',
    );
  });
});
