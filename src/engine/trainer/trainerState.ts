// The trainer's JSON state inside a checkpoint (state.json), versioned and validated on load.
// Randomness needs no saved generator: every step draws from deriveRng(seed, stage, step, purpose), so a step's
// randomness depends only on the config's seed and the step — the RNG "state" is the (stage, step) pair.
import { z } from 'zod';
import { configDiff, validateConfig, type ExperimentConfig } from '../../core/experiment/config';
import type { ScheduleState } from '../../core/lambdaSchedule';
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

/** Validate a state.json; `expected` (the resuming run's config) must equal the saved one, field by field. */
export function parseTrainerState(raw: unknown, expected?: ExperimentConfig): TrainerState {
  const r = schema.safeParse(raw);
  if (!r.success) {
    throw new Error(
      `checkpoint state.json: ${r.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  }
  const config = validateConfig(r.data.config, 'checkpoint config');
  if (expected) {
    const diff = configDiff(config, expected);
    if (diff.length) throw new Error(`checkpoint config does not match this run: ${diff.join('; ')}`);
  }
  return { ...r.data, config, schedule: (r.data.schedule ?? null) as ScheduleState | null } as TrainerState;
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
