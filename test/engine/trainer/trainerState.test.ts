// A checkpoint's state.json edited by hand (and its manifest recomputed) must be refused as a CheckpointError that
// names what is impossible, never resumed and never an internal error.
import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../../../src/core/errors';
import { resolveConfig } from '../../../src/core/experiment/config';
import { gateConfigFor } from '../../../src/core/experiment/gateSettings';
import { LambdaSchedule } from '../../../src/core/lambdaSchedule';
import {
  freshCounters,
  parseTrainerState,
  RNG_SCHEME,
  TRAINER_STATE_VERSION,
} from '../../../src/engine/trainer/trainerState';

const config = resolveConfig({ student: { steps: 20, validationEvery: 2, gate: { windowSize: 2 } } });
const S_T = 0.76;

/** The state the trainer writes at student step 12: the gate (W = 2) saw K shrink, then stall at a competent S. */
function studentState(): Record<string, unknown> {
  const schedule = new LambdaSchedule('adaptive', gateConfigFor(config, S_T));
  const gaps = [-1, -0.5, -0.4, -0.3, -0.3, -0.3, -0.3, -0.3, -0.3, -0.3, -0.3, -0.3];
  gaps.forEach((gap, i) => {
    const step = i + 1;
    if (schedule.beginStep(step).teacherNeeded) schedule.observeGap(step, gap);
    if (step % 2 === 0) schedule.validate(step, 0.74);
  });
  return JSON.parse(
    JSON.stringify({
      version: TRAINER_STATE_VERSION,
      config,
      stage: 'student',
      step: 12,
      rng: { scheme: RNG_SCHEME, seed: config.seed },
      sft: null,
      teacherPerformance: S_T,
      schedule: schedule.toJSON(),
      counters: freshCounters(),
      wallSeconds: 1,
    }),
  ) as Record<string, unknown>;
}

function refusal(raw: unknown): string {
  try {
    parseTrainerState(raw, config);
  } catch (e) {
    expect(e).toBeInstanceOf(CheckpointError);
    return (e as Error).message;
  }
  return 'accepted';
}

/** The fields the tests edit, as a hand edit of state.json would. */
interface Editable {
  teacherPerformance: number;
  step: number;
  stage: string;
  schedule: { schedule: string; last_step: number; gate: { trigger_step: number; config: { window_size: number } } };
}
const edit = (f: (s: Editable) => void) => {
  const s = studentState();
  f(s as unknown as Editable);
  return s;
};

describe('parseTrainerState: the state against its config and itself', () => {
  it('accepts the state the trainer writes, retired at a step the gate can reach', () => {
    const state = parseTrainerState(studentState(), config);
    expect(state.schedule?.gate.retired).toBe(true);
    expect(state.schedule?.gate.trigger_step).toBeGreaterThanOrEqual(4);
  });

  it('refuses S_T edited to 1e9', () => {
    expect(refusal(edit((s) => (s.teacherPerformance = 1e9)))).toBe(
      'checkpoint state.json: teacherPerformance 1000000000 is not a success rate in [0, 1]',
    );
  });

  it('refuses a schedule name that contradicts the config', () => {
    expect(refusal(edit((s) => (s.schedule.schedule = 'never')))).toBe(
      'checkpoint state.json: schedule: checkpoint schedule does not match: never ≠ adaptive',
    );
  });

  it('refuses a fractional last_step', () => {
    expect(refusal(edit((s) => (s.schedule.last_step = 11.5)))).toBe(
      'checkpoint state.json: schedule: schedule checkpoint: last_step must be an integer ≥ 0 or null, got 11.5',
    );
  });

  it('refuses a gate window size that contradicts the config', () => {
    expect(refusal(edit((s) => (s.schedule.gate.config.window_size = 5)))).toBe(
      'checkpoint state.json: schedule: checkpoint config does not match: window_size 5 ≠ 2',
    );
  });

  it('refuses a forged retirement at step 3 with W = 2 windows evaluated from step 2 on', () => {
    expect(refusal(edit((s) => (s.schedule.gate.trigger_step = 3)))).toBe(
      'checkpoint state.json: schedule: gate checkpoint is inconsistent: trigger step 3 is before the earliest ' +
        'step the gate can retire at (4: the end of its second window; W = 2)',
    );
  });

  it('refuses a schedule that has begun a step after the checkpoint, or exists before the student stage', () => {
    expect(refusal(edit((s) => (s.step = 10)))).toBe(
      'checkpoint state.json: the schedule has begun step 12, after the checkpoint (student step 10)',
    );
    expect(refusal(edit((s) => (s.stage = 'teacher')))).toBe(
      'checkpoint state.json: a schedule at teacher step 12, before the student stage that creates it',
    );
  });

  it('refuses a fractional step (the schema: an integer)', () => {
    expect(refusal(edit((s) => (s.step = 12.5)))).toMatch(/^checkpoint state\.json: step: /);
  });
});

describe('parseTrainerState: a prefix fork', () => {
  /** the stage-end checkpoint before the student stage, as a leader of a sweep writes it */
  const forkPoint = (): Record<string, unknown> => ({ ...studentState(), step: 0, schedule: null });
  const refused = (raw: unknown, expected: typeof config): string => {
    try {
      parseTrainerState(raw, expected, true);
    } catch (e) {
      expect(e).toBeInstanceOf(CheckpointError);
      return (e as Error).message;
    }
    return 'accepted';
  };

  it('continues under the forking config when only student-stage keys differ', () => {
    const member = resolveConfig({ student: { schedule: 'never', lambdaOpd: 1 } }, config);
    const state = parseTrainerState(forkPoint(), member, true);
    expect(state.config).toEqual(member);
    expect(state.stage).toBe('student');
    expect(state.teacherPerformance).toBe(S_T);
    // without the fork, the same checkpoint is refused for that config
    expect(() => parseTrainerState(forkPoint(), member)).toThrow(
      /checkpoint config does not match this run: student.schedule: "?adaptive"? ≠ "?never"?/,
    );
  });

  it('is refused for another prefix, naming the key', () => {
    const member = resolveConfig({ sft: { steps: 61 } }, config);
    expect(refused(forkPoint(), member)).toBe('checkpoint config has another prefix than this run: sft.steps: 60 ≠ 61');
  });

  it('is refused anywhere but at the fork point', () => {
    const member = resolveConfig({ student: { schedule: 'never' } }, config);
    expect(refused(studentState(), member)).toBe(
      'checkpoint state.json: a prefix fork starts at student step 0, not at student step 12',
    );
  });
});
