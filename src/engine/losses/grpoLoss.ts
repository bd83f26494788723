// GRPO policy loss (docs/METHODS.md §2): PPO-style clipped surrogate on the policy's own action tokens.
//
//   r_t = exp(log πθ(y_t) − log π_old(y_t))                          (log-ratio clamped to ±20 against overflow)
//   per-token loss  ℓ_t = −min(r_t Â_b, clip(r_t, 1 − ε_low, 1 + ε_high) Â_b)  [+ β · k3(πθ ‖ π_ref)]
//   dual clip (verl's clip_ratio_c = c, when set): for Â_b < 0, ℓ_t ← min(ℓ_t, −c·Â_b), so a ratio far above 1 on a
//   bad action cannot make the loss (and its gradient) unbounded; Â_b ≥ 0 is unchanged
//   k3 = exp(log π_ref − log πθ) − (log π_ref − log πθ) − 1          (Schulman's estimator of KL(πθ ‖ π_ref))
//
// Advantages Â_b are per sequence, computed on the host (group / batch / no std scaling live in core statistics);
// every action token of sequence b shares Â_b. Observation, prompt, skill and special targets never carry loss.
// Aggregation over the action mask follows verl: token-mean (pooled over the batch), seq-mean-token-mean,
// seq-mean-token-sum. Clip fractions follow TRL's definition: low = r < 1 − ε_low with Â < 0, high = r > 1 + ε_high
// with Â > 0 (the tokens whose gradient the clip removes), as fractions of the action tokens; clipFracDual = the
// tokens with Â < 0 where the dual bound −c·Â is the smaller (verl's pg_clipfrac_lower), as a fraction of action tokens.
// ratioDevSq = mean (r − 1)² over action tokens (with ratioMean, the ratio's spread; exact near 1 in float32).
import * as tf from '@tensorflow/tfjs';
import { GRPO_AGGREGATIONS, type GrpoAggregation, isOneOf } from '../../core/methodVocabulary';
import { fusedGrpoLoss } from '../kernels/fusedLosses';
import { useFusedKernels } from '../kernels/registerWebgpuKernels';
import { actionMask, checkedTokenStats, maskedMean, type LossOutput, type TokenStats } from './lossTypes';
import { tokenEntropy, tokenLogProbs } from './tokenLogProbs';

/** verl's token aggregations; the names are declared in core/methodVocabulary.ts (GRPO_AGGREGATIONS) */
export type TokenAggregation = GrpoAggregation;

/** code of each aggregation in the fused webgpu reduction (../kernels/webgpuGrpoReduce.ts) */
const AGGREGATION_CODE = { 'token-mean': 0, 'seq-mean-token-sum': 1, 'seq-mean-token-mean': 2 } as const;

export interface GrpoLossConfig {
  /** ε_low: lower clip 1 − ε_low (default 0.2) */
  clipLow: number;
  /** ε_high: upper clip 1 + ε_high (default 0.2; DAPO uses 0.28) */
  clipHigh: number;
  aggregation: TokenAggregation;
  /** β of the k3 KL to the reference policy (default 0: no reference needed) */
  klCoef: number;
  /** dual-clip c > 1 (verl's clip_ratio_c, 3.0), or null for no dual clip */
  clipRatioC: number | null;
  /** also compute the mean policy entropy over action tokens (a metric; costs one logSoftmax) */
  computeEntropy: boolean;
}

const DEFAULT_GRPO_LOSS_CONFIG: Readonly<GrpoLossConfig> = {
  clipLow: 0.2,
  clipHigh: 0.2,
  aggregation: 'token-mean',
  klCoef: 0,
  clipRatioC: null,
  computeEntropy: true,
};

