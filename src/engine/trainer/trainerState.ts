// The trainer's JSON state inside a checkpoint (state.json), versioned and validated on load.
// Randomness needs no saved generator: every step draws from deriveRng(seed, stage, step, purpose), so a step's
// randomness depends only on the config's seed and the step — the RNG "state" is the (stage, step) pair.
import { z } from 'zod';
import { CheckpointError, UserError } from '../../core/errors';
import { configDiff, validateConfig, type ExperimentConfig } from '../../core/experiment/config';
import { forkPointOf, prefixDiff } from '../../core/experiment/configPrefix';
import { gateConfigFor } from '../../core/experiment/gateSettings';
import { LambdaSchedule, type ScheduleState } from '../../core/lambdaSchedule';
import { updatesPerStep } from '../../core/miniBatches';
import type { HostTensor } from '../hostTensor';
import type { CheckpointContent } from './checkpoint';
import { STAGE_NAMES, type StageName } from './events';

export const TRAINER_STATE_VERSION = 1;
export const RNG_SCHEME = 'deriveRng(seed, stage, step, purpose)';

export interface SftResult {
  observationCeBase: number;
  actionCeBase: number;
  observationCe: number;
  actionCe: number;
  gradientCosineLast: number | null;
}

export interface TrainerCounters {
  sampledTokens: number;
  envSteps: number;
  teacherForwardRun: number;
  tokensAtRetirement: number | null;
  envStepsAtRetirement: number | null;
  validationBest: number | null;
  validationLast: number | null;
  /** summed wall ms and counts of student steps before / after retirement (not part of determinism) */
  msBefore: number;
  stepsBefore: number;
  msAfter: number;
  stepsAfter: number;
}

export interface TrainerState {
  version: typeof TRAINER_STATE_VERSION;
  config: ExperimentConfig;
  /** the stage in progress (or next to start) and how many of its steps are complete */
  stage: StageName;
  step: number;
  rng: { scheme: typeof RNG_SCHEME; seed: number };
  sft: SftResult | null;
  teacherPerformance: number | null;
  /** LambdaSchedule.toJSON() once the student stage has begun */
  schedule: ScheduleState | null;
  counters: TrainerCounters;
  /** wall seconds spent before this checkpoint (resumed runs add to it) */
  wallSeconds: number;
}

const num = z.number().nullable();
const schema = z.strictObject({
  version: z.literal(TRAINER_STATE_VERSION),
  config: z.unknown(),
  stage: z.enum(STAGE_NAMES),
  step: z.number().int().min(0),
  rng: z.strictObject({ scheme: z.literal(RNG_SCHEME), seed: z.number().int() }),
  sft: z
    .strictObject({
      observationCeBase: z.number(),
      actionCeBase: z.number(),
      observationCe: z.number(),
      actionCe: z.number(),
      gradientCosineLast: num,
    })
    .nullable(),
  teacherPerformance: num,
  schedule: z.unknown(),
  counters: z.strictObject({
    sampledTokens: z.number(),
    envSteps: z.number(),
    teacherForwardRun: z.number(),
    tokensAtRetirement: num,
    envStepsAtRetirement: num,
    validationBest: num,
    validationLast: num,
    msBefore: z.number(),
    stepsBefore: z.number(),
    msAfter: z.number(),
    stepsAfter: z.number(),
  }),
  wallSeconds: z.number(),
});

/**
 * Validate a state.json; `expected` (the resuming run's config) must equal the saved one, field by field. The one
 * exception, `fork: true`, is a sweep's prefix fork (core/experiment/configPrefix.ts): a checkpoint taken at the
 * fork point (the stage-end checkpoint before the student stage) of another run whose config has the same prefix
 * key; the state then continues under `expected`, the forking run's own config.
 */
