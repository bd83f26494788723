// PPO mini-batches over one rollout (verl's ppo_mini_batch_size / ppo_epochs; docs/METHODS.md §2): the rollout's
// groups are cut into consecutive mini-batches of whole groups, one optimizer step each, and the cut is passed over
// `epochs` times in the same order (verl's actor splits the batch without shuffling by default). Only the first
// update of a rollout is on-policy; every later one sees a policy that already moved, so the PPO clip and the k3
// ratio act. Pure TypeScript.

export interface MiniBatchPlan {
  /** row indices (into the rollout's [B] sequences) of each update, in order: epochs × mini-batches entries */
  updates: number[][];
  /** mini-batches per epoch actually used: min(requested, number of groups) */
  miniBatches: number;
}

/**
 * The updates of one rollout of `sequences` rows, `groupSize` consecutive rows per group (a task's samples). Asking for
 * more mini-batches than there are groups gives one group per mini-batch. Mini-batch j of an epoch holds groups
 * floor(j·n/m) … floor((j+1)·n/m) − 1 (n groups, m mini-batches): sizes differ by at most one group, and every row is
 * in exactly one mini-batch of each epoch.
 */
export function miniBatchPlan(
  sequences: number,
  groupSize: number,
  miniBatches: number,
  epochs: number,
): MiniBatchPlan {
  if (!(Number.isInteger(groupSize) && groupSize >= 1))
    throw new Error(`miniBatchPlan: groupSize must be an integer ≥ 1, got ${groupSize}`);
  if (!(Number.isInteger(sequences) && sequences >= groupSize && sequences % groupSize === 0))
    throw new Error(
      `miniBatchPlan: ${sequences} sequences are not whole groups of ${groupSize} (grpo.groupSize × grpo.tasksPerStep)`,
    );
  if (!(Number.isInteger(miniBatches) && miniBatches >= 1))
    throw new Error(`miniBatchPlan: grpo.miniBatches must be an integer ≥ 1, got ${miniBatches}`);
  if (!(Number.isInteger(epochs) && epochs >= 1))
    throw new Error(`miniBatchPlan: grpo.epochs must be an integer ≥ 1, got ${epochs}`);
  const groups = sequences / groupSize;
  const m = Math.min(miniBatches, groups);
  const epoch: number[][] = [];
  for (let j = 0; j < m; j++) {
    const g0 = Math.floor((j * groups) / m);
    const g1 = Math.floor(((j + 1) * groups) / m);
    epoch.push(Array.from({ length: (g1 - g0) * groupSize }, (_, i) => g0 * groupSize + i));
  }
  const updates: number[][] = [];
  for (let e = 0; e < epochs; e++) for (const rows of epoch) updates.push(rows.slice());
  return { updates, miniBatches: m };
}

/** Optimizer updates one GRPO step takes: min(miniBatches, tasksPerStep) × epochs (a rollout has tasksPerStep groups). */
export function updatesPerStep(g: { miniBatches: number; epochs: number; tasksPerStep: number }): number {
  return Math.min(g.miniBatches, g.tasksPerStep) * g.epochs;
}
