// Forward KL over the teacher's top-k tokens (verl's on-policy distillation; docs/METHODS.md §3, distillation forms), at each action
// position of the student's own rollout:
//
//   K = the k tokens of largest π_T(·|c+) at that position, O = the rest of the vocabulary lumped into one bucket
//   ℓ^fwd_t = Σ_{v∈K} π_T(v)(log π_T(v) − log πθ(v)) + π_T(O)(log π_T(O) − log πθ(O)),   π(O) = Σ_{v∉K} π(v)
//
// The teacher side is a constant (no gradient reaches the teacher). With k ≥ V there is no "other" bucket and ℓ^fwd
// is the exact forward KL(π_T ‖ πθ). The bucket's log-mass is a log-sum-exp over the non-top-k entries (never
// log(1 − Σ p), which loses every digit when the top-k hold almost all the mass).
import * as tf from '@tensorflow/tfjs';

/** Entries masked out of a log-sum-exp: far below any float32 log-prob, finite so a max never turns NaN. */
const MASKED = -1e9;

/** Per-position top-k forward KL, [B, T, V] student logits × [B, T, V] teacher logits → [B, T]. */
export function topKForwardKl(logits: tf.Tensor, teacherLogits: tf.Tensor, k: number): tf.Tensor {
  if (!Number.isInteger(k) || k < 1) throw new Error(`topKForwardKl: k must be an integer ≥ 1, got ${k}`);
  return tf.tidy(() => {
    const V = logits.shape[logits.rank - 1] as number;
    const lpS = tf.logSoftmax(logits); // [B, T, V]
    const lpT = tf.logSoftmax(teacherLogits); // [B, T, V], a constant: computed outside the gradient scope
    const pT = tf.exp(lpT);
    if (k >= V) return tf.sum(tf.mul(pT, tf.sub(lpT, lpS)), -1); // no bucket: the exact forward KL
    // the top k by a threshold at the k-th largest teacher log-prob, not tf.oneHot of topk's indices: that int32
    // path compiles to invalid WGSL on tfjs 4.22's webgpu backend (test/engine/losses/distillBackends.test.ts).
    // Ties with the k-th value are all kept (measure zero for real-valued logits).
    const kth = tf.slice(tf.topk(lpT, k).values, [0, 0, k - 1], [-1, -1, 1]); // [B, T, 1]
    const isKept = tf.greaterEqual(lpT, kth); // [B, T, V]
    const keptTerm = tf.sum(tf.where(isKept, tf.mul(pT, tf.sub(lpT, lpS)), tf.zerosLike(lpS)), -1); // [B, T]
    const masked = tf.fill(lpS.shape, MASKED);
    const otherS = tf.logSumExp(tf.where(isKept, masked, lpS), -1); // log πθ(O) [B, T]
    const otherT = tf.logSumExp(tf.where(isKept, masked, lpT), -1); // log π_T(O) [B, T]
    return tf.add(keptTerm, tf.mul(tf.exp(otherT), tf.sub(otherT, otherS)));
  });
}
