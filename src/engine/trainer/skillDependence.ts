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
  const rate = async (ts: readonly Task[]): Promise<number> => {
    const r = await engine.rollout({ policy: teacher, tasks: ts, withSkill: true, temperature: 1, seed });
    let s = 0;
    for (let i = 0; i < ts.length; i++) s += r.success[i] as number;
    return s / ts.length;
  };
  return { tasks, withSkill: await rate(list), blankSkill: await rate(list.map(blankSkillTask)) };
}
