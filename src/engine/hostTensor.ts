// Tensors as plain host arrays: the form checkpoints, optimizer state and shipped weights take between the engine
// and storage. A host copy is enough to rebuild its tensor bit-exactly.
import * as tf from '@tensorflow/tfjs';
import type { WeightRecord } from './weights';

/** inputs per concat: WebGPU binds inputs + output as storage buffers, 8 per stage by default (kept well under) */
const CONCAT_GROUP = 6;

/**
 * The values of many float32 tensors in ONE read-back: flattened, concatenated on the device (a tree of concats of
 * at most CONCAT_GROUP inputs, so no program exceeds WebGPU's storage-buffer limit), read once and cut on the host.
 * A concat copies bits, so every array equals what tensor.data() gives. Returns fresh arrays in input order.
 */
export async function readFloat32Batch(tensors: readonly tf.Tensor[]): Promise<Float32Array[]> {
  if (tensors.length === 0) return [];
  for (const t of tensors)
    if (t.dtype !== 'float32') throw new Error(`readFloat32Batch: a ${t.dtype} tensor of shape [${t.shape}]`);
  const flat = tf.tidy(() => {
    let level: tf.Tensor[] = tensors.map((t) => tf.reshape(t, [-1]));
    while (level.length > 1) {
      const next: tf.Tensor[] = [];
      for (let i = 0; i < level.length; i += CONCAT_GROUP) {
        const group = level.slice(i, i + CONCAT_GROUP);
        next.push(group.length === 1 ? (group[0] as tf.Tensor) : tf.concat(group));
      }
      level = next;
    }
    return level[0] as tf.Tensor;
  });
  let all: Float32Array;
  try {
    all = (await flat.data()) as Float32Array;
  } finally {
    flat.dispose();
  }
  const out: Float32Array[] = [];
  let at = 0;
  for (const t of tensors) {
    out.push(all.slice(at, at + t.size));
    at += t.size;
  }
  return out;
}

/** Host copy of a tensor: shape, dtype and its values in row-major order. */
export interface HostTensor {
  shape: number[];
  dtype: 'float32' | 'int32';
  data: Float32Array | Int32Array;
}

/** A model's weight records keyed by parameter name (they share their data arrays). */
export function weightsToHost(records: readonly WeightRecord[]): Record<string, HostTensor> {
  const out: Record<string, HostTensor> = {};
  for (const r of records) out[r.name] = { shape: r.shape, dtype: 'float32', data: r.data };
  return out;
}

/** Host tensors keyed by parameter name back to weight records (float32 copies). */
export function weightsFromHost(host: Record<string, HostTensor>): WeightRecord[] {
  return Object.entries(host).map(([name, h]) => ({ name, shape: h.shape, data: Float32Array.from(h.data) }));
}
