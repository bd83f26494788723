import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../../src/core/errors';
import { GATE_RULES, type GateRule } from '../../src/core/methodVocabulary';
import { RetirementGate } from '../../src/core/retirementGate';

// A deterministic noisy stream (linear congruential generator): K shrinks then stalls, S rises; validation every
// 3 steps with W = 4, so windows and validations interleave unevenly and evaluations lag behind windows.
function makeStream(length: number): { step: number; gap: number; score?: number }[] {
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const out: { step: number; gap: number; score?: number }[] = [];
  for (let step = 1; step <= length; step++) {
    const k = 0.2 + 1.5 * Math.exp(-step / 12) + 0.1 * (rand() - 0.5);
    const score = Math.min(1, 0.2 + step / 50 + 0.05 * (rand() - 0.5));
    out.push({ step, gap: -k, ...(step % 3 === 0 ? { score } : {}) });
  }
  return out;
}

const config = { lambdaOpd: 0.5, teacherPerformance: 0.9, windowSize: 4, competenceThreshold: 0.8 };
const stream = makeStream(60);

/** Apply events [from, to) and return everything observable after each one. */
function run(gate: RetirementGate, from: number, to: number): unknown[] {
  const trace: unknown[] = [];
  for (const e of stream.slice(from, to)) {
    const plan = gate.beginStep(e.step);
    const window = plan.teacherNeeded ? gate.observeGap(e.step, e.gap) : null;
    const evaluation = e.score === undefined ? null : gate.validate(e.step, e.score);
    trace.push({ plan, window, evaluation, metrics: gate.metrics() });
  }
  return trace;
}

describe('RetirementGate checkpoints', () => {
  const rules: readonly GateRule[] = GATE_RULES;

  it.each(rules)('%s: a gate saved at every split point and restored continues identically', (rule) => {
    const uninterrupted = new RetirementGate(config, rule);
    const full = run(uninterrupted, 0, stream.length);
    if (rule !== 'observe-only') expect(uninterrupted.triggerStep).not.toBeNull(); // the stream must exercise retirement
    for (let split = 0; split <= stream.length; split++) {
      const first = new RetirementGate(config, rule);
      const head = run(first, 0, split);
      const saved = JSON.parse(JSON.stringify(first.toJSON())) as unknown; // through text, as a checkpoint file is
      const resumed = RetirementGate.fromJSON(saved, config, rule);
      expect(resumed.metrics()).toEqual(first.metrics());
      const tail = run(resumed, split, stream.length);
      expect([...head, ...tail]).toEqual(full);
      expect(resumed.toJSON()).toEqual(uninterrupted.toJSON());
    }
  });

  it('the adaptive gate on this stream retires at a step a hand check confirms', () => {
    const gate = new RetirementGate(config);
    run(gate, 0, stream.length);
    const trigger = gate.triggerStep;
    expect(trigger).not.toBeNull();
    expect((trigger ?? 0) % 3).toBe(0); // only validation steps can trigger
    expect(gate.metrics()['retire_opd/teacher_forwards_skipped_total']).toBe(stream.length - (trigger ?? 0));
    expect(gate.metrics()['retire_opd/teacher_forward_skipped']).toBe(1);
  });

  it('refuses a checkpoint written under a different config, naming the field and both values', () => {
    const gate = new RetirementGate({ ...config, windowSize: 5 });
    expect(() => RetirementGate.fromJSON(gate.toJSON(), { ...config, windowSize: 3 })).toThrow(
      'checkpoint config does not match: window_size 5 ≠ 3',
    );
    expect(() =>
      RetirementGate.fromJSON(gate.toJSON(), { ...config, windowSize: 5, competenceThreshold: 0.9 }),
    ).toThrow(/competence_threshold 0.8 ≠ 0.9/);
  });

  it('refuses a checkpoint of another rule, version or shape', () => {
    const state = new RetirementGate(config).toJSON();
    expect(() => RetirementGate.fromJSON(state, config, 'alignment-only')).toThrow(/rule does not match/);
    expect(() => RetirementGate.fromJSON({ ...state, version: 2 }, config)).toThrow(/version 2/);
    expect(() => RetirementGate.fromJSON({ ...state, pending_k_values: ['x'] }, config)).toThrow(/pending_k_values/);
    expect(() => RetirementGate.fromJSON({ ...state, extra: 1 }, config)).toThrow(/malformed/);
    expect(() => RetirementGate.fromJSON({ ...state, num_evaluated_windows: 3 }, config)).toThrow(/inconsistent/);
    expect(() => RetirementGate.fromJSON(null, config)).toThrow(/version/);
  });

  it('refuses a forged state the gate cannot reach, as a CheckpointError naming what is impossible', () => {
    const retired = new RetirementGate(config);
    run(retired, 0, stream.length);
    const real = retired.toJSON();
    const w = config.windowSize;
    const second = real.completed_windows[1]!.end_step;
    const active = new RetirementGate(config).toJSON();
    const cases: [unknown, string][] = [
      // retired at step 3 with W = 4: before even one window could end
      [
        { ...real, trigger_step: 3 },
        `trigger step 3 is before the earliest step the gate can retire at (${second}: the end of its second window; W = ${w})`,
      ],
      [{ ...active, retired: true, trigger_step: 3 }, 'retired after 0 evaluated window(s): the criterion needs two'],
      [{ ...real, trigger_step: null }, 'retired without a trigger step'],
      [{ ...active, trigger_step: 12 }, 'a trigger step (12) without being retired'],
      [{ ...real, opd_coef: 0.5 }, 'retired, yet λ_opd is 0.5 (0 after retirement)'],
      [{ ...active, opd_coef: 0 }, "active, yet λ_opd is 0 (the config's 0.5 until retirement)"],
      [
        { ...real, completed_windows: [{ end_step: 2, mean: 1 }, ...real.completed_windows.slice(1)] },
        'window 1 ends at step 2, before it can hold 4 gaps of its own (W = 4)',
      ],
      [{ ...real, rule: 'observe-only' }, 'an observe-only gate never retires, yet this one did'],
    ];
    for (const [state, message] of cases) {
      const rule = (state as { rule: GateRule }).rule;
      let error: unknown;
      try {
        RetirementGate.fromJSON(state, config, rule);
      } catch (e) {
        error = e;
      }
      expect(error, message).toBeInstanceOf(CheckpointError);
      expect((error as Error).message).toBe(`gate checkpoint is inconsistent: ${message}`);
    }
  });

  it('holds exactly the fields of the spec plus the rule, skip counter and latest metrics', () => {
    const state = new RetirementGate(config).toJSON();
    expect(Object.keys(state).sort()).toEqual(
      [
        'version',
        'rule',
        'config',
        'opd_coef',
        'pending_k_values',
        'completed_windows',
        'num_evaluated_windows',
        'previous_window_mean',
        'previous_performance',
        'retired',
        'trigger_step',
        'teacher_forward_skipped',
        'last',
      ].sort(),
    );
  });

  it("stores its config under the public code's snake_case keys, in the public code's order", () => {
    const text = JSON.stringify(new RetirementGate(config).toJSON().config);
    // the defaults W, δ and ε filled in; the text is what a checkpoint file holds, byte for byte
    expect(text).toBe(
      '{"opd_coef":0.5,"teacher_performance":0.9,"window_size":4,"alignment_threshold":0,' +
        '"competence_threshold":0.8,"denominator_epsilon":1e-8}',
    );
  });
});
