// What a population (a leader and the runs riding along its student stage, followers.ts) holds in memory, so that one
// too large is refused before anything trains, with the figure. Riders share the leader's tensors; what grows with
// the population is each rider's host copies of the weights and Adam state: the state it is handed where it leaves
// the leader (held until it continues alone; the CLI's sweep keeps every such state until its turn comes) and the
// checkpoint it encodes from it. Activations and the teacher are the leader's alone and do not grow with the
// population; they are counted once, roughly. Pure arithmetic over the config: no tensors here.
import type { ExperimentConfig } from '../../core/experiment/config';
import { createEnvFor } from '../../core/experiment/envFactory';
import { modelConfigFor, parameterCount } from '../modelConfig';

const FLOAT32 = 4;
const MIB = 1024 * 1024;

export interface PopulationFootprint {
  members: number;
  /** parameters of the policy (student, teacher and init share the shape) */
  parameters: number;
  /** the leader: weights, gradients, Adam m and v, the teacher's weights, and its rollout activations (bytes) */
  leaderBytes: number;
  /** each rider: two host copies of the weights and Adam m and v (its resume state and its encoded checkpoint) */
  riderBytes: number;
  totalBytes: number;
}

/** The bytes `members` runs of `config` (one leader, members − 1 riders) hold at most at once. */
export function populationFootprint(config: ExperimentConfig, members: number): PopulationFootprint {
  if (!Number.isSafeInteger(members) || members < 1)
    throw new Error(`population size: expected an integer ≥ 1, got ${members}`);
  const model = modelConfigFor(config, createEnvFor(config));
  const parameters = parameterCount(model);
  const copy = parameters * FLOAT32;
  // one rollout batch through the model: every episode's context, a residual stream and an MLP per layer, kept
  // for the backward pass (an estimate, the same for any population size)
  const episodes = config.student.grpo.tasksPerStep * config.student.grpo.groupSize;
  const activations = episodes * model.contextTokens * model.layers * (4 * model.width + model.mlp) * FLOAT32;
  const leaderBytes = 4 * copy + copy + activations;
  const riderBytes = 2 * 3 * copy;
  return { members, parameters, leaderBytes, riderBytes, totalBytes: leaderBytes + (members - 1) * riderBytes };
}

/** Memory a population may use, and where the figure comes from (for the message). */
export interface MemoryBudget {
  bytes: number;
  source: string;
}

const mib = (bytes: number): string => `${(bytes / MIB).toFixed(bytes < 10 * MIB ? 1 : 0)} MiB`;

/**
 * Why a population of `members` runs of `config` is refused under `budget`, or null when it fits. The message gives
 * the figure: the leader's share, each rider's, the total and the budget.
 */
export function populationRefusal(config: ExperimentConfig, members: number, budget: MemoryBudget): string | null {
  const f = populationFootprint(config, members);
  if (f.totalBytes <= budget.bytes) return null;
  const fits = Math.max(1, 1 + Math.floor((budget.bytes - f.leaderBytes) / f.riderBytes));
  return (
    `a population of ${members} runs needs about ${mib(f.totalBytes)} (the leader ${mib(f.leaderBytes)}, each of ` +
    `the ${members - 1} riders ${mib(f.riderBytes)}: host copies of ${f.parameters.toLocaleString('en')} ` +
    `parameters, Adam state included), more than the ${mib(budget.bytes)} ${budget.source}; ` +
    `at most ${fits} fit — make the population smaller`
  );
}
