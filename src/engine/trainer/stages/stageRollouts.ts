// The rollouts of the GRPO stages: a training step's grouped rollout (teacher stage in the skill view, student stage
// without), and the validation score S that feeds the retirement gate (docs/METHODS.md §4) — also S_T for the teacher
// in its skill view: one sample per validation task at student.validationTemperature (the public scripts' 0.4), with
// the same sampling seed every time, scored with student.validationMetric — the same split, temperature and metric for
// the student's S and the teacher's S_T.
import type { Task } from '../../../core/env/types';
import type { GrpoConfig } from '../../../core/experiment/config';
import type { PolicyModel } from '../../model';
import type { RolloutOutput } from '../enginePort';
import { fixedSeed, groupedTrainTasks, stepSeed } from '../seeds';
import type { StageContext } from './stageContext';

/** Step k's training rollout of a GRPO stage: g.tasksPerStep fresh tasks, g.groupSize samples each, at g.temperature. */
export async function trainingRollout(
  ctx: StageContext,
  stage: 'teacher' | 'student',
  k: number,
  policy: PolicyModel,
  g: GrpoConfig,
): Promise<{ tasks: Task[]; rollout: RolloutOutput }> {
  const tasks = groupedTrainTasks(ctx.env, stage, k, g.tasksPerStep, g.groupSize);
  const rollout = await ctx.engine.rollout({
    policy,
    tasks,
    withSkill: stage === 'teacher',
    temperature: g.temperature,
    seed: stepSeed(ctx.cfg.seed, stage, k, 'sample'),
  });
  return { tasks, rollout };
}

export async function validationScore(ctx: StageContext, policy: PolicyModel, withSkill: boolean): Promise<number> {
  const { cfg, env } = ctx;
  const n = cfg.student.validationTasks;
  const tasks = Array.from({ length: n }, (_, i) => env.task('validation', i));
  const r = await ctx.engine.rollout({
    policy,
    tasks,
    withSkill,
    temperature: cfg.student.validationTemperature,
    seed: fixedSeed(cfg.seed, 'validation'),
    // a validation over many tasks is the longest wait inside a step: a pause may hold it between decode steps
    betweenDecodeSteps: ctx.withinStep,
  });
  let s = 0;
  for (let i = 0; i < n; i++)
    s += cfg.student.validationMetric === 'success_rate' ? (r.success[i] as number) : (r.reward[i] as number);
  return s / n;
}
