// Adam with an explicit epsilon, and its state as host tensors for checkpoints.
//
// tf.train.adam's default epsilon is backend-dependent: webgl reports float precision 16 when float32 render
// targets are on, and the default becomes 1e-4 there (1e-7 elsewhere), which changes training (docs/platform-notes.md). The lab
// always passes epsilon explicitly so every backend runs the same optimiser.
import * as tf from '@tensorflow/tfjs';
import { WebgpuAdamOptimizer } from './kernels/webgpuAdam';
import { readFloat32Batch, type HostTensor } from './hostTensor';

export interface AdamConfig {
  learningRate: number;
  beta1: number;
  beta2: number;
  /** explicit on every backend (default 1e-8, PyTorch's) */
  epsilon: number;
}

const DEFAULT_ADAM_CONFIG: Readonly<AdamConfig> = {
  learningRate: 1e-3,
  beta1: 0.9,
  beta2: 0.999,
  epsilon: 1e-8,
};

/**
 * Adam state as ordered host tensors: `iter` (int32 scalar, steps taken) first, then the bias-correction
 * accumulators `beta1_power` and `beta2_power` (float32 scalars: β1^(t+1) and β2^(t+1) as tfjs keeps them, a running
 * float32 product), then the first moments, then the second moments, in the order of the variables the optimizer has
 * seen (tfjs matches moments to variables by position). Moment keys are tfjs's names ("<variable>/m",
 * "<variable>/v"); a JS object keeps insertion order.
 *
 * The accumulators are part of the state because tfjs's own setWeights recomputes them as pow(β, t+1), which differs
 * from the running product in the last bits for most t (on the cpu backend already at t = 2 and 5 with β1 = 0.9):
 * restoring the saved products is what makes a resumed run bit-identical.
 */
export type AdamState = Record<string, HostTensor>;

/** Keys of the bias-correction accumulators in an AdamState. */
const ADAM_POWER_KEYS = { beta1: 'beta1_power', beta2: 'beta2_power' } as const;
/**
 * Where checkpoints of trainer state version 1 (written before the accumulators moved here) kept them: appended
 * after the moments by the trainer's engine adapter. Read as aliases so those checkpoints still resume.
 */
const LEGACY_POWER_KEYS = { beta1: 'adam-bias-correction/accBeta1', beta2: 'adam-bias-correction/accBeta2' } as const;

/** tfjs's private running products β1^(t+1), β2^(t+1) of an AdamOptimizer (float32 scalar variables). */
function accumulators(optimizer: tf.AdamOptimizer): { accBeta1: tf.Variable; accBeta2: tf.Variable } {
  const acc = optimizer as unknown as { accBeta1?: tf.Variable; accBeta2?: tf.Variable };
  if (typeof acc.accBeta1?.assign !== 'function' || typeof acc.accBeta2?.assign !== 'function') {
    throw new Error(
      'Adam state: this tfjs AdamOptimizer has no accBeta1/accBeta2 variables (tfjs internals changed); the optimizer state cannot be saved bit-exactly',
    );
  }
  return { accBeta1: acc.accBeta1, accBeta2: acc.accBeta2 };
}

/** torch.nn.utils.clip_grad_norm_'s guard against a zero norm: coefficient min(1, maxNorm / (‖∇‖ + CLIP_EPS)) */
export const CLIP_EPS = 1e-6;

export function resolveAdamConfig(partial: Partial<AdamConfig> = {}): AdamConfig {
  for (const key of Object.keys(partial)) {
    if (!(key in DEFAULT_ADAM_CONFIG)) {
      throw new Error(
        `Adam config: unknown key "${key}" (expected one of ${Object.keys(DEFAULT_ADAM_CONFIG).join(', ')})`,
      );
    }
  }
  const c = { ...DEFAULT_ADAM_CONFIG, ...partial };
  if (!(c.learningRate > 0 && Number.isFinite(c.learningRate)))
    throw new Error(`Adam config: learningRate must be > 0, got ${c.learningRate}`);
  if (!(c.beta1 >= 0 && c.beta1 < 1)) throw new Error(`Adam config: beta1 must be in [0, 1), got ${c.beta1}`);
  if (!(c.beta2 >= 0 && c.beta2 < 1)) throw new Error(`Adam config: beta2 must be in [0, 1), got ${c.beta2}`);
  if (!(c.epsilon > 0 && Number.isFinite(c.epsilon)))
    throw new Error(`Adam config: epsilon must be > 0, got ${c.epsilon}`);
  return c;
}

/**
 * tf.train.adam with every hyper-parameter explicit (epsilon included). On webgpu its update runs as fused WGSL
 * kernels (kernels/webgpuAdam.ts: same state, same checkpoint format), and its applyGuardedGradients takes the clip
 * coefficient and the all-finite flag as device scalars; elsewhere it is tfjs's Adam unchanged.
 */
