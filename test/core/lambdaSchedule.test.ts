import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../../src/core/errors';
import { LambdaSchedule } from '../../src/core/lambdaSchedule';

const config = { lambdaOpd: 0.5, teacherPerformance: 0.8, windowSize: 1 };

/** Run steps 1..n with constant K = 0.5 (gap −0.5) and a validation score at every step; return per-step plans. */
function runSteps(schedule: LambdaSchedule, n: number, score = 0.8) {
  const plans = [];
  for (let step = 1; step <= n; step++) {
    const plan = schedule.beginStep(step);
    plans.push(plan);
    if (plan.teacherNeeded) schedule.observeGap(step, -0.5);
    schedule.validate(step, score);
  }
  return plans;
}

describe('LambdaSchedule', () => {
  it('adaptive: the gate decides (P = 0 and C = 1 at step 2 with constant K and S = S_T)', () => {
    const s = new LambdaSchedule('adaptive', config);
    const plans = runSteps(s, 4);
    expect(plans.map((p) => p.opdCoef)).toEqual([0.5, 0.5, 0, 0]);
    expect(plans.map((p) => p.teacherNeeded)).toEqual([true, true, false, false]);
    expect(s.triggerStep).toBe(2);
    expect(s.metrics()).toMatchObject({
      'retire_opd/teacher_forward_skipped': 1,
      'retire_opd/teacher_forwards_skipped_total': 2,
      'retire_opd/retired': 1,
    });
  });

  it('alignment-only retires on P ≤ δ although C < γ; competence-only waits for C ≥ γ although P > δ', () => {
    const alignment = new LambdaSchedule('alignment-only', config);
    runSteps(alignment, 3, 0.4); // C = 0.5 at every evaluation
    expect(alignment.triggerStep).toBe(2);
    const competence = new LambdaSchedule('competence-only', config);
    const gaps = [-1, -0.5, -0.25, -0.125]; // P = 0.5 at every evaluation: still shrinking
    const scores = [0.4, 0.6, 0.8, 0.8]; // C at step 2 = 1.0/1.6 = 0.625, at 3 = 1.4/1.6 = 0.875, at 4 = 1.6/1.6 = 1
    gaps.forEach((g, i) => {
      competence.beginStep(i + 1);
      competence.observeGap(i + 1, g);
      competence.validate(i + 1, scores[i] ?? Number.NaN);
    });
    expect(competence.triggerStep).toBe(4);
  });

  it('never: OPD throughout, the teacher always runs, the observing gate still reports P and C', () => {
    const s = new LambdaSchedule('never', config);
    const plans = runSteps(s, 4);
    expect(plans.every((p) => p.opdCoef === 0.5 && p.teacherNeeded)).toBe(true);
    expect(s.retired).toBe(false);
    expect(s.metrics()).toMatchObject({
      'retire_opd/alignment_progress': 0,
      'retire_opd/competence_ratio': 1,
      'retire_opd/criterion_valid': 1,
      'retire_opd/retired': 0,
      'retire_opd/trigger_step': -1,
      'retire_opd/num_evaluated_windows': 4,
      'retire_opd/teacher_forward_skipped': 0,
      'retire_opd/teacher_forwards_skipped_total': 0,
    });
  });

  it('none: λ = 0, the teacher never runs, every step counts as a skipped teacher forward', () => {
    const s = new LambdaSchedule('none', config);
    const plans = runSteps(s, 3);
    expect(plans).toEqual([
      { opdCoef: 0, teacherNeeded: false },
      { opdCoef: 0, teacherNeeded: false },
      { opdCoef: 0, teacherNeeded: false },
    ]);
    expect(s.observeGap(3, -1)).toBeNull();
    expect(s.metrics()).toMatchObject({
      'retire_opd/teacher_forward_skipped': 1,
      'retire_opd/teacher_forwards_skipped_total': 3,
      'retire_opd/window_index': 0,
    });
  });

  it('fixed:2 uses OPD through step 2 and retires after it', () => {
    const s = new LambdaSchedule('fixed:2', config);
    expect([1, 2, 3].map((k) => s.coefficient(k))).toEqual([0.5, 0.5, 0]);
    const plans = runSteps(s, 2);
    expect(plans.map((p) => p.teacherNeeded)).toEqual([true, true]);
    expect(s.metrics()).toMatchObject({
      'retire_opd/retired': 1,
      'retire_opd/trigger_step': 2,
      'retire_opd/opd_coef': 0,
    });
    // step 2 still ran the teacher: the per-step flag is 0 until step 3 skips it
    expect(s.metrics()['retire_opd/teacher_forward_skipped']).toBe(0);
    expect(s.beginStep(3)).toEqual({ opdCoef: 0, teacherNeeded: false });
    expect(s.metrics()['retire_opd/teacher_forward_skipped']).toBe(1);
    expect(s.metrics()['retire_opd/teacher_forwards_skipped_total']).toBe(1);
  });

  it('linear:4 anneals λ by (N − k)/N and stops the teacher when it reaches 0', () => {
    const s = new LambdaSchedule('linear:4', config);
    // 0.5 · (4 − k)/4 for k = 0..5
    expect([0, 1, 2, 3, 4, 5].map((k) => s.coefficient(k))).toEqual([0.5, 0.375, 0.25, 0.125, 0, 0]);
    expect([3, 4].map((k) => s.teacherNeeded(k))).toEqual([true, false]);
    runSteps(s, 3);
    expect(s.retired).toBe(false);
    expect(s.metrics()['retire_opd/opd_coef']).toBe(0.125);
    s.beginStep(4);
    expect(s.metrics()).toMatchObject({
      'retire_opd/retired': 1,
      'retire_opd/trigger_step': 4,
      'retire_opd/opd_coef': 0,
    });
  });

  it('coefficient and teacherNeeded are pure queries', () => {
    const s = new LambdaSchedule('none', config);
    s.coefficient(1);
    s.teacherNeeded(1);
    expect(s.metrics()['retire_opd/teacher_forward_skipped']).toBe(0);
    expect(s.metrics()['retire_opd/teacher_forwards_skipped_total']).toBe(0);
  });

  const names = ['adaptive', 'alignment-only', 'competence-only', 'never', 'none', 'fixed:3', 'linear:5'];
  it.each(names)('%s: restored at every split point, continues exactly as the uninterrupted run', (name) => {
    const steps = 8;
    const gaps = [-1, -0.75, -0.5, -0.5, -0.5, -0.25, -0.25, -0.25];
    const scores = [0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.8, 0.8];
    const apply = (s: LambdaSchedule, from: number, to: number) => {
      const trace = [];
      for (let i = from; i < to; i++) {
        const plan = s.beginStep(i + 1);
        const window = plan.teacherNeeded ? s.observeGap(i + 1, gaps[i] ?? 0) : null;
        const evaluation = s.validate(i + 1, scores[i] ?? 0);
        trace.push({ plan, window, evaluation, metrics: s.metrics() });
      }
      return trace;
    };
    const full = apply(new LambdaSchedule(name, config), 0, steps);
    for (let split = 0; split <= steps; split++) {
      const head = new LambdaSchedule(name, config);
      const first = apply(head, 0, split);
      const resumed = LambdaSchedule.fromJSON(JSON.parse(JSON.stringify(head)), name, config);
      expect([...first, ...apply(resumed, split, steps)]).toEqual(full);
    }
  });

  it('refuses a checkpoint of another schedule or config', () => {
    const state = new LambdaSchedule('fixed:40', config).toJSON();
    expect(() => LambdaSchedule.fromJSON(state, 'adaptive', config)).toThrow(
      'checkpoint schedule does not match: fixed:40 ≠ adaptive',
    );
    expect(() => LambdaSchedule.fromJSON(state, 'fixed:40', { ...config, windowSize: 3 })).toThrow(
      'checkpoint config does not match: window_size 1 ≠ 3',
    );
    expect(() => LambdaSchedule.fromJSON(state, 'adaptive', config)).toThrow(CheckpointError);
  });

  it('refuses a fractional or negative last_step, and one before the gate’s own gaps, as a CheckpointError', () => {
    const schedule = new LambdaSchedule('adaptive', config);
    for (let k = 1; k <= 3; k++) {
      schedule.beginStep(k);
      schedule.observeGap(k, -1);
    }
    const state = schedule.toJSON();
    expect(LambdaSchedule.fromJSON(state, 'adaptive', config).toJSON()).toEqual(state);
    for (const [lastStep, message] of [
      [2.5, 'schedule checkpoint: last_step must be an integer ≥ 0 or null, got 2.5'],
      [-1, 'schedule checkpoint: last_step must be an integer ≥ 0 or null, got -1'],
      [
        2,
        "schedule checkpoint is inconsistent: last_step 2 is before its gate's 3 gaps, trigger step – or 0 skipped " +
          'teacher forwards',
      ],
    ] as const) {
      const forged = { ...state, last_step: lastStep };
      expect(() => LambdaSchedule.fromJSON(forged, 'adaptive', config)).toThrow(new CheckpointError(message));
    }
  });
});