export function parseTrainerState(raw: unknown, expected?: ExperimentConfig, fork = false): TrainerState {
  const r = schema.safeParse(raw);
  if (!r.success) {
    const shown = r.error.issues.slice(0, 3);
    throw new CheckpointError(
      `checkpoint state.json: ${shown.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ')}${r.error.issues.length > 3 ? ` (and ${r.error.issues.length - 3} more)` : ''}`,
    );
  }
  let config: ExperimentConfig;
  try {
    config = validateConfig(r.data.config, 'config');
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    throw new CheckpointError(`checkpoint state.json: ${e.message}`);
  }
  if (expected && fork) {
    const at = forkPointOf(expected);
    if (r.data.stage !== at.stage || r.data.step !== at.step)
      throw new CheckpointError(
        `checkpoint state.json: a prefix fork starts at ${at.stage} step ${at.step}, not at ${r.data.stage} step ${r.data.step}`,
      );
    const diff = prefixDiff(config, expected);
    if (diff.length)
      throw new CheckpointError(`checkpoint config has another prefix than this run: ${diff.slice(0, 5).join('; ')}`);
    config = expected;
  } else if (expected) {
    const diff = configDiff(config, expected);
    if (diff.length)
      throw new CheckpointError(`checkpoint config does not match this run: ${diff.slice(0, 5).join('; ')}`);
  }
  const state = { ...r.data, config, schedule: (r.data.schedule ?? null) as ScheduleState | null } as TrainerState;
  checkStateInvariants(state);
  return state;
}

/**
 * The state against its own config and itself (a state.json edited by hand, its manifest recomputed, must not
 * resume into an impossible run): S_T a success rate in [0, 1]; a schedule only from the student stage on, restored
 * exactly as the trainer will (its name, gate window, thresholds and S_T must be the config's; the gate's own
 * invariants, gateStateSchema.ts); the schedule's last step an integer no later than the checkpoint's step.
 */
function checkStateInvariants(state: TrainerState): void {
  const fail = (what: string): never => {
    throw new CheckpointError(`checkpoint state.json: ${what}`);
  };
  const sT = state.teacherPerformance;
  if (sT !== null && !(Number.isFinite(sT) && sT >= 0 && sT <= 1))
    fail(`teacherPerformance ${sT} is not a success rate in [0, 1]`);
  if (state.schedule === null) return;
  const at = STAGE_NAMES.indexOf(state.stage);
  if (at < STAGE_NAMES.indexOf('student'))
    fail(`a schedule at ${state.stage} step ${state.step}, before the student stage that creates it`);
  let schedule: LambdaSchedule;
  try {
    schedule = LambdaSchedule.fromJSON(
      state.schedule,
      state.config.student.schedule,
      gateConfigFor(state.config, state.teacherPerformance),
    );
  } catch (e) {
    if (e instanceof UserError) return fail(`schedule: ${e.message}`);
    throw e;
  }
  const last = schedule.toJSON().last_step ?? 0;
  const bound = state.stage === 'student' ? state.step : state.config.student.steps;
  if (last > bound)
    fail(`the schedule has begun step ${last}, after the checkpoint (${state.stage} step ${state.step})`);
}

export function freshCounters(): TrainerCounters {
  return {
    sampledTokens: 0,
    envSteps: 0,
    teacherForwardRun: 0,
    tokensAtRetirement: null,
    envStepsAtRetirement: null,
    validationBest: null,
    validationLast: null,
    msBefore: 0,
    stepsBefore: 0,
    msAfter: 0,
    stepsAfter: 0,
  };
}

/** The policies a checkpoint taken at (stage, step) holds: π_init always, the teacher once trained, the student. */
function expectedModels(state: Pick<TrainerState, 'stage' | 'step' | 'config'>): string[] {
  const at = STAGE_NAMES.indexOf(state.stage);
  const after = (stage: StageName): boolean => {
    const i = STAGE_NAMES.indexOf(stage);
    return at > i || (at === i && state.step > 0);
  };
  const out = ['init'];
  // schedule none never runs the teacher stage; a shipped teacher exists from the student stage on
  if (state.config.student.schedule !== 'none' && (after('teacher') || at >= STAGE_NAMES.indexOf('student')))
    out.push('teacher');
  if (after('student')) out.push('student');
  return out;
}

