// KL as a per-token reward in the policy gradient (verl's in-reward KL choice, as the public on-policy distillation
// posts use it; docs/METHODS.md §3, distillation forms). The sampled token's reverse-KL estimate, under stop-gradient, is a reward:
//
//   c_t = −(log π_old(y_t) − log π_T(y_t | c+))              (computed once per rollout; a constant)
//   the advantage of action token t becomes Â_b + λ_opd·c_t; the c_t part is the importance-sampled surrogate
//   ℓ^rew_t = −r_t · c_t,   r_t = exp(min(log πθ − log π_old, 10))      (no separate distillation loss)
//
// On-policy (πθ = π_old) E[∇ℓ^rew] = E[(log πθ − log π_T)∇ log πθ] = ∇ KL(πθ ‖ π_T): the same expected gradient as k3,
// reached through the policy gradient. The GRPO part keeps its own clip; the c_t part is not clipped (one update per
// rollout, as the lab's presets run, has r = 1 and no clip acts either way). The ratio cap is OPD's (opdLoss.ts).
import * as tf from '@tensorflow/tfjs';

/** Per-token surrogate −r_t·c_t, [B, T]; `logProbs` log πθ(y_t) (differentiable), the others constants [B, T]. */
export function klRewardSurrogate(
  logProbs: tf.Tensor,
  oldLogProbs: tf.Tensor,
  teacherLogProbs: tf.Tensor,
  logRatioCap: number,
): tf.Tensor {
  return tf.tidy(() => {
    const reward = tf.sub(teacherLogProbs, oldLogProbs); // c_t: both recorded before the update, so no gradient
    const ratio = tf.exp(tf.minimum(tf.sub(logProbs, oldLogProbs), logRatioCap));
    return tf.neg(tf.mul(ratio, reward));
  });
}
