// One rollout for the K members of a MemberModel (memberModel.ts): member k's tasks × groupSize episodes are rows
// of one episode batch and one decoder, every decode step runs all members in one pass, and member k samples from
// its own stream (seeds[k]). The result is split back into K batches, each what `rollout(member k's own model,
// env, member k's tasks, { ...options, seed: seeds[k] })` returns — tokens and environment outcomes the same, the
// log-probs and entropies to float32 rounding (the members' logits come from batched products) — except
// `decodeSteps`, which counts the shared steps (what the member axis saves: K rollouts' steps become one's).
//
// Why: on a GPU a decode step of this lab's policy is per-kernel and per-readback overhead; K members' step costs
// about one member's. Episodes that end stay in the batch (fed nothing) until the longest member's ends.
import { Special, type AgentEnv, type Task } from '../core/env/types';
import type { MemberModel } from './memberModel';
import { batchWidth, copyRows, PAD_CLASS, rolloutRows, type RolloutBatch, type RolloutOptions } from './rollout';

export interface MemberRolloutOptions extends Omit<RolloutOptions, 'seed' | 'memberSeeds'> {
  /** one sampling seed per member (integers in [0, 2^32)) */
  seeds: readonly number[];
}

export async function memberRollout(
  members: MemberModel,
  env: AgentEnv,
  tasksByMember: readonly (readonly Task[])[],
  options: MemberRolloutOptions,
): Promise<RolloutBatch[]> {
  const K = members.members;
  if (tasksByMember.length !== K)
    throw new Error(`memberRollout: ${K} members need ${K} task lists, got ${tasksByMember.length}`);
  if (options.seeds.length !== K)
    throw new Error(`memberRollout: ${K} members need ${K} seeds, got ${options.seeds.length}`);
  const perMember = (tasksByMember[0] as readonly Task[]).length;
  tasksByMember.forEach((t, k) => {
    if (t.length !== perMember)
      throw new Error(`memberRollout: member ${k} has ${t.length} tasks, member 0 has ${perMember} (they must match)`);
  });
  const { seeds, padTo, ...rest } = options;
  const { batch, sampled } = await rolloutRows(members, env, tasksByMember.flat(), {
    ...rest,
    seed: 0,
    memberSeeds: seeds,
  });
  const rows = perMember * batch.groupSize;
  return Array.from({ length: K }, (_, k) => memberShare(batch, sampled, k * rows, rows, k * perMember, padTo));
}

/**
 * Rows [first, first + n) of a batch as a batch of their own: arrays [n, T'] with T' the share's longest episode
 * (or padTo), task indices counted from the share's first task.
 */
function memberShare(
  batch: RolloutBatch,
  sampled: Int32Array,
  first: number,
  n: number,
  firstTask: number,
  padTo: number | undefined,
): RolloutBatch {
  const lengths = batch.lengths.slice(first, first + n);
  const width = batchWidth(lengths, padTo);
  const rowsOf = <A extends Int32Array | Float32Array>(src: A, make: (size: number) => A, fill: number): A =>
    copyRows(src, batch.length, first, n, width, make, fill);
  let policyTokens = 0;
  for (let i = 0; i < n; i++) policyTokens += sampled[first + i] as number;
  return {
    ...batch,
    size: n,
    length: width,
    tokens: rowsOf(batch.tokens, (m) => new Int32Array(m), Special.pad),
    classes: rowsOf(batch.classes, (m) => new Int32Array(m), PAD_CLASS),
    lengths,
    oldLogProbs: rowsOf(batch.oldLogProbs, (m) => new Float32Array(m), 0),
    entropy: rowsOf(batch.entropy, (m) => new Float32Array(m), 0),
    reward: batch.reward.slice(first, first + n),
    success: batch.success.slice(first, first + n),
    turns: batch.turns.slice(first, first + n),
    invalid: batch.invalid.slice(first, first + n),
    truncated: batch.truncated.slice(first, first + n),
    taskIndex: batch.taskIndex.slice(first, first + n).map((t) => t - firstTask),
    policyTokens,
  };
}
