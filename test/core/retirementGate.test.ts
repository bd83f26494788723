import { describe, expect, it } from 'vitest';
import { GateConfigError, parseGateConfig } from '../../src/core/gateConfig';
import {
  type GateEvaluation,
  GateInputError,
  RETIRE_OPD_METRIC_NAMES,
  RetirementGate,
} from '../../src/core/retirementGate';
import type { GateRule } from '../../src/core/methodVocabulary';

// K values below are dyadic (exact in binary) so window means and P are exact and P = 0 can be asserted exactly.
// A gap g is fed as −K (K = −g).

type Event = { step: number; k?: number; score?: number };

/** Drive a gate the way the trainer does: beginStep, the gap when the teacher runs, then the validation. */
function drive(gate: RetirementGate, events: readonly Event[]): (GateEvaluation | null)[] {
  const out: (GateEvaluation | null)[] = [];
  for (const e of events) {
    const plan = gate.beginStep(e.step);
    if (e.k !== undefined && plan.teacherNeeded) gate.observeGap(e.step, -e.k);
    if (e.score !== undefined) out.push(gate.validate(e.step, e.score));
  }
  return out;
}

const base = { lambdaOpd: 1, teacherPerformance: 0.8 };

// W = 2, validation every 2 steps. Windows: (1, .5) → .75 @2; (.5, .25) → .375 @4; (.25, .5) → .375 @6.
const streamA: Event[] = [
  { step: 1, k: 1 },
  { step: 2, k: 0.5, score: 0.5 },
  { step: 3, k: 0.5 },
  { step: 4, k: 0.25, score: 0.7 },
  { step: 5, k: 0.25 },
  { step: 6, k: 0.5, score: 0.76 },
  { step: 7, k: 0.5 },
  { step: 8, k: 0.25, score: 0.8 },
];

