// One wasm kernel per variable for an Adam step, instead of tfjs's 14 (mul, mul, add, square, mul, mul, add, div,
// div, sqrt, add, div, mul, add). It reads p, m, v, g and the two bias corrections from the wasm heap and writes
// m', v', p' with the SAME float32 operations in the same order as tfjs's AdamOptimizer.applyGradients: every
// intermediate is rounded to float32 (Math.fround), and a float32 +, −, ×, ÷ or √ computed in float64 and then
// rounded is exactly the float32 result (float64 has more than 2·24 + 2 bits), so the update is bit-identical to
// the composed kernels and the wasm pins do not move.
//   'RetireAdamStep' p, m, v, g, c1 = 1 − β1^t, c2 = 1 − β2^t (float32 scalars) → [m', v', p'] where
//   m' = m·β1 + g·(1 − β1); v' = v·β2 + g²·(1 − β2); p' = ((m'/c1) / (√(v'/c2) + ε))·(−lr) + p
import * as tf from '@tensorflow/tfjs';
import type { WasmBackendLike } from './wasmBackendLike';

export const WASM_ADAM_KERNEL = 'RetireAdamStep';

const f = Math.fround;

const adamStep: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const { beta1, beta2, learningRate, epsilon } = attrs as unknown as {
    beta1: number;
    beta2: number;
    learningRate: number;
    epsilon: number;
  };
  const names = ['p', 'm', 'v', 'g', 'c1', 'c2'] as const;
  const ins = names.map((n) => {
    const t = inputs[n];
    if (t === undefined || t.dtype !== 'float32') throw new Error(`${WASM_ADAM_KERNEL}: input '${n}' must be float32`);
    return t;
  });
  const b = backend as unknown as WasmBackendLike;
  const shape = (ins[0] as tf.TensorInfo).shape.slice();
  const outs = [b.makeOutput(shape, 'float32'), b.makeOutput(shape, 'float32'), b.makeOutput(shape, 'float32')];
  // views after every allocation (makeOutput may grow the heap and detach older views)
  const [p, m, v, g, c1a, c2a] = ins.map((t) => b.typedArrayFromHeap(t)) as [
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
  ];
  const [mo, vo, po] = outs.map((t) => b.typedArrayFromHeap(t)) as [Float32Array, Float32Array, Float32Array];
  // the scalars tfjs makes of the JS numbers: float32
  const b1 = f(beta1);
  const omb1 = f(1 - beta1);
  const b2 = f(beta2);
  const omb2 = f(1 - beta2);
  const eps = f(epsilon);
  const negLr = f(-learningRate);
  const c1 = c1a[0] as number;
  const c2 = c2a[0] as number;
  for (let i = 0; i < p.length; i++) {
    const gi = g[i] as number;
    const mi = f(f((m[i] as number) * b1) + f(gi * omb1));
    const vi = f(f((v[i] as number) * b2) + f(f(gi * gi) * omb2));
    const mHat = f(mi / c1);
    const vHat = f(vi / c2);
    mo[i] = mi;
    vo[i] = vi;
    po[i] = f(f(f(mHat / f(f(Math.sqrt(vHat)) + eps)) * negLr) + (p[i] as number));
  }
  return outs;
};

export const wasmAdamKernelConfig: tf.KernelConfig = {
  kernelName: WASM_ADAM_KERNEL,
  backendName: 'wasm',
  kernelFunc: adamStep,
};
