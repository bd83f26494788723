// Summary metrics of one batch of rollouts (docs/METHODS.md GRPO names under a prefix: rollout/…, test/…).
import type { RolloutOutput } from './enginePort';

/** Reward mean and sample std, success rate, mean stream length and sampled policy tokens of a rollout batch. */
export function rolloutMetrics(r: RolloutOutput, prefix = 'rollout'): Record<string, number> {
  const n = r.reward.length;
  let sum = 0;
  let ss = 0;
  let succ = 0;
  let len = 0;
  for (let i = 0; i < n; i++) {
    sum += r.reward[i] as number;
    succ += r.success[i] as number;
    len += r.packed.lengths[i] as number;
  }
  const mean = sum / n;
  for (let i = 0; i < n; i++) ss += ((r.reward[i] as number) - mean) ** 2;
  return {
    [`${prefix}/reward_mean`]: mean,
    [`${prefix}/reward_std`]: Math.sqrt(ss / Math.max(1, n - 1)),
    [`${prefix}/success_rate`]: succ / n,
    [`${prefix}/length_mean`]: len / n,
    [`${prefix}/sampled_tokens`]: r.sampledTokens,
  };
}