describe('RetirementGate on a hand-computed stream', () => {
  it('evaluates the first window without a criterion, then computes P and C by hand', () => {
    const gate = new RetirementGate({ ...base, windowSize: 2 });
    const [v2, v4, v6, v8] = drive(gate, streamA);
    expect(v2).toMatchObject({
      step: 2,
      window_index: 1,
      window_end_step: 2,
      k_window_mean: 0.75,
      criterion_valid: false,
    });
    expect(v2?.alignment_progress).toBeNaN();
    expect(v2?.competence_ratio).toBeNaN();
    // P = (0.75 − 0.375)/0.75 = 0.5; C = (0.7 + 0.5)/(2·0.8) = 0.75
    expect(v4).toMatchObject({ window_index: 2, k_window_mean: 0.375, alignment_progress: 0.5, retired: false });
    expect(v4?.competence_ratio).toBeCloseTo(0.75, 12);
    // P = (0.375 − 0.375)/0.375 = 0 ≤ δ = 0; C = (0.76 + 0.7)/1.6 = 0.9125 ≥ 0.9 → retires at step 6
    expect(v6).toMatchObject({
      window_index: 3,
      alignment_progress: 0,
      criterion_valid: true,
      retired: true,
      triggered: true,
    });
    expect(v6?.competence_ratio).toBeCloseTo(0.9125, 12);
    // Steps 7 and 8 ran no teacher: no window 4 exists, so the validation at 8 has nothing to evaluate.
    expect(v8).toBeNull();
    expect(gate.triggerStep).toBe(6);
    expect(gate.coefficient).toBe(0);
    expect(gate.metrics()).toMatchObject({
      'retire_opd/retired': 1,
      'retire_opd/trigger_step': 6,
      'retire_opd/opd_coef': 0,
      'retire_opd/window_index': 3,
      'retire_opd/window_fill': 0,
      'retire_opd/num_evaluated_windows': 3,
      // the public code's per-step flag (step 8 skipped its teacher forward) and the lab's count (steps 7 and 8)
      'retire_opd/teacher_forward_skipped': 1,
      'retire_opd/teacher_forwards_skipped_total': 2,
      'retire_opd/student_performance': 0.8,
      'retire_opd/k_window_mean': 0.375,
      'retire_opd/k_step': 0.5,
    });
  });

  it('does not retire while the student is below the competence threshold', () => {
    const gate = new RetirementGate({ ...base, windowSize: 2 });
    // C at step 6 = (0.7 + 0.7)/1.6 = 0.875 < 0.9
    const events = streamA.map((e) => (e.step === 6 ? { ...e, score: 0.7 } : e));
    const evaluations = drive(gate, events);
    expect(evaluations[2]?.competence_ratio).toBeCloseTo(0.875, 12);
    expect(evaluations[2]?.retired).toBe(false);
    // P at step 8: window 4 = (.5 + .25)/2 = .375, P = 0; C = (0.8 + 0.7)/1.6 = 0.9375 → retires at 8
    expect(evaluations[3]).toMatchObject({ alignment_progress: 0, retired: true });
    expect(gate.triggerStep).toBe(8);
  });

  it('does not retire while the gap is still shrinking (P > δ), and honours a positive δ', () => {
    const shrinking: Event[] = [
      { step: 1, k: 1, score: 0.9 },
      { step: 2, k: 0.5, score: 0.9 }, // P = 0.5
      { step: 3, k: 0.375, score: 0.9 }, // P = 0.25
    ];
    const strict = new RetirementGate({ ...base, teacherPerformance: 0.9, windowSize: 1 });
    drive(strict, shrinking);
    expect(strict.retired).toBe(false);
    const loose = new RetirementGate({ ...base, teacherPerformance: 0.9, windowSize: 1, alignmentThreshold: 0.25 });
    drive(loose, shrinking);
    expect(loose.triggerStep).toBe(3);
  });

  it('retires no earlier than step 10 with W = 5 and validation every 5 steps', () => {
    const gate = new RetirementGate({ lambdaOpd: 0.01, teacherPerformance: 1, windowSize: 5 });
    const events: Event[] = [];
    for (let step = 1; step <= 20; step++) events.push({ step, k: 0.5, ...(step % 5 === 0 ? { score: 0.9 } : {}) });
    const evaluations = drive(gate, events);
    expect(evaluations[0]).toMatchObject({ step: 5, criterion_valid: false, retired: false });
    expect(evaluations[1]).toMatchObject({ step: 10, alignment_progress: 0, competence_ratio: 0.9, retired: true });
    expect(gate.triggerStep).toBe(10);
    expect(gate.metrics()['retire_opd/teacher_forwards_skipped_total']).toBe(10);
    expect(gate.metrics()['retire_opd/teacher_forward_skipped']).toBe(1);
  });

  it('flags a skipped teacher forward per step, 0 up to and including the trigger step, 1 after', () => {
    const gate = new RetirementGate({ ...base, windowSize: 2 });
    const flags: number[] = [];
    const totals: number[] = [];
    for (const e of streamA) {
      const plan = gate.beginStep(e.step);
      if (e.k !== undefined && plan.teacherNeeded) gate.observeGap(e.step, -e.k);
      if (e.score !== undefined) gate.validate(e.step, e.score);
      flags.push(gate.metrics()['retire_opd/teacher_forward_skipped']);
      totals.push(gate.metrics()['retire_opd/teacher_forwards_skipped_total']);
    }
    // streamA retires at step 6 (above): steps 7 and 8 skip the teacher
    expect(flags).toEqual([0, 0, 0, 0, 0, 0, 1, 1]);
    expect(totals).toEqual([0, 0, 0, 0, 0, 0, 1, 2]);
  });

  it('logs δ and γ as retire_opd/alignment_threshold and competence_threshold', () => {
    const m = new RetirementGate({ ...base, alignmentThreshold: -0.05, competenceThreshold: 0.8 }).metrics();
    expect(m['retire_opd/alignment_threshold']).toBe(-0.05);
    expect(m['retire_opd/competence_threshold']).toBe(0.8);
  });
});

