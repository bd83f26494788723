// The demonstrations stage (docs/METHODS.md §1): scripted trajectories on training tasks, by role — a skill-free
// demonstrator in the student's view (the student's SFT), a skill-reading one in the teacher's view (only the in-run
// teacher's own SFT) — plus held-out trajectories for
// the SFT probes. Deterministic in the run seed; no training steps, so never checkpointed on its own.
import type { AgentEnv, Trajectory } from '../../../core/env/types';
import type { ExperimentConfig } from '../../../core/experiment/config';

export interface Demonstrations {
  /** student-view trajectories of demonstrations.studentPolicy on training tasks 0..demonstrations.tasks−1 */
  train: Trajectory[];
  /**
   * trajectories of demonstrations.teacherPolicy on the same tasks, shown with the skill segment in front to the
   * in-run teacher's own SFT only (teacher.sftSteps; empty when that is 0). The student's SFT never reads them.
   */
  teacherView: Trajectory[];
  /** studentPolicy trajectories on validation tasks 0..sft.heldOutTasks−1 (observation CE of base vs SFT) */
  heldOut: Trajectory[];
}

/** Seeds of the demonstrators' own choices: fixed per run seed, apart from every other stream. */
const DEMO_SALT = 0xde70;

function buildDemonstrations(env: AgentEnv, cfg: ExperimentConfig): Demonstrations {
  const d = cfg.demonstrations;
  const train = Array.from({ length: d.tasks }, (_, i) => env.task('train', i));
  const heldOut = Array.from({ length: cfg.sft.heldOutTasks }, (_, i) => env.task('validation', i));
  return {
    train: env.demonstrate(train, d.studentPolicy, cfg.seed ^ DEMO_SALT),
    teacherView: cfg.teacher.sftSteps > 0 ? env.demonstrate(train, d.teacherPolicy, cfg.seed ^ (DEMO_SALT + 1)) : [],
    heldOut: env.demonstrate(heldOut, d.studentPolicy, cfg.seed ^ (DEMO_SALT + 2)),
  };
}

/** The run's demonstrations, built once (a run resumed past this stage rebuilds them the same way). */
export function demonstrationsOf(ctx: {
  demos: Demonstrations | null;
  readonly env: AgentEnv;
  readonly cfg: ExperimentConfig;
}): Demonstrations {
  ctx.demos ??= buildDemonstrations(ctx.env, ctx.cfg);
  return ctx.demos;
}