export function createAdam(config: Partial<AdamConfig> = {}): WebgpuAdamOptimizer {
  const c = resolveAdamConfig(config);
  return new WebgpuAdamOptimizer(c.learningRate, c.beta1, c.beta2, c.epsilon);
}

function hostOf(tensor: tf.Tensor, data: ArrayLike<number>): HostTensor {
  const dtype = tensor.dtype === 'int32' ? 'int32' : 'float32';
  return {
    shape: tensor.shape.slice(),
    dtype,
    data: dtype === 'int32' ? Int32Array.from(data) : Float32Array.from(data),
  };
}

/** Downloads the optimizer's state (iteration count, bias-correction accumulators, moments). Leaves no tensors behind. */
export async function getAdamState(optimizer: tf.AdamOptimizer): Promise<AdamState> {
  const { accBeta1, accBeta2 } = accumulators(optimizer);
  const weights = await optimizer.getWeights();
  const [iter, ...moments] = weights;
  if (iter === undefined || iter.name !== 'iter')
    throw new Error('Adam state: tfjs getWeights did not start with "iter"');
  // every float32 part in one read-back (readFloat32Batch), any other dtype on its own
  const parts: [string, tf.Tensor][] = [
    ['iter', iter.tensor],
    [ADAM_POWER_KEYS.beta1, accBeta1],
    [ADAM_POWER_KEYS.beta2, accBeta2],
    ...moments.map(({ name, tensor }): [string, tf.Tensor] => [name, tensor]),
  ];
  const floats = parts.filter(([, t]) => t.dtype === 'float32');
  const floatData = await readFloat32Batch(floats.map(([, t]) => t));
  const byName = new Map(floats.map(([name], i) => [name, floatData[i] as Float32Array]));
  const state = {} as AdamState;
  for (const [name, tensor] of parts) state[name] = hostOf(tensor, byName.get(name) ?? (await tensor.data()));
  // the iteration scalar is created fresh by getWeights; the moments are the optimizer's own variables
  iter.tensor.dispose();
  return state;
}

/**
 * Restores a state from getAdamState into a fresh (or used) optimizer: the next step continues bit-exactly where
 * the saved one left off (moments, step count and the accumulated powers β^(t+1) themselves). Disposes the moments
 * the optimizer held before. Also reads the state layout of trainer checkpoints version 1 (accumulators appended
 * under "adam-bias-correction/…"); a state without accumulators is refused, since it cannot resume bit-exactly.
 */
export async function setAdamState(optimizer: tf.AdamOptimizer, state: AdamState): Promise<void> {
  const { accBeta1, accBeta2 } = accumulators(optimizer);
  const first = Object.keys(state)[0];
  if (first !== 'iter') {
    throw new Error('setAdamState: the state must start with "iter" (the saved step count), as getAdamState writes it');
  }
  const powerOf = (which: 'beta1' | 'beta2'): number => {
    const h = state[ADAM_POWER_KEYS[which]] ?? state[LEGACY_POWER_KEYS[which]];
    const v = h?.data[0];
    if (h === undefined || h.data.length !== 1 || v === undefined || !(v >= 0 && v < 1)) {
      throw new Error(
        `setAdamState: the state has no valid "${ADAM_POWER_KEYS[which]}" (a float32 scalar in [0, 1)); it was saved by an older RetireLab and cannot resume bit-exactly — start the run again`,
      );
    }
    return v;
  };
  const p1 = powerOf('beta1');
  const p2 = powerOf('beta2');
  const skip = new Set<string>([...Object.values(ADAM_POWER_KEYS), ...Object.values(LEGACY_POWER_KEYS)]);
  const entries = Object.entries(state).filter(([name]) => !skip.has(name));
  if ((entries.length - 1) % 2 !== 0) {
    throw new Error(`setAdamState: expected as many first as second moments, got ${entries.length - 1} moment tensors`);
  }
  const old = (await optimizer.getWeights()).map((w) => w.tensor);
  const named = entries.map(([name, h]) => ({ name, tensor: tf.tensor(h.data, h.shape, h.dtype) }));
  await optimizer.setWeights(named);
  // setWeights copies the moments into new variables; the temporaries and the previous moments can go
  tf.dispose(named.map((n) => n.tensor));
  tf.dispose(old);
  // setWeights has just set the accumulators to pow(β, t+1); put the saved running products back
  tf.tidy(() => {
    accBeta1.assign(tf.scalar(p1, 'float32'));
    accBeta2.assign(tf.scalar(p2, 'float32'));
  });
}