describe('RetirementGate validation cadence', () => {
  it('changes nothing on a validation with no unevaluated window (except the reported score)', () => {
    const gate = new RetirementGate({ ...base, windowSize: 3 });
    drive(gate, [
      { step: 1, k: 0.5 },
      { step: 2, k: 0.5 },
    ]);
    const before = gate.toJSON();
    expect(gate.validate(2, 0.6)).toBeNull();
    const after = gate.toJSON();
    expect({ ...after, last: null }).toEqual({ ...before, last: null });
    expect(gate.metrics()['retire_opd/student_performance']).toBe(0.6);
    expect(gate.metrics()['retire_opd/criterion_valid']).toBe(0);
    expect(gate.metrics()['retire_opd/window_fill']).toBe(2);
  });

  it('evaluates every window once when validations are more frequent than windows', () => {
    // W = 4, validation every 2 steps: windows end at 4 and 8; validations at 2 and 6 find nothing new.
    const gate = new RetirementGate({ ...base, windowSize: 4 });
    const events: Event[] = [];
    const ks = [1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5];
    ks.forEach((k, i) => events.push({ step: i + 1, k, ...((i + 1) % 2 === 0 ? { score: 0.4 } : {}) }));
    const evaluations = drive(gate, events);
    expect(evaluations.map((e) => e?.window_end_step ?? null)).toEqual([null, 4, null, 8]);
    // P = (1 − 0.5)/1 = 0.5; C = (0.4 + 0.4)/1.6 = 0.5
    expect(evaluations[3]).toMatchObject({ alignment_progress: 0.5, competence_ratio: 0.5, criterion_valid: true });
  });

  it('evaluates the OLDEST unevaluated window when validations are less frequent than windows', () => {
    // W = 2, validation every 6 steps: windows end at 2, 4, 6, 8, 10, 12 but only two are evaluated, in order.
    const gate = new RetirementGate({ ...base, teacherPerformance: 0.9, windowSize: 2 });
    const ks = [1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25];
    const events: Event[] = ks.map((k, i) => ({ step: i + 1, k, ...((i + 1) % 6 === 0 ? { score: 0.9 } : {}) }));
    const [v6, v12] = drive(gate, events);
    expect(v6).toMatchObject({ step: 6, window_index: 1, window_end_step: 2, k_window_mean: 0.75 });
    // cur = window ending at 4, mean 0.5: P = (0.75 − 0.5)/0.75 = 1/3, C = (0.9 + 0.9)/1.8 = 1
    expect(v12).toMatchObject({ step: 12, window_index: 2, window_end_step: 4, k_window_mean: 0.5 });
    expect(v12?.alignment_progress).toBeCloseTo(1 / 3, 15);
    expect(v12?.competence_ratio).toBeCloseTo(1, 15);
    expect(gate.metrics()).toMatchObject({ 'retire_opd/window_index': 6, 'retire_opd/num_evaluated_windows': 2 });
  });
});

describe('RetirementGate denominators', () => {
  it('skips the criterion when |previous window mean| ≤ ε but still advances prev and the evaluated count', () => {
    const gate = new RetirementGate({ lambdaOpd: 1, teacherPerformance: 1, windowSize: 1, denominatorEpsilon: 0.25 });
    const [first, nearZero, next] = drive(gate, [
      { step: 1, k: 0.25, score: 0.9 }, // |prev| = 0.25 is not > ε for the next evaluation
      { step: 2, k: 0.5, score: 0.9 },
      { step: 3, k: 0.5, score: 0.95 },
    ]);
    expect(first?.criterion_valid).toBe(false);
    expect(nearZero).toMatchObject({ window_index: 2, criterion_valid: false, retired: false });
    expect(nearZero?.alignment_progress).toBeNaN();
    expect(nearZero?.competence_ratio).toBeNaN();
    // prev = 0.5 now: P = 0, C = (0.95 + 0.9)/2 = 0.925 → retires
    expect(next).toMatchObject({ window_index: 3, alignment_progress: 0, criterion_valid: true, retired: true });
    expect(next?.competence_ratio).toBeCloseTo(0.925, 15);
  });

  it('uses the signed previous mean: a negative prev flips the sign of P as in the public code', () => {
    const gate = new RetirementGate({ lambdaOpd: 1, teacherPerformance: 1, windowSize: 1 });
    const [, shrinking, growing] = drive(gate, [
      { step: 1, k: -0.5, score: 0.95 },
      { step: 2, k: -0.25, score: 0.95 }, // P = (−0.5 + 0.25)/(−0.5) = 0.5
      { step: 3, k: -1, score: 0.95 }, // P = (−0.25 + 1)/(−0.25) = −3 ≤ 0 → retires (|prev| would give +3)
    ]);
    expect(shrinking).toMatchObject({ alignment_progress: 0.5, retired: false });
    expect(growing).toMatchObject({ alignment_progress: -3, competence_ratio: 0.95, retired: true });
    expect(gate.triggerStep).toBe(3);
  });
});

