// On-policy distillation from the privileged teacher (docs/METHODS.md §3), on the student's own sampled action tokens.
//
//   ℓ_t = log πθ(y_t) − log πT(y_t | c+)        (teacher log-probs aligned to the student's targets)
//   gap statistic g_k = token-mean over action tokens of (log πT − log π_old); K_k = −g_k drives the retirement gate.
//
// Estimators (loss = token-mean over all action tokens of the batch):
//   'k3'    (default; the public RetireOPD code): r_t · (exp(−ℓ_t) − 1 + ℓ_t), r_t = exp(min(log πθ − log π_old, 10)),
//           gradient through r and ℓ; −ℓ is clamped at 20 (and the clamped value is used in both terms, keeping the
//           summand ≥ 0). On-policy (πθ = π_old) its expected gradient is ∇ KL(πθ ‖ πT).
//   'full'  exact reverse KL Σ_v πθ(v)(log πθ(v) − log πT(v)) at each action position, from teacher logits over the
//           vocabulary (affordable: the lab's vocabularies are tiny). The exact answer the others estimate.
//   'naive' TEACHING ABLATION — seed 000's literal formula mean(ℓ_t) differentiated directly. Its expected gradient
//           is ZERO (E_{y∼π}[∇ log π(y)] = 0): it only adds noise. Never a default; kept to show why k3 exists.
import * as tf from '@tensorflow/tfjs';
import { TokenClass } from '../../core/env/types';
import { isOneOf, OPD_ESTIMATORS, type OpdEstimator } from '../../core/methodVocabulary';
import { fusedOpdLoss, fusedRowStats } from '../kernels/fusedLosses';
import { useFusedKernels } from '../kernels/registerWebgpuKernels';
import { actionMask, checkedTokenStats, maskedMean, type LossOutput, type OpdInputs } from './lossTypes';
import { tokenLogProbs } from './tokenLogProbs';

// the estimator names are declared in core/methodVocabulary.ts; the type is re-exported for the trainer
export type { OpdEstimator };
export const DEFAULT_OPD_ESTIMATOR: OpdEstimator = 'k3';

export type OpdStat = 'loss' | 'gap' | 'k3' | 'ratioMean' | 'actionTokens';

/** Clamp on log πθ − log π_old inside r, and on −ℓ inside k3 (the public code's constants). */
const OPD_LOG_RATIO_CAP = 10;
const OPD_NEG_ELL_CAP = 20;

/**
 * The OPD loss with the chosen estimator. Stats: loss, gap (g_k), k3 (mean k3 summand without r, a KL estimate),
 * ratioMean (mean r), actionTokens. All means are over the batch's action tokens.
 */
export function opdLoss(inputs: OpdInputs, estimator: OpdEstimator = DEFAULT_OPD_ESTIMATOR): LossOutput<OpdStat> {
  if (!isOneOf(OPD_ESTIMATORS, estimator)) {
    throw new Error(`opdLoss: estimator must be one of ${OPD_ESTIMATORS.join(', ')}, got "${String(estimator)}"`);
  }
  if (estimator === 'full' && inputs.teacherLogits === undefined) {
    throw new Error(
      "opdLoss: estimator 'full' needs teacherLogits [B, T, V] (the teacher's distribution at each position)",
    );
  }
  const { logits, targets, targetClasses, oldLogProbs, teacherLogProbs } = inputs;
  if (useFusedKernels()) {
    // webgpu: one row kernel (log-probs, and the full KL) + one reduction kernel (same value, gradient, statistics)
    const estimatorCode = { k3: 0, full: 1, naive: 2 } as const;
    return fusedOpdLoss(inputs, {
      estimator: estimatorCode[estimator],
      logRatioCap: OPD_LOG_RATIO_CAP,
      negEllCap: OPD_NEG_ELL_CAP,
    });
  }
  const shared = checkedTokenStats('opdLoss', inputs.tokenStats, logits, targets);
  return tf.tidy(() => {
    const mask = actionMask(targetClasses); // [B, T]
    const lp = shared?.logProbs() ?? tokenLogProbs(logits, targets); // [B, T]
    const ell = tf.sub(lp, teacherLogProbs); // ℓ_t
    const negEll = tf.minimum(tf.neg(ell), OPD_NEG_ELL_CAP); // −ℓ clamped at 20
    const k3Term = tf.sub(tf.sub(tf.exp(negEll), 1), negEll); // exp(−ℓ) − 1 + ℓ  [B, T]
    const rho = tf.exp(tf.minimum(tf.sub(lp, oldLogProbs), OPD_LOG_RATIO_CAP)); // [B, T]
    let loss: tf.Scalar;
    if (estimator === 'k3') {
      loss = maskedMean(tf.mul(rho, k3Term), mask);
    } else if (estimator === 'full') {
      loss = maskedMean(fullReverseKL(logits, inputs.teacherLogits as tf.Tensor), mask);
    } else {
      loss = maskedMean(ell, mask); // naive: zero expected gradient (teaching ablation)
    }
    const stats: Record<OpdStat, tf.Scalar> = {
      loss,
      gap: maskedMean(tf.sub(teacherLogProbs, oldLogProbs), mask),
      k3: maskedMean(k3Term, mask),
      ratioMean: maskedMean(rho, mask),
      actionTokens: tf.sum(mask) as tf.Scalar,
    };
    return { loss, stats };
  });
}

/** Exact KL(πθ ‖ πT) per position: Σ_v πθ(v)(log πθ(v) − log πT(v)); [B, T, V] × [B, T, V] → [B, T]. */
export function fullReverseKL(logits: tf.Tensor, teacherLogits: tf.Tensor): tf.Tensor {
  if (useFusedKernels()) return fusedRowStats('kl', logits, undefined, teacherLogits)[0] as tf.Tensor;
  return tf.tidy(() => {
    const logp = tf.logSoftmax(logits);
    const logq = tf.logSoftmax(teacherLogits);
    return tf.sum(tf.mul(tf.exp(logp), tf.sub(logp, logq)), -1);
  });
}

/** g_k on tensors: token-mean over action targets of (log πT − log π_old). Scalar (0 when there are none). */
export function opdGap(teacherLogProbs: tf.Tensor, oldLogProbs: tf.Tensor, targetClasses: tf.Tensor): tf.Scalar {
  return tf.tidy(() => maskedMean(tf.sub(teacherLogProbs, oldLogProbs), actionMask(targetClasses)));
}

/**
 * g_k on host arrays (same alignment as the tensors, [B·T] row-major). Accumulates in float64.
 * Returns NaN when the step has no action token (the gate rejects non-finite gaps, so such a step is visible).
 */
export function opdGapHost(
  teacherLogProbs: ArrayLike<number>,
  oldLogProbs: ArrayLike<number>,
  targetClasses: ArrayLike<number>,
): number {
  const n = targetClasses.length;
  if (teacherLogProbs.length !== n || oldLogProbs.length !== n) {
    throw new Error(
      `opdGapHost: arrays must have equal length, got ${teacherLogProbs.length}, ${oldLogProbs.length}, ${n}`,
    );
  }
  let sum = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const c = targetClasses[i];
    if (c === TokenClass.actionHead || c === TokenClass.actionArg) {
      sum += (teacherLogProbs[i] ?? 0) - (oldLogProbs[i] ?? 0);
      count++;
    }
  }
  return count === 0 ? Number.NaN : sum / count;
}