/** The stages whose checkpoints (at step > 0) carry the optimizer of the policy they train. */
const TRAINED_BY: Partial<Record<StageName, string>> = { sft: 'init', teacher: 'teacher', student: 'student' };
const POWER_KEYS = ['beta1_power', 'beta2_power', 'adam-bias-correction/accBeta1', 'adam-bias-correction/accBeta2'];

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/**
 * Refuse a decoded checkpoint that cannot resume exactly: every policy expected at its (stage, step) present with
 * every parameter of `specs` (name, shape, float32) and nothing else; mid-stage, the Adam state of the policy
 * being trained complete (step count, bias-correction products, a first and second moment per parameter in order).
 * A missing piece is never re-initialised silently. `where` names the checkpoint in messages.
 */
export function checkCheckpointContent(
  content: CheckpointContent<TrainerState>,
  specs: readonly { key: string; shape: readonly number[] }[],
  where: string,
): void {
  const { state } = content;
  const at = `${state.stage} step ${state.step}`;
  const fail = (what: string): never => {
    throw new CheckpointError(
      `${where}: ${what} — the checkpoint is damaged; resume from an earlier checkpoint or start the run again`,
    );
  };
  const want = expectedModels(state);
  for (const name of Object.keys(content.models))
    if (!want.includes(name)) fail(`unexpected model "${name}" (a checkpoint at ${at} holds ${want.join(', ')})`);
  for (const name of want) {
    const weights = content.models[name];
    if (!weights) return fail(`model "${name}" is missing (a checkpoint at ${at} holds ${want.join(', ')})`);
    const expected = new Map(specs.map((p) => [p.key, p.shape]));
    for (const [key, h] of Object.entries(weights)) {
      const shape = expected.get(key);
      if (!shape) fail(`weight ${name}/${key} is not a parameter of this model`);
      else if (!sameShape(h.shape, shape) || h.dtype !== 'float32')
        fail(`weight ${name}/${key} is ${h.dtype} [${h.shape.join(', ')}], expected float32 [${shape.join(', ')}]`);
    }
    for (const key of expected.keys()) if (!weights[key]) fail(`weight ${name}/${key} is missing`);
  }
  const trained = TRAINED_BY[state.stage];
  if (!trained || state.step === 0) return;
  const opt = Object.entries(content.optimizer);
  const scalar = (name: string, dtype: HostTensor['dtype']): void => {
    const h = content.optimizer[name];
    if (!h || h.dtype !== dtype || h.data.length !== 1)
      fail(`optimizer entry ${name} (${dtype} scalar) is missing; Adam cannot continue where it stopped`);
  };
  scalar('iter', 'int32');
  // every completed SFT step applies the optimizer once (checkedUpdate.ts); a GRPO step once per PPO mini-batch and
  // epoch (policyUpdate.ts, core/miniBatches.ts)
  const iter = content.optimizer['iter']!.data[0];
  const stage = state.stage;
  const perStep = stage === 'teacher' || stage === 'student' ? updatesPerStep(state.config[stage].grpo) : 1;
  if (iter !== state.step * perStep)
    fail(
      `the optimizer has taken ${iter} steps but the checkpoint is at ${at}, ${perStep} update(s) per step (its weights come from another step)`,
    );
  const legacy = content.optimizer['beta1_power'] === undefined;
  scalar(legacy ? POWER_KEYS[2]! : POWER_KEYS[0]!, 'float32');
  scalar(legacy ? POWER_KEYS[3]! : POWER_KEYS[1]!, 'float32');
  const moments = opt.filter(([n]) => n !== 'iter' && !POWER_KEYS.includes(n));
  if (moments.length !== 2 * specs.length)
    fail(
      `the optimizer holds ${moments.length} moment tensors, expected ${2 * specs.length} (a first and a second moment per parameter of ${trained})`,
    );
  specs.forEach((p, i) => {
    for (const [j, suffix] of [
      [i, 'm'],
      [specs.length + i, 'v'],
    ] as const) {
      const [name, h] = moments[j]!;
      if (!name.endsWith(`/${p.key}/${suffix}`) || !sameShape(h.shape, p.shape) || h.dtype !== 'float32')
        fail(`optimizer entry ${j + 3} is ${name} [${h.shape.join(', ')}], expected the ${suffix} of ${p.key}`);
    }
  });
}
