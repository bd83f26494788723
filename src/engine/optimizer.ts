// Adam with an explicit epsilon, and its state as host tensors for checkpoints.
//
// tf.train.adam's default epsilon is backend-dependent: webgl reports float precision 16 when float32 render
// targets are on, and the default becomes 1e-4 there (1e-7 elsewhere), which changes training (STACK.md). The lab
// always passes epsilon explicitly so every backend runs the same optimiser.
import * as tf from '@tensorflow/tfjs';

export interface AdamConfig {
  learningRate: number;
  beta1: number;
  beta2: number;
  /** explicit on every backend (default 1e-8, PyTorch's) */
  epsilon: number;
}

export const DEFAULT_ADAM_CONFIG: Readonly<AdamConfig> = {
  learningRate: 1e-3,
  beta1: 0.9,
  beta2: 0.999,
  epsilon: 1e-8,
};

/** Host copy of one optimizer tensor (same shape as trainer/checkpoint's HostTensor). */
export interface HostTensor {
  shape: number[];
  dtype: 'float32' | 'int32';
  data: Float32Array | Int32Array;
}

/**
 * Adam state as ordered host tensors: `iter` (int32 scalar, steps taken) first, then the first moments, then the
 * second moments, in the order of the variables the optimizer has seen (tfjs matches moments to variables by
 * position). Keys are tfjs's names ("<variable>/m", "<variable>/v"); a JS object keeps insertion order.
 */
export type AdamState = Record<string, HostTensor>;

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

/** tf.train.adam with every hyper-parameter explicit (epsilon included). */
export function createAdam(config: Partial<AdamConfig> = {}): tf.AdamOptimizer {
  const c = resolveAdamConfig(config);
  return tf.train.adam(c.learningRate, c.beta1, c.beta2, c.epsilon);
}

/** Downloads the optimizer's state (iteration count and moments). Leaves no tensors behind. */
export async function getAdamState(optimizer: tf.AdamOptimizer): Promise<AdamState> {
  const weights = await optimizer.getWeights();
  const state: AdamState = {};
  for (const { name, tensor } of weights) {
    const dtype = tensor.dtype === 'int32' ? 'int32' : 'float32';
    const data = await tensor.data();
    state[name] = {
      shape: tensor.shape.slice(),
      dtype,
      data: dtype === 'int32' ? Int32Array.from(data) : Float32Array.from(data),
    };
  }
  // the iteration scalar is created fresh by getWeights; the moments are the optimizer's own variables
  const iter = weights[0];
  if (iter !== undefined && iter.name === 'iter') iter.tensor.dispose();
  return state;
}

/**
 * Restores a state from getAdamState into a fresh (or used) optimizer: the next step continues exactly where the
 * saved one left off. Disposes the moments the optimizer held before.
 */
export async function setAdamState(optimizer: tf.AdamOptimizer, state: AdamState): Promise<void> {
  const entries = Object.entries(state);
  const first = entries[0];
  if (first === undefined || first[0] !== 'iter') {
    throw new Error('setAdamState: the state must start with "iter" (the saved step count), as getAdamState writes it');
  }
  if ((entries.length - 1) % 2 !== 0) {
    throw new Error(`setAdamState: expected as many first as second moments, got ${entries.length - 1} moment tensors`);
  }
  const old = (await optimizer.getWeights()).map((w) => w.tensor);
  const named = entries.map(([name, h]) => ({ name, tensor: tf.tensor(h.data, h.shape, h.dtype) }));
  await optimizer.setWeights(named);
  // setWeights copies the moments into new variables; the temporaries and the previous moments can go
  tf.dispose(named.map((n) => n.tensor));
  tf.dispose(old);
}
