// GRPO advantages from terminal rewards (docs/METHODS.md §2). Each inner array is one task's group of G
// trajectories.
import { mean } from './windowedMean';

/**
 * - `group-std`: Â_i = (R_i − mean_group) / (std_group + ε)   (GRPO)
 * - `batch-std`: Â_i = (R_i − mean_group) / (std_batch + ε)   (TRL's scale_rewards="batch": one std of all rewards)
 * - `none`:      Â_i =  R_i − mean_group                       (Dr. GRPO)
 */
export type AdvantageScaling = 'group-std' | 'batch-std' | 'none';

export interface AdvantageOptions {
  readonly scaling: AdvantageScaling;
  /** ε added to the std (default 1e-6, verl's). */
  readonly epsilon?: number;
  /**
   * Std estimator: `unbiased` divides by n−1 (torch.std's default, as verl and TRL use; default), `population` by n.
   * A one-reward group has std 0 either way (its advantage is 0).
   */
  readonly std?: 'unbiased' | 'population';
}

export interface AdvantageResult {
  /** Same shape as the input groups: the advantage shared by every action token of trajectory i. */
  readonly advantages: number[][];
  /** Fraction of groups whose rewards are all equal (their advantages are exactly 0). */
  readonly fracRewardZeroStd: number;
}

/** Standard deviation of `values` about their mean; 0 for fewer than two values. */
export function standardDeviation(values: readonly number[], kind: 'unbiased' | 'population' = 'unbiased'): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return Math.sqrt(ss / (kind === 'unbiased' ? values.length - 1 : values.length));
}

const allEqual = (values: readonly number[]): boolean => values.every((v) => v === values[0]);

/** Fraction of groups whose rewards are all equal; NaN when there are no groups. */
export function fracRewardZeroStd(groups: readonly (readonly number[])[]): number {
  if (groups.length === 0) return Number.NaN;
  return groups.filter(allEqual).length / groups.length;
}

export function grpoAdvantages(groups: readonly (readonly number[])[], options: AdvantageOptions): AdvantageResult {
  const epsilon = options.epsilon ?? 1e-6;
  const stdKind = options.std ?? 'unbiased';
  if (!Number.isFinite(epsilon) || epsilon < 0) throw new RangeError(`epsilon must be finite and ≥ 0, got ${epsilon}`);
  for (const [g, group] of groups.entries()) {
    if (group.length === 0) throw new RangeError(`group ${g} is empty`);
    const bad = group.findIndex((r) => !Number.isFinite(r));
    if (bad >= 0) throw new RangeError(`group ${g}, reward ${bad} is not finite: ${group[bad]}`);
  }
  const batchStd = standardDeviation(groups.flat(), stdKind);
  const advantages = groups.map((group) => {
    // An all-equal group gives exactly zero advantage, whatever the scaling (no 0/ε noise).
    if (allEqual(group)) return group.map(() => 0);
    const m = mean(group);
    const scale =
      options.scaling === 'group-std'
        ? standardDeviation(group, stdKind) + epsilon
        : options.scaling === 'batch-std'
          ? batchStd + epsilon
          : 1;
    return group.map((r) => (r - m) / scale);
  });
  return { advantages, fracRewardZeroStd: fracRewardZeroStd(groups) };
}
