// How much a skill-conditioned teacher depends on its skill (issue 8): the same frozen teacher on the same
// validation tasks, sampled once per task at temperature 1 with one seed, (a) with its retrieved skill and (b) with
// a blank skill segment (`<skill>` then <pad> fill, the segment's length unchanged). A teacher worth distilling
// scores far higher with its skill; one that ignores it scores the same.
import { Special, type AgentEnv, type Task } from '../../core/env/types';
import type { PolicyModel } from '../model';
import { createEnginePort } from './engineAdapter';

export interface SkillDependence {
  tasks: number;
  /** success rate with the retrieved skill */
  withSkill: number;
  /** success rate with a blank skill segment */
  blankSkill: number;
  /** how many of the tasks retrieved a misleading skill entry */
  misleadingTasks: number;
  /** success rate with the skill, on the tasks whose entry tells the truth / is misleading (NaN when none) */
  withSkillTruthful: number;
  withSkillMisleading: number;
}

/** the task with its skill segment blanked (same length, so positions are unchanged) */
function blankSkillTask(task: Task): Task {
  return { ...task, skillTokens: task.skillTokens.map((_, i) => (i === 0 ? Special.skill : Special.pad)) };
}

export async function measureSkillDependence(
  teacher: PolicyModel,
  env: AgentEnv,
  tasks: number,
  seed: number,
): Promise<SkillDependence> {
  const list = Array.from({ length: tasks }, (_, i) => env.task('validation', i));
  const engine = createEnginePort(env);
  const successes = async (ts: readonly Task[]): Promise<ArrayLike<number>> =>
    (await engine.rollout({ policy: teacher, tasks: ts, withSkill: true, temperature: 1, seed })).success;
  const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  const withSkill = Array.from(await successes(list));
  const blank = Array.from(await successes(list.map(blankSkillTask)));
  const misleading = list.map((t) => t.skillMisleading);
  return {
    tasks,
    withSkill: mean(withSkill),
    blankSkill: mean(blank),
    misleadingTasks: misleading.filter(Boolean).length,
    withSkillTruthful: mean(withSkill.filter((_, i) => !misleading[i])),
    withSkillMisleading: mean(withSkill.filter((_, i) => misleading[i])),
  };
}

export interface EntrySplit {
  /** tasks whose retrieved skill entry tells the truth / is misleading */
  truthfulTasks: number;
  misleadingTasks: number;
  /** success rate over `samples` episodes per task (T = 1), on each group; NaN for an empty group */
  truthful: number;
  misleading: number;
}

/**
 * A policy's success on the first `tasks` tasks of a split, grouped by whether the task's skill entry is misleading
 * — the facts a skill-following teacher gets wrong. A student pinned to such a teacher fails the misleading group as
 * the teacher does; one that has left it can solve them. `withSkill` shows the skill segment (for a teacher).
 */
export async function measureEntrySplit(
  policy: PolicyModel,
  env: AgentEnv,
  opts: { split: 'validation' | 'test'; tasks: number; samples: number; withSkill: boolean; seed: number },
): Promise<EntrySplit> {
  const list = Array.from({ length: opts.tasks }, (_, i) => env.task(opts.split, i));
  const batch = list.flatMap((t) => Array.from({ length: opts.samples }, () => t));
  const r = await createEnginePort(env).rollout({
    policy,
    tasks: batch,
    withSkill: opts.withSkill,
    temperature: 1,
    seed: opts.seed,
  });
  const sum = { truthful: 0, misleading: 0 };
  const count = { truthful: 0, misleading: 0 };
  batch.forEach((t, i) => {
    const group = t.skillMisleading ? 'misleading' : 'truthful';
    sum[group] += r.success[i] as number;
    count[group] += 1;
  });
  return {
    truthfulTasks: list.filter((t) => !t.skillMisleading).length,
    misleadingTasks: list.filter((t) => t.skillMisleading).length,
    truthful: count.truthful ? sum.truthful / count.truthful : NaN,
    misleading: count.misleading ? sum.misleading / count.misleading : NaN,
  };
}
