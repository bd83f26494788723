// The run's seed scheme: every random draw of a step comes from hashInts(seed, stage salt, step, purpose), so a step's
// randomness depends only on the config's seed and the step — which is why a resumed run needs no saved generator
// and continues bit-identically (trainerState.ts's RNG_SCHEME names this scheme in every checkpoint).
import type { AgentEnv, Task } from '../../core/env/types';
import { hashInts } from '../../core/rng';
import type { StageName } from './events';

const STAGE_SALT: Record<StageName, number> = { demonstrations: 11, sft: 12, teacher: 13, student: 14, evaluation: 15 };
/** what a seed is for, within a step (distillSource and teacherSample: GKD's λ < 1, ./teacherSampled.ts) */
const PURPOSE = { tasks: 1, sample: 2, validation: 3, test: 4, distillSource: 5, teacherSample: 6 } as const;
type SeedPurpose = keyof typeof PURPOSE;

/** task indices of each stage's training draws start here, so teacher and student see different tasks */
const TASK_OFFSET: Record<StageName, number> = {
  demonstrations: 0,
  sft: 0,
  teacher: 1_000_000,
  student: 2_000_000,
  evaluation: 0,
};

/** The seed of one step's draw for one purpose (SFT minibatch, rollout sampling). */
export function stepSeed(seed: number, stage: StageName, step: number, purpose: SeedPurpose): number {
  return hashInts(seed, STAGE_SALT[stage], step, PURPOSE[purpose]);
}

/**
 * The seed of a draw that is the same at every step: validation rollouts (so S is comparable across steps) and the
 * test split (the same at every temperature of the evaluation).
 */
export function fixedSeed(seed: number, purpose: 'validation' | 'test'): number {
  return hashInts(seed, PURPOSE[purpose]);
}

/** The seed every policy of a run is initialised from (init, teacher and student start from the same draw). */
export function modelInitSeed(seed: number): number {
  return hashInts(seed, 0x1d17) >>> 0;
}

/** Step `step`'s training tasks of a GRPO stage: `count` fresh tasks, each repeated `groupSize` times (a group). */
export function groupedTrainTasks(
  env: AgentEnv,
  stage: StageName,
  step: number,
  count: number,
  groupSize: number,
): Task[] {
  const base = TASK_OFFSET[stage] + (step - 1) * count;
  const tasks = Array.from({ length: count }, (_, j) => env.task('train', base + j));
  return tasks.flatMap((t) => Array.from({ length: groupSize }, () => t));
}
