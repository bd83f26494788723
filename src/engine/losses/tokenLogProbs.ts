// Per-position target log-probabilities and entropies of a causal LM's logits, differentiable on every backend.
//
// wasm has no gather gradient (no UnsortedSegmentSum) and stridedSlice has no gradient anywhere, so the target
// log-prob is picked with a one-hot product. The default path is one fused custom-gradient op:
//   forward  log p(target) = z_target − logsumexp(z)           (logSumExp, sub, oneHot, mul, sum)
//   backward ∂/∂z = dy · (onehot − softmax(z))                    (exp, sub, mul)
// which needs fewer kernels than autodiff through logSoftmax + mul + sum. On webgpu every function here runs as ONE
// WGSL dispatch forward and one backward instead (../kernels/webgpuTokenStats.ts).
import * as tf from '@tensorflow/tfjs';
import { fusedRowStats } from '../kernels/fusedLosses';
import { useFusedKernels } from '../kernels/registerWebgpuKernels';
import type { TokenStats } from './lossTypes';

/**
 * log πθ(targets[b, t]) for every position: logits [B, T, V] float32, targets [B, T] int32 → [B, T] float32.
 * The gradient w.r.t. logits is exact (dy · (onehot − softmax)); targets get no gradient.
 */
export function tokenLogProbs(logits: tf.Tensor, targets: tf.Tensor): tf.Tensor {
  checkShapes(logits, targets, 'tokenLogProbs');
  if (useFusedKernels()) return fusedRowStats('lp', logits, targets)[0] as tf.Tensor;
  const vocab = logits.shape[logits.shape.length - 1] ?? 0;
  // targets are closed over (not an input of the custom op): they have no gradient, and this avoids a zero-fill.
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const z = args[0] as tf.Tensor; // [B, T, V]
    const save = args[1] as tf.GradSaveFunc;
    const logp = tf.sub(z, tf.logSumExp(z, -1, true)); // [B, T, V]
    const oneHot = tf.oneHot(targets.dtype === 'int32' ? targets : tf.cast(targets, 'int32'), vocab); // [B, T, V]
    save([logp, oneHot]);
    return {
      value: tf.sum(tf.mul(logp, oneHot), -1), // [B, T]
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [savedLogp, savedOneHot] = saved as [tf.Tensor, tf.Tensor];
        return tf.mul(tf.expandDims(dy, -1), tf.sub(savedOneHot, tf.exp(savedLogp)));
      },
    };
  });
  return op(logits);
}

/**
 * What every loss of one student forward reads from its logits, computed once: log p = z − logsumexp(z), the
 * one-hot targets and softmax(z) = exp(log p) ([B, T, V] each). GRPO and OPD both need log πθ(targets) of the same
 * logits; each `logProbs()` call is its own gradient node computing what tokenLogProbs computes, kernel for
 * kernel, so the gradient they sum into the logits keeps its bits, but the logsumexp pass, the one-hot and the
 * backward passes' onehot − softmax run once instead of once per loss, and `entropy()` reuses them (−Σ p·log p)
 * instead of a logSoftmax of its own.
 * Not for webgpu (its losses are fused kernels). The tensors belong to the caller's scope (e.g. the update's tidy).
 */
export function tokenStats(logits: tf.Tensor, targets: tf.Tensor): TokenStats {
  checkShapes(logits, targets, 'tokenStats');
  const vocab = logits.shape[logits.shape.length - 1] ?? 0;
  const logp = tf.sub(logits, tf.logSumExp(logits, -1, true)); // [B, T, V]
  const oneHot = tf.oneHot(targets.dtype === 'int32' ? targets : tf.cast(targets, 'int32'), vocab); // [B, T, V]
  const probs = tf.exp(logp); // [B, T, V]: what tokenLogProbs's backward computes from its saved log p
  const residual = tf.sub(oneHot, probs); // [B, T, V]: onehot − softmax, the gradient of log p(target)
  const node = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const save = args[1] as tf.GradSaveFunc;
    save([residual]);
    return {
      value: tf.sum(tf.mul(logp, oneHot), -1), // [B, T]
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.mul(tf.expandDims(dy, -1), saved[0] as tf.Tensor),
    };
  });
  return {
    logits,
    targets,
    logProbs: () => node(logits),
    entropy: () => tf.neg(tf.sum(tf.mul(probs, logp), -1)),
  };
}

/**
 * The same value by plain autodiff (logSoftmax · oneHot, summed). Kept as the reference the fused op is tested
 * against and as a fallback; slower (more kernels in the backward pass).
 */
export function tokenLogProbsComposed(logits: tf.Tensor, targets: tf.Tensor): tf.Tensor {
  checkShapes(logits, targets, 'tokenLogProbsComposed');
  const vocab = logits.shape[logits.shape.length - 1] ?? 0;
  return tf.tidy(() => tf.sum(tf.mul(tf.logSoftmax(logits), tf.oneHot(tf.cast(targets, 'int32'), vocab)), -1));
}

/** Entropy −Σ_v p log p of the next-token distribution at every position: [B, T, V] → [B, T] (nats). Differentiable. */
export function tokenEntropy(logits: tf.Tensor): tf.Tensor {
  if (useFusedKernels()) return fusedRowStats('ent', logits)[0] as tf.Tensor;
  return tf.tidy(() => {
    const logp = tf.logSoftmax(logits);
    return tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1));
  });
}

/** Target log-probs and entropies from one logSoftmax (plain autodiff), for paths that need both. */
export function tokenLogProbsAndEntropy(
  logits: tf.Tensor,
  targets: tf.Tensor,
): { logProbs: tf.Tensor; entropy: tf.Tensor } {
  checkShapes(logits, targets, 'tokenLogProbsAndEntropy');
  if (useFusedKernels()) {
    const [logProbs, entropy] = fusedRowStats('lpEnt', logits, targets) as [tf.Tensor, tf.Tensor];
    return { logProbs, entropy };
  }
  const vocab = logits.shape[logits.shape.length - 1] ?? 0;
  return tf.tidy(() => {
    const logp = tf.logSoftmax(logits);
    const logProbs = tf.sum(tf.mul(logp, tf.oneHot(tf.cast(targets, 'int32'), vocab)), -1);
    const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1));
    return { logProbs, entropy };
  });
}

function checkShapes(logits: tf.Tensor, targets: tf.Tensor, who: string): void {
  const ls = logits.shape;
  const ts = targets.shape;
  if (ls.length !== ts.length + 1 || ts.some((d, i) => d !== ls[i])) {
    throw new Error(`${who}: logits [${ls.join(', ')}] must be targets [${ts.join(', ')}] plus a vocabulary axis`);
  }
}