describe('RetirementGate permanence and inputs', () => {
  it('stays retired and observes no gaps after retirement', () => {
    const gate = new RetirementGate({ ...base, windowSize: 2 });
    drive(gate, streamA.slice(0, 6));
    expect(gate.retired).toBe(true);
    const plan = gate.beginStep(7);
    expect(plan).toEqual({ opdCoef: 0, teacherNeeded: false });
    expect(gate.observeGap(7, -100)).toBeNull();
    expect(gate.observeGap(7, Number.NaN)).toBeNull();
    expect(gate.metrics()['retire_opd/window_fill']).toBe(0);
    expect(gate.metrics()['retire_opd/k_step']).toBe(0.5);
  });

  it('rejects a non-finite gap or score, naming the step', () => {
    const gate = new RetirementGate(base);
    expect(() => gate.observeGap(7, Number.NaN)).toThrow(GateInputError);
    expect(() => gate.observeGap(7, Number.POSITIVE_INFINITY)).toThrow(/step 7: teacher-student gap must be a finite/);
    expect(() => gate.validate(9, Number.NaN)).toThrow(/step 9: validation score must be a finite/);
    expect(gate.metrics()['retire_opd/window_fill']).toBe(0);
  });

  it('reports every retire_opd metric name of the spec', () => {
    const metrics = new RetirementGate(base).metrics();
    expect(Object.keys(metrics)).toEqual([...RETIRE_OPD_METRIC_NAMES]);
    // the public code's fourteen, its two thresholds, and the lab's running count of skipped teacher forwards
    expect(RETIRE_OPD_METRIC_NAMES).toHaveLength(17);
    expect(metrics).toMatchObject({ 'retire_opd/trigger_step': -1, 'retire_opd/opd_coef': 1, 'retire_opd/retired': 0 });
  });
});

describe('gate rules', () => {
  // Stream where alignment stalls early (step 2) but competence arrives only at step 4.
  const events: Event[] = [
    { step: 1, k: 0.5, score: 0.4 },
    { step: 2, k: 0.5, score: 0.4 }, // P = 0, C = 0.5
    { step: 3, k: 0.25, score: 0.8 }, // P = 0.5, C = 1.2/1.6 = 0.75
    { step: 4, k: 0.25, score: 1 }, // P = 0, C = 1.8/1.6 = 1.125
  ];
  const cases: [GateRule, number | null][] = [
    ['alignment-and-competence', 4],
    ['alignment-only', 2],
    ['competence-only', 4],
    ['observe-only', null],
  ];
  it.each(cases)('%s retires at step %s', (rule, trigger) => {
    const gate = new RetirementGate({ ...base, windowSize: 1 }, rule);
    drive(gate, events);
    expect(gate.triggerStep).toBe(trigger);
    expect(gate.numEvaluatedWindows).toBe(trigger === 2 ? 2 : 4);
  });
  it('competence-only retires on C ≥ γ even while the gap shrinks', () => {
    const gate = new RetirementGate({ ...base, windowSize: 1 }, 'competence-only');
    drive(gate, [
      { step: 1, k: 1, score: 0.8 },
      { step: 2, k: 0.5, score: 0.8 }, // P = 0.5 > 0, C = 1
    ]);
    expect(gate.triggerStep).toBe(2);
  });
});

describe('gate config', () => {
  it('fills in the documented defaults', () => {
    expect(parseGateConfig(base)).toEqual({
      ...base,
      windowSize: 5,
      alignmentThreshold: 0,
      competenceThreshold: 0.9,
      denominatorEpsilon: 1e-8,
    });
  });
  const bad: [string, Record<string, unknown>][] = [
    ['teacherPerformance', { teacherPerformance: 0 }],
    ['teacherPerformance', { teacherPerformance: -0.5 }],
    ['teacherPerformance', { teacherPerformance: Number.NaN }],
    ['lambdaOpd', { lambdaOpd: -1 }],
    ['lambdaOpd', { lambdaOpd: Number.POSITIVE_INFINITY }],
    ['windowSize', { windowSize: 2.5 }],
    ['windowSize', { windowSize: 0 }],
    ['windowSize', { windowSize: '5' }],
    ['alignmentThreshold', { alignmentThreshold: Number.NEGATIVE_INFINITY }],
    ['competenceThreshold', { competenceThreshold: -0.1 }],
    ['denominatorEpsilon', { denominatorEpsilon: Number.NaN }],
    ['windowsize', { windowsize: 5 }],
  ];
  it.each(bad)('rejects a bad %s with an error naming it', (field, patch) => {
    let error: unknown;
    try {
      new RetirementGate({ ...base, ...patch } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GateConfigError);
    expect((error as GateConfigError).field).toBe(field);
    expect((error as Error).message).toContain(field);
  });
  it('accepts a negative δ and γ = 0', () => {
    expect(() => new RetirementGate({ ...base, alignmentThreshold: -0.1, competenceThreshold: 0 })).not.toThrow();
  });
});
