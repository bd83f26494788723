// The losses of ../losses on the fused webgpu kernels: one row-statistics dispatch (log-probs, and entropy or full
// KL) and one reduction dispatch forward, the same two backward, plus one slice per reported statistic. Same
// values, gradients and statistics as the composed versions (checked in test/engine/kernels/fusedKernels.test.ts);
// the loss modules call these when useFusedKernels() is true. Shapes follow ../losses/README.md.
import * as tf from '@tensorflow/tfjs';
import type { OpdInputs } from '../lossInputs';
import { GRPO_STATS, grpoReduce } from './webgpuGrpoReduce';
import { OPD_STATS, opdReduce } from './webgpuOpdReduce';
import { SFT_STATS, sftReduce } from './webgpuSftReduce';
import { rowStats, type RowStatsMode } from './webgpuTokenStats';

/** Row statistics of logits [..., V] with targets [...] → one tensor per plane, each of the targets' shape. */
export function fusedRowStats(
  mode: RowStatsMode,
  logits: tf.Tensor,
  targets?: tf.Tensor,
  teacherLogits?: tf.Tensor,
): tf.Tensor[] {
  return tf.tidy(() => {
    const V = logits.shape[logits.shape.length - 1] as number;
    const lead = logits.shape.slice(0, -1);
    const R = lead.reduce((a, b) => a * b, 1);
    const out = rowStats(
      mode,
      tf.reshape(logits, [R, V]),
      targets === undefined ? undefined : tf.reshape(targets, [R]),
      teacherLogits === undefined ? undefined : tf.reshape(teacherLogits, [R, V]),
    );
    if (out.rank === 1) return [tf.reshape(out, lead)];
    const planes = out.shape[0] as number;
    return Array.from({ length: planes }, (_, p) => tf.reshape(tf.slice(out, [p, 0], [1, R]), lead));
  });
}

/** Scalars of a packed statistics vector, by name (one slice each). */
function unpackStats<K extends string>(vec: tf.Tensor, names: readonly K[]): Record<K, tf.Scalar> {
  const out = {} as Record<K, tf.Scalar>;
  names.forEach((n, i) => (out[n] = tf.reshape(tf.slice(vec, [i], [1]), []) as tf.Scalar));
  return out;
}

function rowsOf(logits: tf.Tensor): { R: number; V: number } {
  const V = logits.shape[logits.shape.length - 1] as number;
  return { R: logits.size / V, V };
}

/** weightedSftLoss (../losses/actObsLoss.ts) fused. Stats as SFT_STATS. */
export function fusedSftLoss(
  logits: tf.Tensor,
  targets: tf.Tensor,
  targetClasses: tf.Tensor,
  actionWeight: number,
  observationWeight: number,
): { loss: tf.Scalar; stats: Record<(typeof SFT_STATS)[number], tf.Scalar> } {
  return tf.tidy(() => {
    const { R, V } = rowsOf(logits);
    const lp = rowStats('lp', tf.reshape(logits, [R, V]), tf.reshape(targets, [R])); // [B·T]
    const vec = sftReduce(tf.reshape(lp, targetClasses.shape), targetClasses, actionWeight, observationWeight);
    const stats = unpackStats(vec, SFT_STATS);
    return { loss: stats.loss, stats };
  });
}

/** grpoLoss (../losses/grpoLoss.ts) fused. aggregation code: 0 token-mean, 1 seq-mean-token-sum, 2 seq-mean-token-mean. */
export function fusedGrpoLoss(
  inputs: {
    logits: tf.Tensor;
    targets: tf.Tensor;
    targetClasses: tf.Tensor;
    oldLogProbs: tf.Tensor;
    advantages: tf.Tensor;
    refLogProbs?: tf.Tensor;
  },
  config: {
    clipLow: number;
    clipHigh: number;
    klCoef: number;
    clipRatioC: number | null;
    aggregation: 0 | 1 | 2;
    computeEntropy: boolean;
  },
): { loss: tf.Scalar; stats: Record<(typeof GRPO_STATS)[number], tf.Scalar> } {
  return tf.tidy(() => {
    const { logits, targets, targetClasses } = inputs;
    const { R, V } = rowsOf(logits);
    const batch = targetClasses.shape[0] as number;
    const rows = rowStats(config.computeEntropy ? 'lpEnt' : 'lp', tf.reshape(logits, [R, V]), tf.reshape(targets, [R]));
    const vec = grpoReduce(
      rows,
      inputs.oldLogProbs,
      targetClasses,
      tf.reshape(inputs.advantages, [batch]),
      inputs.refLogProbs,
      {
        clipLow: config.clipLow,
        clipHigh: config.clipHigh,
        klCoef: config.klCoef,
        clipRatioC: config.clipRatioC ?? 0,
        aggregation: config.aggregation,
        hasEntropy: config.computeEntropy,
      },
    );
    const stats = unpackStats(vec, GRPO_STATS);
    if (!config.computeEntropy) stats.entropy = tf.scalar(Number.NaN);
    return { loss: stats.loss, stats };
  });
}

/** opdLoss (../losses/opdLoss.ts) fused. estimator code: 0 k3, 1 full (needs teacherLogits), 2 naive. */
export function fusedOpdLoss(
  inputs: OpdInputs,
  config: { estimator: 0 | 1 | 2; logRatioCap: number; negEllCap: number },
): { loss: tf.Scalar; stats: Record<(typeof OPD_STATS)[number], tf.Scalar> } {
  return tf.tidy(() => {
    const { logits, targets, targetClasses } = inputs;
    const { R, V } = rowsOf(logits);
    const full = config.estimator === 1;
    if (full && inputs.teacherLogits === undefined)
      throw new Error('fusedOpdLoss: the full estimator needs teacherLogits');
    const rows = rowStats(
      full ? 'lpKl' : 'lp',
      tf.reshape(logits, [R, V]),
      tf.reshape(targets, [R]),
      full ? tf.reshape(inputs.teacherLogits as tf.Tensor, [R, V]) : undefined,
    );
    const vec = opdReduce(rows, inputs.teacherLogProbs, inputs.oldLogProbs, targetClasses, config);
    const stats = unpackStats(vec, OPD_STATS);
    return { loss: stats.loss, stats };
  });
}
