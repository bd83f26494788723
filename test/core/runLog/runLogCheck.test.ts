// What makes a run's step log unreplayable (src/core/runLog/runLogCheck.ts), on hand-written logs: duplicated, out-of-order and
// missing steps with their line numbers, the lines a crash may leave after a checkpoint, and gate statistics that
// disagree with a checkpoint's gate state. Through the CLI (FILE:LINE messages, exit 2): experimentFuzz.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { gateLogProblem, stepLinesProblem, type GateLogState } from '../../../src/core/runLog/runLogCheck';

const log = (...steps: (number | string)[]): string[] => [
  ...steps.map((s) => (typeof s === 'number' ? JSON.stringify({ step: s }) : s)),
  '',
];

describe('step lines', () => {
  it('accept steps 1 … s in order, and after them the later steps and torn last line a crash leaves', () => {
    expect(stepLinesProblem(log(1, 2, 3), 3, false)).toBeNull();
    expect(stepLinesProblem(log(1, 2, 3, 4, 5, '{"st'), 3, false)).toBeNull();
    expect(stepLinesProblem(log(), 0, false)).toBeNull();
  });

  it('name the line of a duplicated step, an out-of-order step and a missing one', () => {
    expect(stepLinesProblem(log(1, 2, 2, 3), 3, false)).toMatchObject({
      line: 3,
      what: 'step 2 again after step 2 (expected step 3: duplicated or out of order)',
    });
    expect(stepLinesProblem(log(1, 3, 2), 3, false)).toMatchObject({
      line: 2,
      what: 'step 3 where step 2 was expected (step 2 is missing or out of order)',
    });
    expect(stepLinesProblem(log(1, 2), 3, false)).toEqual({ line: null, what: 'step 3 is missing', next: 3 });
  });

  it('refuse a duplicate after the checkpoint too (it would survive the trim), and a torn line before the end', () => {
    expect(stepLinesProblem(log(1, 2, 3, 4, 4), 2, false)).toMatchObject({ line: 5 });
    expect(stepLinesProblem(log(1, 2, 3, 2), 2, false)).toMatchObject({ line: 4 });
    expect(stepLinesProblem(log(1, '{"st', 2), 2, false)).toMatchObject({
      line: 2,
      what: 'not a JSON line (expected the line of step 2)',
    });
  });

  it('a finished run (exact) holds nothing after its last step', () => {
    expect(stepLinesProblem(log(1, 2), 2, true)).toBeNull();
    expect(stepLinesProblem(log(1, 2, 3), 2, true)).toMatchObject({
      line: 3,
      what: 'step 3 after the last step 2 (expected nothing more)',
    });
  });
});

// W = 2; gaps g = −K: K = 0.1, 0.3 (window 1, K̄ 0.2, ends at step 2), then 0.5 pending at step 3
const K = [0.1, 0.3, 0.5];
const line = (step: number, over: Record<string, number | null> = {}): string =>
  JSON.stringify({
    step,
    'opd/teacher_student_gap_mean': -K[step - 1]!,
    'retire_opd/k_step': K[step - 1]!,
    'retire_opd/k_window_mean': step >= 2 ? 0.2 : null,
    'retire_opd/window_index': step >= 2 ? 1 : 0,
    'retire_opd/window_fill': step === 2 ? 0 : 1,
    'retire_opd/num_evaluated_windows': step >= 2 ? 1 : 0,
    'retire_opd/retired': 0,
    ...over,
  });
const gate: GateLogState = {
  pending_k_values: [0.5],
  completed_windows: [{ end_step: 2, mean: 0.2 }],
  num_evaluated_windows: 1,
  retired: false,
  last: { k_step: 0.5 },
};

describe('gate statistics against the checkpoint', () => {
  it('agree when the log is the one the gate saw', () => {
    expect(gateLogProblem([line(1), line(2), line(3), ''], gate, 3)).toBeNull();
  });

  it('name the line whose window K̄ differs', () => {
    const p = gateLogProblem([line(1), line(2, { 'retire_opd/k_window_mean': 0.25 }), line(3)], gate, 3);
    expect(p).toEqual({
      line: 2,
      what: 'retire_opd/k_window_mean (K̄ of window 1) is 0.25',
      expected: 'K̄ 0.2',
    });
  });

  it('name the line whose gap does not give the window K̄ the gate computed (mean of K = −g)', () => {
    const p = gateLogProblem([line(1, { 'opd/teacher_student_gap_mean': -0.2 }), line(2), line(3)], gate, 3);
    expect(p?.line).toBe(2);
    // (0.2 + 0.3)/2 = 0.25 where the gate has 0.2
    expect(p?.what).toBe('the opd/teacher_student_gap_mean of steps 1–2 give K̄ 0.25 for window 1');
  });

  it('name a pending gap that differs, and a window count or fill that differs at the checkpoint step', () => {
    expect(gateLogProblem([line(1), line(2), line(3, { 'opd/teacher_student_gap_mean': -0.4 })], gate, 3)).toEqual({
      line: 3,
      what: 'opd/teacher_student_gap_mean is -0.4 at step 3 (K = 0.4)',
      expected: 'pending K value 1 = 0.5',
    });
    expect(gateLogProblem([line(1), line(2), line(3, { 'retire_opd/window_fill': 2 })], gate, 3)).toEqual({
      line: 3,
      what: 'retire_opd/window_fill is 2 at step 3',
      expected: 'retire_opd/window_fill 1',
    });
  });

  it('compare nothing in a log without the gate columns (a schedule without a gate)', () => {
    expect(gateLogProblem(log(1, 2, 3), gate, 3)).toBeNull();
  });
});
