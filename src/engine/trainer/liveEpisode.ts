// One episode of a training step's rollout, as the environment shows it: the task's goal, each turn's command and
// the observation it got back, the reward. The trainer hands one to its episode sink at most once every
// TrainerOptions.liveEpisodes.everyMs (the worker posts it to the page's live strip); it is not a trainer event, so
// runs, logs and their pins are the same with or without it.
import { Special, TokenClass, type AgentEnv, type Task } from '../../core/env/types';
import type { RolloutOutput } from './enginePort';

export interface LiveEpisode {
  stage: 'teacher' | 'student';
  /** the training step whose rollout it comes from */
  step: number;
  goal: string;
  turns: { command: string; observation: string }[];
  reward: number;
  success: boolean;
  /** student stage: whether the teacher still guides the student (OPD) in this step, or has retired */
  teacherActive: boolean;
}

/** Row `row` of a rollout (its student-view stream) as turns of command and observation. */
export function liveEpisode(
  env: AgentEnv,
  stage: 'teacher' | 'student',
  step: number,
  tasks: readonly Task[],
  rollout: RolloutOutput,
  row: number,
  teacherActive: boolean,
): LiveEpisode {
  const { tokens, classes, lengths, seqLen } = rollout.packed;
  const turns: LiveEpisode['turns'] = [];
  let command: number[] = [];
  let observation: number[] = [];
  const flush = () => {
    if (command.length > 0 || observation.length > 0)
      turns.push({ command: env.vocab.decode(command), observation: env.vocab.decode(observation) });
    command = [];
    observation = [];
  };
  for (let t = 0; t < (lengths[row] ?? 0); t++) {
    const id = tokens[row * seqLen + t] as number;
    const cls = classes[row * seqLen + t] as number;
    if (cls === TokenClass.actionHead || cls === TokenClass.actionArg) {
      // a new command after an observation starts a new turn
      if (observation.length > 0) flush();
      command.push(id);
    } else if (cls === TokenClass.observation && id !== Special.obs) observation.push(id);
  }
  flush();
  return {
    stage,
    step,
    goal: tasks[row]?.goal ?? '',
    turns,
    reward: rollout.reward[row] ?? 0,
    success: rollout.success[row] === 1,
    teacherActive,
  };
}