export interface GrpoInputs {
  /** [B, T, V] current policy logits */
  logits: tf.Tensor;
  /** [B, T] int32 */
  targets: tf.Tensor;
  /** [B, T] int32 class of each target */
  targetClasses: tf.Tensor;
  /** [B, T] log π_old(targets) recorded by the rollout (any value where the target is not an action) */
  oldLogProbs: tf.Tensor;
  /** [B] per-sequence advantages (host Float32Array or a tensor) */
  advantages: Float32Array | tf.Tensor;
  /** [B, T] log π_ref(targets); required when klCoef > 0 */
  refLogProbs?: tf.Tensor;
  /** the logits' shared per-token statistics, when another loss reads the same logits (not on webgpu) */
  tokenStats?: TokenStats;
}

export type GrpoStat =
  | 'loss'
  | 'policyLoss'
  | 'kl'
  | 'clipFracLow'
  | 'clipFracHigh'
  | 'ratioMean'
  | 'entropy'
  | 'actionTokens'
  | 'clipFracDual'
  | 'ratioDevSq';

/** Applies defaults and rejects unknown keys or invalid values, naming the field. */
export function resolveGrpoLossConfig(partial: Partial<GrpoLossConfig> = {}): GrpoLossConfig {
  for (const key of Object.keys(partial)) {
    if (!(key in DEFAULT_GRPO_LOSS_CONFIG)) {
      throw new Error(
        `GRPO loss config: unknown key "${key}" (expected one of ${Object.keys(DEFAULT_GRPO_LOSS_CONFIG).join(', ')})`,
      );
    }
  }
  const c: GrpoLossConfig = { ...DEFAULT_GRPO_LOSS_CONFIG, ...partial };
  if (!(c.clipLow >= 0 && c.clipLow < 1))
    throw new Error(`GRPO loss config: clipLow must be in [0, 1), got ${c.clipLow}`);
  if (!(c.clipHigh >= 0 && Number.isFinite(c.clipHigh)))
    throw new Error(`GRPO loss config: clipHigh must be finite and ≥ 0, got ${c.clipHigh}`);
  if (!(c.klCoef >= 0 && Number.isFinite(c.klCoef)))
    throw new Error(`GRPO loss config: klCoef must be finite and ≥ 0, got ${c.klCoef}`);
  if (c.clipRatioC !== null && !(c.clipRatioC > 1 && Number.isFinite(c.clipRatioC)))
    throw new Error(`GRPO loss config: clipRatioC must be finite and > 1 (or null = off), got ${c.clipRatioC}`);
  if (!isOneOf(GRPO_AGGREGATIONS, c.aggregation)) {
    throw new Error(
      `GRPO loss config: aggregation must be one of ${GRPO_AGGREGATIONS.join(', ')}, got "${String(c.aggregation)}"`,
    );
  }
  return c;
}

/** Aggregates a per-token loss [B, T] over a mask [B, T] the way verl's agg_loss does (empty sequences count 0). */
function aggregateTokens(perToken: tf.Tensor, mask: tf.Tensor, mode: TokenAggregation): tf.Scalar {
  return tf.tidy(() => {
    if (mode === 'token-mean') return maskedMean(perToken, mask);
    const seqSum = tf.sum(tf.mul(perToken, mask), 1); // [B]
    if (mode === 'seq-mean-token-sum') return tf.mean(seqSum) as tf.Scalar;
    return tf.mean(tf.div(seqSum, tf.maximum(tf.sum(mask, 1), 1))) as tf.Scalar;
  });
}

/** k3 estimate of KL(πθ ‖ π_ref) per token from log-probs of the sampled tokens (≥ 0; log-ratio clamped to ±20). */
function k3KL(logProbs: tf.Tensor, refLogProbs: tf.Tensor): tf.Tensor {
  return tf.tidy(() => {
    const d = tf.clipByValue(tf.sub(refLogProbs, logProbs), -20, 20);
    return tf.sub(tf.sub(tf.exp(d), d), 1);
  });
}

