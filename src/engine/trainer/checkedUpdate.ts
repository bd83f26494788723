// One checked optimizer step, shared by SFT and the policy-gradient stages: loss, statistics and gradients; the
// squared gradient norm; ONE batched GPU→CPU readback of every statistic; finiteness checks of the named loss terms
// and of the gradient norm BEFORE the optimizer touches the weights (a failing step leaves the model and the last
// checkpoint as they were); then the update. On webgpu the whole step runs inside WebGPU error scopes, so a kernel
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
}

export interface CheckedUpdateResult<K extends string> {
  /** every statistic, the loss value as `loss`, and the squared gradient norm as `gradNormSq` */
  host: Record<K, number> & Record<'loss' | 'gradNormSq', number>;
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
      const host = (await readStats({ ...stats, loss: value, gradNormSq })) as CheckedUpdateResult<K>['host'];
      for (const [key, term] of Object.entries(req.finiteTerms) as [K, string][]) {
        const v = host[key];
        if (v !== undefined && !Number.isFinite(v))
          throw new NonFiniteError(req.stage, req.step, term, `${term} loss = ${v}`);
      }
      if (!Number.isFinite(host.gradNormSq))
        throw new NonFiniteError(req.stage, req.step, 'gradient', `‖∇‖² = ${host.gradNormSq}`);
      req.optimizer.apply(grads, req.variables);
      return { host };
    } finally {
      value.dispose();
      gradNormSq.dispose();
      Object.values(grads).forEach((g) => g.dispose());
      disposeStats(stats);
    }
  });
}
