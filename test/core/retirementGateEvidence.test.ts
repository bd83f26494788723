import { describe, expect, it } from 'vitest';
import { RetirementGate } from '../../src/core/retirementGate';

const base = { lambdaOpd: 1, teacherPerformance: 1 };

/** Drive the gate as the trainer does: a gap at every step (K = 1), a validation score every `cadence` steps. */
function driveConstant(gate: RetirementGate, steps: number, cadence: number, score: (step: number) => number): void {
  for (let step = 1; step <= steps; step++) {
    if (gate.beginStep(step).teacherNeeded) gate.observeGap(step, -1);
    if (step % cadence === 0) gate.validate(step, score(step));
  }
}

describe('the evidence the retirement gate exposes', () => {
  it('has none before the first evaluation', () => {
    const gate = new RetirementGate({ ...base, windowSize: 5 });
    driveConstant(gate, 4, 10, () => 0.5);
    expect(gate.evidence).toBeNull();
  });

  it('names the windows a W = 5 gate compared at a validation every 10 steps, and how old they were', () => {
    // Windows close at steps 5, 10, 15, …; the validation at step 10n evaluates the oldest unevaluated window, the
    // n-th, which holds the gaps of steps 5n − 4 … 5n. At step 180 that is window 18 (steps 86–90), compared with
    // window 17 (ended at 85): 180 − 90 = 90 steps old. K is constant, so ρ = 0 ≤ δ = 0 at every valid evaluation;
    // η = (1 + 0.8)/2 = 0.9 ≥ γ = 0.9 first at step 180.
    const gate = new RetirementGate({ ...base, windowSize: 5 });
    driveConstant(gate, 180, 10, (step) => (step === 180 ? 1 : step === 170 ? 0.8 : 0.5));
    expect(gate.triggerStep).toBe(180);
    expect(gate.evidence).toEqual({
      step: 180,
      window_index: 18,
      window_start_step: 86,
      window_end_step: 90,
      previous_window_index: 17,
      previous_window_end_step: 85,
      age_steps: 90,
    });
  });

  it('reads fresh windows when W equals the validation cadence', () => {
    const gate = new RetirementGate({ ...base, windowSize: 10 });
    driveConstant(gate, 180, 10, (step) => (step === 180 ? 1 : step === 170 ? 0.8 : 0.5));
    expect(gate.triggerStep).toBe(180);
    expect(gate.evidence).toEqual({
      step: 180,
      window_index: 18,
      window_start_step: 171,
      window_end_step: 180,
      previous_window_index: 17,
      previous_window_end_step: 170,
      age_steps: 0,
    });
  });

  it('has no previous window at the first evaluation, and counts steps, not calls, for the window’s first step', () => {
    // W = 2, gaps at steps 3 and 7 only (the log skipped the others), validation at 8: window 1 is steps 3–7.
    const gate = new RetirementGate({ ...base, windowSize: 2 });
    gate.observeGap(3, -1);
    gate.observeGap(7, -1);
    gate.validate(8, 0.5);
    expect(gate.evidence).toEqual({
      step: 8,
      window_index: 1,
      window_start_step: 3,
      window_end_step: 7,
      previous_window_index: null,
      previous_window_end_step: null,
      age_steps: 1,
    });
  });

  it('does not know where a window began before a checkpoint restore, and knows again for windows begun after it', () => {
    const gate = new RetirementGate({ ...base, windowSize: 2 });
    gate.observeGap(1, -1);
    gate.observeGap(2, -1); // window 1: steps 1–2
    gate.observeGap(3, -1); // pending: step 3
    const restored = RetirementGate.fromJSON(gate.toJSON(), { ...base, windowSize: 2 });
    restored.observeGap(4, -1); // window 2: began before the restore
    restored.observeGap(5, -1);
    restored.observeGap(6, -1); // window 3: steps 5–6
    restored.validate(6, 0.5);
    expect(restored.evidence).toMatchObject({ window_index: 1, window_start_step: null, window_end_step: 2 });
    restored.validate(7, 0.5);
    expect(restored.evidence).toMatchObject({ window_index: 2, window_start_step: null, previous_window_end_step: 2 });
    restored.validate(8, 0.5);
    expect(restored.evidence).toMatchObject({
      window_index: 3,
      window_start_step: 5,
      window_end_step: 6,
      age_steps: 2,
    });
  });

  it('leaves the checkpoint and the metrics as they were', () => {
    const gate = new RetirementGate({ ...base, windowSize: 5 });
    driveConstant(gate, 30, 10, () => 0.5);
    expect(Object.keys(gate.toJSON())).not.toContain('evidence');
    expect(JSON.stringify(gate.toJSON())).not.toContain('start_step');
  });
});
