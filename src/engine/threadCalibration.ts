// Start-up calibration of the wasm thread count: time a few W1-shaped products (the reference model's linear layer
// and its batched attention scores) on the active wasm backend, once per candidate thread count, and keep the
// fastest. tfjs-wasm fixes its binary and thread count when the module first loads, so each candidate runs in its own
// short-lived worker (src/app/train/startupCalibration.ts); this file holds the probe, core/threadChoice.ts the choice.
import * as tf from '@tensorflow/tfjs';

export { chooseThreads, type ThreadCalibration, type ThreadTiming } from '../core/threadChoice';

/**
 * Median ms of 3 timed runs (after one warm-up) of W1-shaped products on the active backend: [8128, 64]·[64, 256]
 * (an MLP layer of batch 64 × 127 tokens) and [256, 127, 16]·[256, 127, 16]ᵀ (attention scores of 64 sequences ×
 * 4 heads). About 0.1 s on one thread of a 2-core Xeon; leaves no tensors behind.
 */
export async function timeProbe(): Promise<number> {
  const x = tf.randomUniform([8128, 64]);
  const w = tf.randomUniform([64, 256]);
  const q = tf.randomUniform([256, 127, 16]);
  const once = async (): Promise<number> => {
    const t0 = performance.now();
    const [a, b] = tf.tidy(() => [tf.matMul(x, w), tf.matMul(q, q, false, true)]) as [tf.Tensor, tf.Tensor];
    await Promise.all([a.data(), b.data()]);
    tf.dispose([a, b]);
    return performance.now() - t0;
  };
  try {
    await once();
    const times = [await once(), await once(), await once()].sort((p, r) => p - r);
    return times[1] as number;
  } finally {
    tf.dispose([x, w, q]);
  }
}
