import { describe, expect, it } from 'vitest';
import { LambdaSchedule } from '../../../src/core/lambdaSchedule';
import type { TrainerEvent } from '../../../src/engine/trainer/events';
import { StudentGate } from '../../../src/engine/trainer/studentGate';

// W = 1, S_T = 0.8: with a constant gap −0.5 (K = 0.5) and S = 0.8 at every step, P = 0 and C = 1 at step 2
const config = { lambdaOpd: 0.5, teacherPerformance: 0.8, windowSize: 1 };

function steps(gate: StudentGate, n: number): { step: number; retired: boolean; line: Record<string, number> }[] {
  const out = [];
  for (let step = 1; step <= n; step++) {
    const plan = gate.beginStep(step);
    if (plan.teacherNeeded) gate.observeGap(step, -0.5);
    gate.validate(step, 0.8);
    const retired = gate.retiredAt(step, 0.8);
    out.push({ step, retired, line: gate.line({ step, 'a/shared': 1 }, { 'time/step_ms': 7 }) });
  }
  return out;
}

describe('StudentGate', () => {
  it('emits a window per gap, an evaluation per decision and one retirement, at the step the gate retires', () => {
    const events: TrainerEvent[] = [];
    const gate = new StudentGate(new LambdaSchedule('adaptive', config), (e) => events.push(e));
    const out = steps(gate, 4);
    expect(out.map((o) => o.retired)).toEqual([false, true, false, false]);
    // steps 1 and 2 run the teacher (a window each); steps 3–4 are after retirement: no gap, no decision
    expect(events.map((e) => `${e.type}@${'step' in e ? e.step : ''}`)).toEqual([
      'window@1',
      'evaluation@1',
      'window@2',
      'evaluation@2',
      'retirement@2',
    ]);
    expect(events.at(-1)).toEqual({
      type: 'retirement',
      step: 2,
      triggerStep: 2,
      schedule: 'adaptive',
      teacherPerformance: 0.8,
    });
  });

  it('writes the step line as the shared metrics, then the schedule’s, then the timings', () => {
    const gate = new StudentGate(new LambdaSchedule('never', config), () => undefined);
    const [first] = steps(gate, 1);
    const keys = Object.keys(first!.line);
    expect(keys.slice(0, 2)).toEqual(['step', 'a/shared']);
    expect(keys.at(-1)).toBe('time/step_ms');
    expect(keys.slice(2, -1).every((k) => k.startsWith('retire_opd/'))).toBe(true);
    expect(keys.length).toBeGreaterThan(3);
  });

  it('reports no retirement for a schedule that never retires, and a NaN S_T when it is unknown', () => {
    const events: TrainerEvent[] = [];
    const never = new StudentGate(new LambdaSchedule('never', config), (e) => events.push(e));
    expect(steps(never, 4).some((o) => o.retired)).toBe(false);
    const fixed = new StudentGate(new LambdaSchedule('fixed:1', config), (e) => events.push(e));
    fixed.beginStep(1);
    expect(fixed.retiredAt(1, null)).toBe(true);
    expect(events.filter((e) => e.type === 'retirement')).toEqual([
      { type: 'retirement', step: 1, triggerStep: 1, schedule: 'fixed:1', teacherPerformance: NaN },
    ]);
  });
});
