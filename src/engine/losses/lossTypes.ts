// Shared shapes of the loss modules: the target convention, token-class masks, and packed statistics.
//
// Convention (every loss in this folder): a batch of sequences `tokens` [B, T] gives logits [B, T, V]; position t
// predicts token t + 1. `targets[b, t] = tokens[b, t + 1]` and `targetClasses[b, t] = classes[b, t + 1]` (the class of
// the TARGET, src/core/env/types TokenClass); the last position has no target: its class is NO_TARGET (-1) and it
// never carries loss. Per-target arrays the engine records (old / teacher / reference log-probs) use the same
// alignment: value at t is the log-prob of targets[b, t].
import * as tf from '@tensorflow/tfjs';
import { TokenClass } from '../../core/env/types';
import type { TokenStats } from '../lossInputs';

export type { OpdInputs, TokenStats } from '../lossInputs';

/** Class id of a position without a target (the last position, padding). */
export const NO_TARGET = -1;

/** Targets and target classes shifted by one, as host arrays [B·T] (row-major). */
export interface ShiftedTargets {
  targets: Int32Array;
  targetClasses: Int32Array;
}

/**
 * Shifts host token/class arrays [B·T] by one position: target t = token t + 1, class of target t = class t + 1.
 * The last position of each row gets target 0 (<pad>) and class NO_TARGET. `lengths` (optional, per row) marks where
 * each row's real tokens end: positions whose target index is ≥ length get NO_TARGET too.
 */
export function shiftTargets(
  tokens: ArrayLike<number>,
  classes: ArrayLike<number>,
  batch: number,
  seqLen: number,
  lengths?: ArrayLike<number>,
): ShiftedTargets {
  const n = batch * seqLen;
  if (tokens.length !== n || classes.length !== n) {
    throw new Error(
      `shiftTargets: expected tokens and classes of length batch·seqLen = ${n}, got ${tokens.length} and ${classes.length}`,
    );
  }
  const targets = new Int32Array(n);
  const targetClasses = new Int32Array(n).fill(NO_TARGET);
  for (let b = 0; b < batch; b++) {
    const len = lengths === undefined ? seqLen : Math.min(seqLen, lengths[b] ?? seqLen);
    for (let t = 0; t + 1 < len; t++) {
      const i = b * seqLen + t;
      targets[i] = tokens[i + 1] ?? 0;
      targetClasses[i] = classes[i + 1] ?? NO_TARGET;
    }
  }
  return { targets, targetClasses };
}

/** 1 where the target is a policy token (actionHead or actionArg), else 0. [B, T] float32. */
export function actionMask(targetClasses: tf.Tensor): tf.Tensor {
  return tf.tidy(() =>
    tf.cast(
      tf.logicalOr(tf.equal(targetClasses, TokenClass.actionHead), tf.equal(targetClasses, TokenClass.actionArg)),
      'float32',
    ),
  );
}

/** 1 where the target has class `cls`, else 0. [B, T] float32. */
export function classMask(targetClasses: tf.Tensor, cls: number): tf.Tensor {
  return tf.tidy(() => tf.cast(tf.equal(targetClasses, cls), 'float32'));
}

/** Σ x·mask / max(1, Σ mask): a masked mean that is 0 (not NaN) when nothing is masked in. Scalar. */
export function maskedMean(x: tf.Tensor, mask: tf.Tensor): tf.Scalar {
  return tf.tidy(() => tf.div(tf.sum(tf.mul(x, mask)), tf.maximum(tf.sum(mask), 1)) as tf.Scalar);
}

/**
 * What every loss returns: the differentiable scalar `loss` and named scalar statistics (not meant to be
 * differentiated). Read the statistics with `readStats`, which moves them to the host in ONE read.
 */
export interface LossOutput<K extends string> {
  loss: tf.Scalar;
  stats: Record<K, tf.Scalar>;
}

/**
 * Reads named scalars in one batched download (one `await data()`), disposing nothing it was given. Known keys are
 * typed `number`; other string keys read as `number | undefined` (records built with dynamic names).
 */
export async function readStats<S extends Record<string, tf.Scalar>>(
  stats: S,
): Promise<Record<keyof S & string, number> & Partial<Record<string, number>>> {
  type K = keyof S & string;
  const names = Object.keys(stats) as K[];
  const out = {} as Record<K, number>;
  if (names.length === 0) return out;
  const packed = tf.tidy(() => tf.stack(names.map((k) => tf.cast(stats[k] as tf.Scalar, 'float32'))));
  const data = await packed.data();
  packed.dispose();
  names.forEach((k, i) => {
    out[k] = data[i] ?? Number.NaN;
  });
  return out;
}

/** Disposes every statistic tensor. */
export function disposeStats(stats: Record<string, tf.Scalar>): void {
  for (const t of Object.values(stats)) t.dispose();
}

/**
 * Loss value, gradients of the trainable variables (or `varList`) and the statistics, from a loss that returns a
 * LossOutput. The statistics are kept past the gradient scope; the caller disposes `value`, `grads` and `stats`.
 */
export function valueAndGradsWithStats<K extends string>(
  f: () => LossOutput<K>,
  varList?: tf.Variable[],
): { value: tf.Scalar; grads: tf.NamedTensorMap; stats: Record<K, tf.Scalar> } {
  let stats: Record<K, tf.Scalar> | undefined;
  const { value, grads } = tf.variableGrads(() => {
    const out = f();
    for (const t of Object.values(out.stats) as tf.Scalar[]) tf.keep(t);
    stats = out.stats;
    return out.loss;
  }, varList);
  if (stats === undefined) throw new Error('valueAndGradsWithStats: the loss function returned no statistics');
  return { value, grads, stats };
}

/** `stats` when it was made from these logits and targets (the same tensors); a loss given another's throws. */
export function checkedTokenStats(
  who: string,
  stats: TokenStats | undefined,
  logits: tf.Tensor,
  targets: tf.Tensor,
): TokenStats | undefined {
  if (stats !== undefined && (stats.logits !== logits || stats.targets !== targets)) {
    throw new Error(`${who}: tokenStats was made from other logits or targets than the ones given`);
  }
  return stats;
}
