// The tensors a loss reads, shared by the losses (losses/, which re-exports them from lossTypes.ts) and their fused
// webgpu forms (kernels/): its own module below both, so kernels import nothing from losses.
import type * as tf from '@tensorflow/tfjs';

/** Inputs of the OPD loss (losses/opdLoss.ts) and its fused webgpu form (kernels/fusedLosses.ts). */
export interface OpdInputs {
  /** [B, T, V] student logits */
  logits: tf.Tensor;
  /** [B, T] int32 sampled targets */
  targets: tf.Tensor;
  /** [B, T] int32 class of each target */
  targetClasses: tf.Tensor;
  /** [B, T] log π_old(targets) from the rollout (the sampling policy) */
  oldLogProbs: tf.Tensor;
  /** [B, T] log πT(targets | c+), aligned to the student's targets (teacher position = student position + skill length) */
  teacherLogProbs: tf.Tensor;
  /** [B, T, V] teacher logits or log-probs over the vocabulary (normalised here); required by 'full' */
  teacherLogits?: tf.Tensor;
  /** the student logits' shared per-token statistics, when another loss reads the same logits (not on webgpu) */
  tokenStats?: TokenStats;
}

/** One student forward's log-probs and entropy, computed once for every loss that reads its logits (tokenStats). */
export interface TokenStats {
  /** the logits [B, T, V] and targets [B, T] it was made from: a loss given it must be reading these very tensors */
  readonly logits: tf.Tensor;
  readonly targets: tf.Tensor;
  /** log πθ(targets[b, t]) [B, T]: a new differentiable node per call, gradient dy · (onehot − softmax) */
  logProbs(): tf.Tensor;
  /** −Σ_v p log p [B, T] (nats): a metric, no gradient path to the loss */
  entropy(): tf.Tensor;
}
