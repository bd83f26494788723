// How much a skill-conditioned teacher depends on its skill: the same frozen teacher on the same
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
  const withSkill = byEntry(list, await successes(list));
  const blank = byEntry(list, await successes(list.map(blankSkillTask)));
  return {
    tasks,
    withSkill: withSkill.all,
    blankSkill: blank.all,
    misleadingTasks: withSkill.misleadingTasks,
    withSkillTruthful: withSkill.truthful,
    withSkillMisleading: withSkill.misleading,
  };
}

/**
 * mean success of episodes `tasks[i]` → `success[i]`, overall and grouped by truthful / misleading skill entry; the
 * task counts are of distinct task objects (a task repeated for several samples counts once)
 */
function byEntry(tasks: readonly Task[], success: ArrayLike<number>): EntrySplit & { all: number } {
  const sum = { truthful: 0, misleading: 0 };
  const count = { truthful: 0, misleading: 0 };
  tasks.forEach((t, i) => {
    const group = t.skillMisleading ? 'misleading' : 'truthful';
    sum[group] += success[i] as number;
    count[group] += 1;
  });
  const rate = (k: 'truthful' | 'misleading'): number => (count[k] ? sum[k] / count[k] : NaN);
  return {
    truthfulTasks: new Set(tasks.filter((t) => !t.skillMisleading)).size,
    misleadingTasks: new Set(tasks.filter((t) => t.skillMisleading)).size,
    truthful: rate('truthful'),
    misleading: rate('misleading'),
    all: tasks.length ? (sum.truthful + sum.misleading) / tasks.length : NaN,
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
  const { truthfulTasks, misleadingTasks, truthful, misleading } = byEntry(batch, r.success);
  return { truthfulTasks, misleadingTasks, truthful, misleading };
}
