// ActObs SFT loss (docs/METHODS.md §1): supervise action tokens and, with weight λ, observation tokens.
//
//   L_λ = mean over sequences b of  − [ Σ_{i∈A_b} log πθ(y_i) + λ Σ_{i∈O_b} log πθ(y_i) ] / max(1, |A_b| + λ|O_b|)
//
// The per-sequence denominator makes the per-token weights of a sequence sum to 1 (when it has any supervised
// token), so the gradient scale does not depend on λ or on how long the observations are. λ = 0 is ActionSFT.
// Prompt, skill and special targets never carry loss. Batch reduction is the MEAN over sequences (not the sum).
import * as tf from '@tensorflow/tfjs';
import { TokenClass } from '../../core/env/types';
import { fusedSftLoss } from '../kernels/fusedLosses';
import { useFusedKernels } from '../kernels/registerWebgpuKernels';
import { actionMask, classMask, type LossOutput } from './lossTypes';
import { tokenLogProbs } from './tokenLogProbs';

export interface SftInputs {
  /** [B, T, V] policy logits (a function of the trainable variables) */
  logits: tf.Tensor;
  /** [B, T] int32, targets[t] = tokens[t + 1] */
  targets: tf.Tensor;
  /** [B, T] int32, class of targets[t] (NO_TARGET = −1 where there is none) */
  targetClasses: tf.Tensor;
}

export type ActObsStat = 'loss' | 'actionCE' | 'observationCE' | 'actionTokens' | 'observationTokens';

/** ActObs loss with observation weight λ ≥ 0 (λ = 0: ActionSFT, λ = 1: every action/observation token equal). */
export function actObsLoss(inputs: SftInputs, lambda: number): LossOutput<ActObsStat> {
  if (!Number.isFinite(lambda) || lambda < 0) {
    throw new Error(`actObsLoss: observation weight λ must be a finite number ≥ 0, got ${lambda}`);
  }
  return weightedSftLoss(inputs, 1, lambda);
}

/**
 * The general per-class weighted SFT loss: weight `actionWeight` on action targets, `observationWeight` on
 * observation targets, per-sequence denominator max(1, Σ weights), mean over sequences. actObsLoss is (1, λ);
 * the gradient geometry uses (1, 0) for the action-only loss and (0, 1) for the observation-only loss.
 */
export function weightedSftLoss(
  inputs: SftInputs,
  actionWeight: number,
  observationWeight: number,
): LossOutput<ActObsStat> {
  const { logits, targets, targetClasses } = inputs;
  // webgpu: one row kernel + one reduction kernel (same value, gradient and statistics)
  if (useFusedKernels()) return fusedSftLoss(logits, targets, targetClasses, actionWeight, observationWeight);
  return tf.tidy(() => {
    const lp = tokenLogProbs(logits, targets); // [B, T]
    const mA = actionMask(targetClasses); // [B, T]
    const mO = classMask(targetClasses, TokenClass.observation); // [B, T]
    // weights per target; a zero weight drops its stream exactly (0 · finite = 0)
    const w =
      observationWeight === 0
        ? tf.mul(mA, actionWeight)
        : actionWeight === 0
          ? tf.mul(mO, observationWeight)
          : tf.add(tf.mul(mA, actionWeight), tf.mul(mO, observationWeight));
    const perSeqNum = tf.sum(tf.mul(w, lp), 1); // [B]
    const perSeqDen = tf.maximum(tf.sum(w, 1), 1); // [B]
    const loss = tf.neg(tf.mean(tf.div(perSeqNum, perSeqDen))) as tf.Scalar;
    const nA = tf.sum(mA);
    const nO = tf.sum(mO);
    const stats = {
      loss,
      actionCE: tf.neg(tf.div(tf.sum(tf.mul(mA, lp)), tf.maximum(nA, 1))) as tf.Scalar,
      observationCE: tf.neg(tf.div(tf.sum(tf.mul(mO, lp)), tf.maximum(nO, 1))) as tf.Scalar,
      actionTokens: nA as tf.Scalar,
      observationTokens: nO as tf.Scalar,
    };
    return { loss, stats };
  });
}
