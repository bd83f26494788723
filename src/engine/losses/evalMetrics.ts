// Evaluation helpers (docs/METHODS.md §1, §6): entropy per token class, KL(π_init ‖ π) on a fixed probe set,
// observation CE. All return tensors (read them with readStats / data()); none is meant to be differentiated.
import * as tf from '@tensorflow/tfjs';
import { TOKEN_CLASS_NAMES, TokenClass } from '../../core/env/types';
import { classMask, maskedMean } from './lossTypes';
import { tokenEntropy, tokenLogProbs } from './tokenLogProbs';

const NUM_TOKEN_CLASSES = TOKEN_CLASS_NAMES.length;

/**
 * Mean next-token entropy (nats) per class of the TARGET at each position, and the number of positions per class.
 * logits [B, T, V], targetClasses [B, T] int32 (NO_TARGET rows count nowhere) → entropy [6], counts [6]
 * (index = TokenClass; a class with no position has entropy 0 and count 0).
 */
export function entropyByClass(
  logits: tf.Tensor,
  targetClasses: tf.Tensor,
): { entropy: tf.Tensor1D; counts: tf.Tensor1D } {
  return tf.tidy(() => {
    const h = tf.reshape(tokenEntropy(logits), [1, -1]); // [1, N]
    const onehot = tf.oneHot(tf.reshape(tf.cast(targetClasses, 'int32'), [-1]), NUM_TOKEN_CLASSES); // [N, C]; −1 → zeros
    const sums = tf.reshape(tf.matMul(h, onehot), [-1]); // [C]
    const counts = tf.sum(onehot, 0) as tf.Tensor1D; // [C]
    return { entropy: tf.div(sums, tf.maximum(counts, 1)) as tf.Tensor1D, counts };
  });
}

/** Host view of entropyByClass: { actionHead: {entropy, count}, … } keyed by TOKEN_CLASS_NAMES. One download. */
export async function readEntropyByClass(result: {
  entropy: tf.Tensor1D;
  counts: tf.Tensor1D;
}): Promise<Record<(typeof TOKEN_CLASS_NAMES)[number], { entropy: number; count: number }>> {
  const packed = tf.concat([result.entropy, result.counts]);
  const d = await packed.data();
  packed.dispose();
  const out = {} as Record<(typeof TOKEN_CLASS_NAMES)[number], { entropy: number; count: number }>;
  TOKEN_CLASS_NAMES.forEach((name, i) => {
    out[name] = { entropy: d[i] ?? Number.NaN, count: d[NUM_TOKEN_CLASSES + i] ?? 0 };
  });
  return out;
}

/**
 * KL(π_init ‖ π) = Σ_v π_init(v)(log π_init(v) − log π(v)) per position, averaged over the positions where
 * `positionMask` [B, T] is 1 (all positions when omitted). initLogits and logits: [B, T, V] on the same probe set.
 */
export function klFromInit(initLogits: tf.Tensor, logits: tf.Tensor, positionMask?: tf.Tensor): tf.Scalar {
  return tf.tidy(() => {
    const logp0 = tf.logSoftmax(initLogits);
    const logp = tf.logSoftmax(logits);
    const kl = tf.sum(tf.mul(tf.exp(logp0), tf.sub(logp0, logp)), -1); // [B, T]
    return positionMask === undefined ? (tf.mean(kl) as tf.Scalar) : maskedMean(kl, positionMask);
  });
}

/** Observation cross-entropy: mean over observation targets of −log π(target) (nats; 0 when there are none). */
export function observationCE(logits: tf.Tensor, targets: tf.Tensor, targetClasses: tf.Tensor): tf.Scalar {
  return tf.tidy(() =>
    maskedMean(tf.neg(tokenLogProbs(logits, targets)), classMask(targetClasses, TokenClass.observation)),
  );
}
