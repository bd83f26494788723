// Tensors as plain host arrays: the form checkpoints, optimizer state and shipped weights take between the engine
// and storage. A host copy is enough to rebuild its tensor bit-exactly.
import type { WeightRecord } from './weights';

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
