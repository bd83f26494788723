// One checked optimizer step, shared by SFT and the policy-gradient stages: loss, statistics and gradients; the
// squared gradient norm; finiteness checks of the named loss terms and of the gradient norm BEFORE the optimizer
// touches the weights (a failing step leaves the model and the last checkpoint as they were); then, when `gradClip`
// is set, the gradients scaled to that global L2 norm (verl's actor.grad_clip, torch's clip_grad_norm_: coefficient
// min(1, clip / (‖∇‖ + 1e-6))); then the update.
//
// Two paths, one contract:
// - host (cpu, wasm, webgpu with the fused kernels off): ONE batched read of every statistic, the checks and the
//   clip coefficient on the host, then the update — exactly as before, so cpu and wasm keep their bits;
// - device (webgpu, an optimizer with applyGuarded): the norm, the clip coefficient and an all-finite flag are
//   computed as tensors and handed to the Adam kernels, which scale by the coefficient and write nothing where the
//   flag is 0; nothing is read before the update. queueCheckedUpdate returns the statistics packed in one tensor,
//   read later (one read for all of a step's mini-batches, policyUpdate.ts); checkHostStats then raises the same
//   NonFiniteError the host path raises. The flag is chained (`okBefore`): once an update of a step is refused, the
//   step's later updates are refused too, so the weights end as the host path leaves them when it stops.
// On webgpu the work runs inside WebGPU error scopes whose results are collected without blocking the queue
// (webgpuDevice.ts), so a kernel the GPU refused stops the run with its name instead of returning stale buffers.
import * as tf from '@tensorflow/tfjs';
import { disposeStats, readStats, valueAndGradsWithStats, type LossOutput } from '../losses/lossTypes';
import { useFusedKernels } from '../kernels/kernelSwitch';
import { settleGpuErrorScopes, withDeferredGpuErrorScope, withGpuErrorScope } from '../webgpuDevice';
import { CLIP_EPS } from '../optimizer';
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

/** The keys the device path packs after the statistics (the caller's `alsoRead` first, then the statistics). */
const DEVICE_KEYS = ['loss', 'gradNormSq', 'clipCoef', 'ok'] as const;

/** Whether this update can be checked and clipped on the device (webgpu, fused kernels, a guarded optimizer). */
export function checksOnDevice(optimizer: TrainerOptimizer): boolean {
  return useFusedKernels() && typeof optimizer.applyGuarded === 'function';
}

/** An update queued on the device: its statistics in one float32 tensor, not yet read. */
export interface QueuedUpdate {
  /** [keys.length] float32: alsoRead, statistics, loss, gradNormSq, clipCoef, ok (1 applied, 0 refused) */
  packed: tf.Tensor1D;
  keys: string[];
  /** this update's flag times every earlier flag of the step: pass it as the next update's okBefore */
  ok: tf.Scalar;
}

/**
 * The device path: loss, gradients, ‖∇‖², the clip coefficient and the all-finite flag as tensors, the guarded
 * Adam update, and the statistics packed for one later read. Nothing is read to the host. `okBefore` (disposed by
 * the caller) is the flag of the step's earlier updates; null for the first. The caller owns the returned tensors.
 */
