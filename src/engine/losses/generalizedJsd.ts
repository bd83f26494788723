// The generalized Jensen–Shannon divergence of GKD (TRL's generalized_jsd_loss; docs/METHODS.md §3, distillation forms), at each action
// position of the distillation batch (the student's own rollout; with GKD's λ < 1 sometimes the teacher's samples,
// distillLoss.ts's teacherSampledJsd), over the full vocabulary:
//
//   β = 0:      KL(π_T ‖ πθ)                      (forward KL)
//   β = 1:      KL(πθ ‖ π_T)                      (reverse KL)
//   0 < β < 1:  JSD_β = β·KL(π_T ‖ M) + (1 − β)·KL(πθ ‖ M),   M = β·π_T + (1 − β)·πθ
//
// TRL's convention, kept exactly: β weighs the TEACHER in the mixture, and the endpoints are special-cased (the
// interior tends to 0, not to a KL, as β → 0 or 1). The teacher side is a constant. log M by a stable log-sum-exp.
import * as tf from '@tensorflow/tfjs';

/** Per-position JSD_β, [B, T, V] student logits × [B, T, V] teacher logits → [B, T]. */
export function generalizedJsd(logits: tf.Tensor, teacherLogits: tf.Tensor, beta: number): tf.Tensor {
  if (!(beta >= 0 && beta <= 1)) throw new Error(`generalizedJsd: beta must be in [0, 1], got ${beta}`);
  return tf.tidy(() => {
    const lpS = tf.logSoftmax(logits); // [B, T, V]
    const lpT = tf.logSoftmax(teacherLogits); // [B, T, V], a constant: computed outside the gradient scope
    const kl = (lp: tf.Tensor, lq: tf.Tensor): tf.Tensor => tf.sum(tf.mul(tf.exp(lp), tf.sub(lp, lq)), -1);
    if (beta === 0) return kl(lpT, lpS);
    if (beta === 1) return kl(lpS, lpT);
    const lpM = tf.logSumExp(tf.stack([tf.add(lpS, Math.log1p(-beta)), tf.add(lpT, Math.log(beta))]), 0);
    return tf.add(tf.mul(kl(lpT, lpM), beta), tf.mul(kl(lpS, lpM), 1 - beta));
  });
}
