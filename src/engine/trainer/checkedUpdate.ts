// One checked optimizer step, shared by SFT and the policy-gradient stages: loss, statistics and gradients; the
// squared gradient norm; ONE batched GPU→CPU readback of every statistic; finiteness checks of the named loss terms
// and of the gradient norm BEFORE the optimizer touches the weights (a failing step leaves the model and the last
// checkpoint as they were); then, when `gradClip` is set, the gradients scaled to that global L2 norm (verl's
// actor.grad_clip, torch's clip_grad_norm_: coefficient min(1, clip / (‖∇‖ + 1e-6))); then the update. On webgpu the whole step runs inside WebGPU error scopes, so a kernel
// the GPU refused stops the run with its name instead of returning stale buffers.
import * as tf from '@tensorflow/tfjs';
import { disposeStats, readStats, valueAndGradsWithStats, type LossOutput } from '../losses/lossTypes';
import { withGpuErrorScope } from '../webgpuDevice';
import type { TrainerOptimizer } from './enginePort';
import { NonFiniteError, type StageName } from './events';

export interface CheckedUpdateRequest<K extends string> {
  stage: StageName;
  step: number;
  optimizer: TrainerOptimizer;
  variables: tf.Variable[];
  /** the differentiable loss and its statistics (kept past the gradient scope) */
  loss: () => LossOutput<K>;
  /** statistics that must be finite, with the term name a NonFiniteError reports ("grpo", "opd", "sft") */
  finiteTerms: Partial<Record<K, string>>;
  /** the largest global L2 norm of the gradient the optimizer is given (null, undefined or 0: no clipping) */
  gradClip?: number | null;
  /**
   * scalars the caller wants on the host as well (e.g. the step's gap g_k): read in the same read-back as the
   * statistics and returned in `host` under their keys, so they cost no read of their own; the caller owns them
   */
  alsoRead?: Record<string, tf.Scalar>;
}

export interface CheckedUpdateResult<K extends string> {
  /** every statistic, the loss value as `loss`, and the squared gradient norm as `gradNormSq` (before clipping) */
  host: Record<K, number> & Record<'loss' | 'gradNormSq', number> & Partial<Record<string, number>>;
  /** the factor the gradients were multiplied by before the update: 1 = not clipped */
  clipCoef: number;
}

/** torch.nn.utils.clip_grad_norm_'s guard against a zero norm */
const CLIP_EPS = 1e-6;

/**
 * The factor clip_grad_norm_ scales every gradient by: min(1, maxNorm / (norm + 1e-6)); 1 when clipping is off
 * (maxNorm null, undefined or 0). `norm` is the global L2 norm over all parameters.
 */
export function gradClipCoefficient(norm: number, maxNorm: number | null | undefined): number {
  if (maxNorm === null || maxNorm === undefined || maxNorm === 0) return 1;
  return Math.min(1, maxNorm / (norm + CLIP_EPS));
}

/** Σ over tensors of Σ g²: one scalar (tf.addN; on webgpu the lab's AddN sums within the storage-buffer limit). */
function sumOfSquares(tensors: readonly tf.Tensor[]): tf.Scalar {
  return tf.tidy(() =>
    tensors.length === 0 ? tf.scalar(0) : (tf.addN(tensors.map((g) => tf.sum(tf.square(g)))) as tf.Scalar),
  );
}

export async function checkedUpdate<K extends string>(req: CheckedUpdateRequest<K>): Promise<CheckedUpdateResult<K>> {
  return withGpuErrorScope(`${req.stage} step ${req.step}`, async () => {
    const { value, grads, stats } = valueAndGradsWithStats(req.loss, req.variables);
    const gradNormSq = sumOfSquares(Object.values(grads));
    try {
      const host = (await readStats({
        ...req.alsoRead,
        ...stats,
        loss: value,
        gradNormSq,
      })) as CheckedUpdateResult<K>['host'];
      for (const [key, term] of Object.entries(req.finiteTerms) as [K, string][]) {
        const v = host[key];
        if (v !== undefined && !Number.isFinite(v))
          throw new NonFiniteError(req.stage, req.step, term, `${term} loss = ${v}`);
      }
      if (!Number.isFinite(host.gradNormSq))
        throw new NonFiniteError(req.stage, req.step, 'gradient', `‖∇‖² = ${host.gradNormSq}`);
      const clipCoef = gradClipCoefficient(Math.sqrt(host.gradNormSq), req.gradClip);
      if (clipCoef < 1) {
        for (const [name, g] of Object.entries(grads)) {
          grads[name] = tf.tidy(() => tf.mul(g, clipCoef));
          g.dispose();
        }
      }
      req.optimizer.apply(grads, req.variables);
      return { host, clipCoef };
    } finally {
      value.dispose();
      gradNormSq.dispose();
      Object.values(grads).forEach((g) => g.dispose());
      disposeStats(stats);
    }
  });
}