export function queueCheckedUpdate<K extends string>(
  req: CheckedUpdateRequest<K>,
  okBefore: tf.Scalar | null,
): QueuedUpdate {
  const apply = req.optimizer.applyGuarded;
  if (!useFusedKernels() || apply === undefined) {
    throw new Error('queueCheckedUpdate: only on webgpu with the fused kernels and a guarded optimizer');
  }
  const { value, grads, stats } = valueAndGradsWithStats(req.loss, req.variables);
  try {
    return tf.tidy(() => {
      const gradNormSq = sumOfSquares(Object.values(grads));
      // every named term and the norm finite (the host path's checks, as one flag)
      const checked = Object.keys(req.finiteTerms)
        .map((k) => stats[k as K])
        .filter((t): t is tf.Scalar => t !== undefined);
      // (min of a 0/1 cast, not tf.all: tfjs-webgpu's All over a bool tensor fails WGSL validation)
      const finite = tf.min(tf.cast(tf.isFinite(tf.stack([...checked, gradNormSq])), 'float32')) as tf.Scalar;
      const ok = (okBefore === null ? finite : tf.mul(okBefore, finite)) as tf.Scalar;
      const clip = req.gradClip;
      const clipCoef = (
        clip === null || clip === undefined || clip === 0
          ? tf.scalar(1)
          : tf.minimum(1, tf.div(clip, tf.add(tf.sqrt(gradNormSq), CLIP_EPS)))
      ) as tf.Scalar;
      apply.call(req.optimizer, grads, req.variables, { scale: clipCoef, ok });
      const named: [string, tf.Scalar][] = [
        ...Object.entries(req.alsoRead ?? {}),
        ...(Object.entries(stats) as [string, tf.Scalar][]),
        ['loss', value],
        ['gradNormSq', gradNormSq],
        ['clipCoef', clipCoef],
        ['ok', ok],
      ];
      const keys = named.map(([k]) => k);
      const packed = tf.stack(named.map(([, t]) => tf.cast(t, 'float32'))) as tf.Tensor1D;
      return { packed, keys, ok: tf.keep(ok) };
    });
  } finally {
    value.dispose();
    Object.values(grads).forEach((g) => g.dispose());
    disposeStats(stats);
  }
}

/** One queued update's values from the host copy of its packed tensor (`data` starting at `offset`). */
export function unpackUpdate(
  q: Pick<QueuedUpdate, 'keys'>,
  data: ArrayLike<number>,
  offset = 0,
): CheckedUpdateResult<string> {
  const host: Record<string, number> = {};
  q.keys.forEach((k, i) => {
    host[k] = data[offset + i] ?? Number.NaN;
  });
  const clipCoef = host.clipCoef as number;
  for (const k of DEVICE_KEYS.slice(2)) delete host[k];
  return { host: host as CheckedUpdateResult<string>['host'], clipCoef };
}

/**
 * The host path's checks on read values: throws the NonFiniteError naming the first non-finite term (in
 * `finiteTerms` order), then the gradient norm — the same error, message included, as the host path.
 */
export function checkHostStats<K extends string>(
  req: Pick<CheckedUpdateRequest<K>, 'stage' | 'step' | 'finiteTerms'>,
  host: Partial<Record<string, number>>,
): void {
  for (const [key, term] of Object.entries(req.finiteTerms) as [K, string][]) {
    const v = host[key];
    if (v !== undefined && !Number.isFinite(v))
      throw new NonFiniteError(req.stage, req.step, term, `${term} loss = ${v}`);
  }
  const n = host.gradNormSq;
  if (n === undefined || !Number.isFinite(n)) throw new NonFiniteError(req.stage, req.step, 'gradient', `‖∇‖² = ${n}`);
}

/**
 * checkHostStats for the device path: when it throws, the device has refused this update and the `refused` − 1
 * queued after it (the chained flag), so their iteration count is taken back before the error goes on.
 */
export function checkRefused<K extends string>(
  req: Pick<CheckedUpdateRequest<K>, 'stage' | 'step' | 'finiteTerms' | 'optimizer'>,
  host: Partial<Record<string, number>>,
  refused: number,
): void {
  try {
    checkHostStats(req, host);
  } catch (e) {
    req.optimizer.forgetRefused?.(refused);
    throw e;
  }
}

export async function checkedUpdate<K extends string>(req: CheckedUpdateRequest<K>): Promise<CheckedUpdateResult<K>> {
  const where = `${req.stage} step ${req.step}`;
  if (checksOnDevice(req.optimizer)) {
    const q = withDeferredGpuErrorScope(where, () => queueCheckedUpdate(req, null));
    try {
      const data = await q.packed.data();
      // the scope's pops resolve once the device has finished its work, which the read above waited for
      await settleGpuErrorScopes(where);
      const r = unpackUpdate(q, data);
      checkRefused(req, r.host, 1);
      return r as CheckedUpdateResult<K>;
    } finally {
      q.packed.dispose();
      q.ok.dispose();
    }
  }
  return hostCheckedUpdate(req);
}

/** The host path: one read of every statistic, the checks and the clip coefficient on the host, then the update. */
async function hostCheckedUpdate<K extends string>(req: CheckedUpdateRequest<K>): Promise<CheckedUpdateResult<K>> {
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
      checkHostStats(req, host);
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