export function grpoLoss(inputs: GrpoInputs, config: Partial<GrpoLossConfig> = {}): LossOutput<GrpoStat> {
  const c = resolveGrpoLossConfig(config);
  const { logits, targets, targetClasses, oldLogProbs } = inputs;
  const batch = targets.shape[0] ?? 0;
  if (inputs.advantages instanceof Float32Array && inputs.advantages.length !== batch) {
    throw new Error(
      `grpoLoss: advantages has ${inputs.advantages.length} entries, expected one per sequence (${batch})`,
    );
  }
  if (c.klCoef > 0 && inputs.refLogProbs === undefined) {
    throw new Error('grpoLoss: klCoef > 0 needs refLogProbs (log π_ref of the sampled targets)');
  }
  if (useFusedKernels()) {
    // webgpu: one row kernel (log-probs and entropy) + one reduction kernel (same value, gradient and statistics)
    return tf.tidy(() => {
      const advantages = inputs.advantages instanceof Float32Array ? tf.tensor1d(inputs.advantages) : inputs.advantages;
      const fusedInputs = { logits, targets, targetClasses, oldLogProbs, advantages };
      return fusedGrpoLoss(
        inputs.refLogProbs === undefined ? fusedInputs : { ...fusedInputs, refLogProbs: inputs.refLogProbs },
        {
          ...c,
          aggregation: AGGREGATION_CODE[c.aggregation],
        },
      );
    });
  }
  const shared = checkedTokenStats('grpoLoss', inputs.tokenStats, logits, targets);
  return tf.tidy(() => {
    const mask = actionMask(targetClasses); // [B, T]
    const lp = shared?.logProbs() ?? tokenLogProbs(logits, targets); // [B, T]
    const adv = tf.reshape(
      inputs.advantages instanceof Float32Array ? tf.tensor1d(inputs.advantages) : inputs.advantages,
      [batch, 1],
    ); // [B, 1]
    const logRatio = tf.clipByValue(tf.sub(lp, oldLogProbs), -20, 20);
    const ratio = tf.exp(logRatio);
    const unclipped = tf.mul(ratio, adv);
    const clipped = tf.mul(tf.clipByValue(ratio, 1 - c.clipLow, 1 + c.clipHigh), adv);
    const pgBase = tf.neg(tf.minimum(unclipped, clipped)); // [B, T]
    const negAdv = tf.less(adv, 0); // [B, 1]
    const dualBound = tf.mul(adv, -(c.clipRatioC ?? 0)); // [B, 1]  −c·Â
    const dualOn = tf.logicalAnd(negAdv, tf.greater(pgBase, dualBound)); // [B, T] (only meaningful when c is set)
    const pgPerToken =
      c.clipRatioC === null
        ? pgBase
        : tf.where(tf.broadcastTo(negAdv, pgBase.shape), tf.minimum(pgBase, dualBound), pgBase);
    const policyLoss = aggregateTokens(pgPerToken, mask, c.aggregation);
    let loss = policyLoss;
    let kl: tf.Scalar;
    if (inputs.refLogProbs !== undefined) {
      const klPerToken = k3KL(lp, inputs.refLogProbs);
      kl = maskedMean(klPerToken, mask);
      if (c.klCoef > 0) loss = tf.add(policyLoss, tf.mul(aggregateTokens(klPerToken, mask, c.aggregation), c.klCoef));
    } else {
      kl = tf.scalar(0);
    }
    const low = tf.cast(tf.logicalAnd(tf.less(ratio, 1 - c.clipLow), tf.less(adv, 0)), 'float32');
    const high = tf.cast(tf.logicalAnd(tf.greater(ratio, 1 + c.clipHigh), tf.greater(adv, 0)), 'float32');
    const stats: Record<GrpoStat, tf.Scalar> = {
      loss,
      policyLoss,
      kl,
      clipFracLow: maskedMean(low, mask),
      clipFracHigh: maskedMean(high, mask),
      ratioMean: maskedMean(ratio, mask),
      clipFracDual: c.clipRatioC === null ? tf.scalar(0) : maskedMean(tf.cast(dualOn, 'float32'), mask),
      ratioDevSq: maskedMean(tf.square(tf.sub(ratio, 1)), mask),
      entropy: c.computeEntropy ? maskedMean(shared?.entropy() ?? tokenEntropy(logits), mask) : tf.scalar(Number.NaN),
      actionTokens: tf.sum(mask) as tf.Scalar,
    };
    return { loss, stats };
  });
}
