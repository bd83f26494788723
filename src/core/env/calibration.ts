// Calibration of an environment with its scripted policies: the expert (upper bound, must be 100%), the explorer
// without the skill, the skill follower, and the uniform-random valid-action policy (must stay < 5%).
import { deriveRng, hashString } from '../rng';
import type { BaselineName, EpisodePolicy, MicroEnv } from './microEnv';
import { SPLITS, type Split } from './types';

export const BASELINES: readonly BaselineName[] = ['expert', 'skillFollower', 'explorer', 'random'];

export interface CalibrationRow {
  env: string;
  split: Split;
  policy: BaselineName;
  tasks: number;
  /** fraction of episodes that succeeded */
  successRate: number;
  /** mean final reward (penalties included) */
  meanReward: number;
  /** mean turns used */
  meanTurns: number;
  /** mean invalid actions per episode */
  meanInvalid: number;
}

export interface CalibrationOptions {
  tasksPerSplit: number;
  splits?: readonly Split[];
  policies?: readonly BaselineName[];
  /** seed of the policies' own choices (not of the tasks) */
  policySeed?: number;
  /** episodes stepped together */
  batchSize?: number;
}

export function calibrate<W>(env: MicroEnv<W>, opts: CalibrationOptions): CalibrationRow[] {
  const rows: CalibrationRow[] = [];
  const batchSize = opts.batchSize ?? 256;
  for (const split of opts.splits ?? SPLITS) {
    const tasks = env.tasks(split, opts.tasksPerSplit);
    for (const policy of opts.policies ?? BASELINES) {
      const rng = deriveRng(opts.policySeed ?? 0, hashString(`${env.name}/${split}/${policy}`));
      let success = 0;
      let reward = 0;
      let turns = 0;
      let invalid = 0;
      for (let start = 0; start < tasks.length; start += batchSize) {
        const chunk = tasks.slice(start, start + batchSize);
        const policies: EpisodePolicy[] = chunk.map((t) => env.baseline(policy, t, rng.fork()));
        for (const tr of env.rollout(chunk, policies)) {
          success += tr.success ? 1 : 0;
          reward += tr.reward;
          turns += tr.turns;
          invalid += tr.invalidActions ?? 0;
        }
      }
      const n = tasks.length;
      rows.push({
        env: env.name,
        split,
        policy,
        tasks: n,
        successRate: success / n,
        meanReward: reward / n,
        meanTurns: turns / n,
        meanInvalid: invalid / n,
      });
    }
  }
  return rows;
}

/** A fixed-width text table of calibration rows. */
export function formatCalibration(rows: readonly CalibrationRow[]): string {
  const head = ['env', 'split', 'policy', 'tasks', 'success', 'reward', 'turns', 'invalid/ep'];
  const body = rows.map((r) => [
    r.env,
    r.split,
    r.policy,
    String(r.tasks),
    `${(100 * r.successRate).toFixed(1)}%`,
    r.meanReward.toFixed(3),
    r.meanTurns.toFixed(2),
    r.meanInvalid.toFixed(2),
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((row) => (row[c] as string).length)));
  const line = (cells: readonly string[]): string => cells.map((x, c) => x.padEnd(widths[c] as number)).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
