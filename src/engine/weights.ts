// Model weights as plain host records, and their (de)serialisation as tf.io weight specs + one binary buffer
// (the layout tf.io.decodeWeights reads), so checkpoints need no tensors to write or inspect.
import type * as tf from '@tensorflow/tfjs';

/** One parameter: an instance-independent name such as 'h0/attn/qkv/w', its shape and float32 values. */
export interface WeightRecord {
  name: string;
  shape: number[];
  data: Float32Array;
}

/** Checks records against expected {key, shape} specs: every key once, matching shapes, finite sizes. */
export function checkWeightRecords(
  expected: readonly { key: string; shape: readonly number[] }[],
  records: readonly WeightRecord[],
  where: string,
): void {
  const want = new Map(expected.map((s) => [s.key, s.shape]));
  const seen = new Set<string>();
  for (const r of records) {
    const shape = want.get(r.name);
    if (shape === undefined)
      throw new Error(`${where}: unexpected weight '${r.name}' (not a parameter of this model config)`);
    if (seen.has(r.name)) throw new Error(`${where}: weight '${r.name}' appears twice`);
    seen.add(r.name);
    if (r.shape.length !== shape.length || r.shape.some((d, i) => d !== shape[i])) {
      throw new Error(`${where}: weight '${r.name}' has shape [${r.shape.join(', ')}], expected [${shape.join(', ')}]`);
    }
    const size = shape.reduce((a, b) => a * b, 1);
    if (r.data.length !== size)
      throw new Error(`${where}: weight '${r.name}' has ${r.data.length} values, expected ${size}`);
  }
  for (const k of want.keys()) if (!seen.has(k)) throw new Error(`${where}: weight '${k}' is missing`);
}

/** Records → tf.io weight specs and one concatenated little-endian float32 buffer (in record order). */
export function encodeWeights(records: readonly WeightRecord[]): {
  specs: tf.io.WeightsManifestEntry[];
  data: ArrayBuffer;
} {
  const total = records.reduce((a, r) => a + r.data.length, 0);
  const out = new Float32Array(total);
  const specs: tf.io.WeightsManifestEntry[] = [];
  let offset = 0;
  for (const r of records) {
    out.set(r.data, offset);
    offset += r.data.length;
    specs.push({ name: r.name, shape: r.shape.slice(), dtype: 'float32' });
  }
  return { specs, data: out.buffer };
}

/** The inverse of encodeWeights; throws when the buffer size does not match the specs. */
export function decodeWeights(specs: readonly tf.io.WeightsManifestEntry[], data: ArrayBuffer): WeightRecord[] {
  const records: WeightRecord[] = [];
  let offset = 0;
  for (const s of specs) {
    if (s.dtype !== 'float32') throw new Error(`weights: '${s.name}' has dtype ${s.dtype}; only float32 is supported`);
    if (s.quantization !== undefined) throw new Error(`weights: '${s.name}' is quantized; not supported`);
    const size = s.shape.reduce((a, b) => a * b, 1);
    if ((offset + size) * 4 > data.byteLength) {
      throw new Error(
        `weights: buffer of ${data.byteLength} bytes ends inside '${s.name}' (needs ${(offset + size) * 4})`,
      );
    }
    records.push({
      name: s.name,
      shape: s.shape.slice(),
      data: new Float32Array(data.slice(offset * 4, (offset + size) * 4)),
    });
    offset += size;
  }
  if (offset * 4 !== data.byteLength)
    throw new Error(`weights: ${data.byteLength - offset * 4} trailing bytes after the last spec`);
  return records;
}
