// GKD's student-sampled fraction λ (`student.distill.studentFraction`, TRL's `lmbda`; docs/METHODS.md §3,
// distillation forms): on a student step where the teacher runs, the distillation batch is the student's own
// rollout with probability λ, else sequences the privileged teacher samples in its own context (its skill segment in
// front) on the same tasks, which the student then scores without the skill. Only gkd-jsd reads λ (the config
// refuses λ ≠ 1 with any other form).
//
// Randomness: the choice is one uniform u = hash(seed, student, k, distillSource) / 2^32 of the run's seed scheme
// (seeds.ts), drawn only when 0 < λ < 1 — λ = 1 draws nothing and rolls out nothing more, so every run made before
// λ existed is the same bit for bit. The teacher's samples are the engine's rollout in the teacher's view (the
// teacher stage's own path, rollout.ts's `withSkill`), seeded by hash(seed, student, k, teacherSample), so a
// resumed run draws the same choice and the same sequences at every step.
import type { Task } from '../../core/env/types';
import type { PolicyModel } from '../model';
import type { EnginePort, RolloutOutput } from './enginePort';
import { stepSeed } from './seeds';

const TWO_POW_32 = 4294967296;

/** Step `step`'s uniform in [0, 1) for the choice of the distillation batch's source. */
export function distillSourceUniform(seed: number, step: number): number {
  return stepSeed(seed, 'student', step, 'distillSource') / TWO_POW_32;
}

/**
 * Whether this step distils on teacher-sampled sequences: false with probability λ. `draw` is called at most once,
 * and never when λ = 1 (nor when λ = 0, which is always the teacher).
 */
export function teacherSamplesStep(studentFraction: number, draw: () => number): boolean {
  if (!(studentFraction >= 0 && studentFraction <= 1)) {
    throw new Error(`student.distill.studentFraction must be in [0, 1], got ${studentFraction}`);
  }
  if (studentFraction === 1) return false;
  if (studentFraction === 0) return true;
  return draw() >= studentFraction;
}

/**
 * The teacher's own samples on `tasks` (one episode per entry, the student rollout's order), at the student's
 * sampling temperature, returned in the student's view: `packed` holds the streams without the skill segment (the
 * engine port strips it), `oldLogProbs` the teacher's log-probs of its tokens (not the student's).
 */
export function teacherSampledRollout(
  engine: EnginePort,
  teacher: PolicyModel,
  tasks: readonly Task[],
  temperature: number,
  seed: number,
  step: number,
): Promise<RolloutOutput> {
  return engine.rollout({
    policy: teacher,
    tasks,
    withSkill: true,
    temperature,
    seed: stepSeed(seed, 'student', step, 'teacherSample'),
  });
}
