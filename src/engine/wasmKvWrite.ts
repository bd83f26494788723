// One wasm kernel for a KV-cache write: copy a row-trimmed cache into a wider one and add the new keys (or values)
// at their slots, instead of the portable path's passes over the whole cache (multiply the new keys by a 0/1 write
// matrix, add that to the cache). Bit-identical to that path: a slot is written once, it held +0 before, and the
// kernel performs the same float32 addition, old + new (so a written −0 becomes +0 there too); every other slot is
// copied unchanged, which is what old + 0·k gives for the finite values a cache holds.
//   'RetireKVWrite' cache [B, H, e0, dh], kv [B, H, C, dh], slots int32 [B·C] (−1: chunk token not written)
//   → [B, H, extent, dh] with extent ≥ e0, every slot < extent
import * as tf from '@tensorflow/tfjs';
import type { WasmBackendLike } from './wasmBackendLike';

export const WASM_KV_WRITE_KERNEL = 'RetireKVWrite';

const kvWrite: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const { extent } = attrs as unknown as { extent: number };
  const cache = inputs.cache as tf.TensorInfo;
  const kv = inputs.kv as tf.TensorInfo;
  const slots = inputs.slots as tf.TensorInfo;
  const [B, H, e0, dh] = cache.shape as [number, number, number, number];
  const C = kv.shape[2] as number;
  if (cache.dtype !== 'float32' || kv.dtype !== 'float32' || slots.dtype !== 'int32')
    throw new Error(`${WASM_KV_WRITE_KERNEL}: expected float32 cache and kv, int32 slots`);
  if (kv.shape[0] !== B || kv.shape[1] !== H || kv.shape[3] !== dh || slots.shape[0] !== B * C)
    throw new Error(
      `${WASM_KV_WRITE_KERNEL}: shapes disagree: cache [${cache.shape}], kv [${kv.shape}], slots [${slots.shape}]`,
    );
  if (!Number.isInteger(extent) || extent < e0)
    throw new Error(`${WASM_KV_WRITE_KERNEL}: extent ${extent} is below the cache's ${e0} slots`);
  const b = backend as unknown as WasmBackendLike;
  const checked = b.typedArrayFromHeap(slots);
  for (let i = 0; i < checked.length; i++) {
    const p = checked[i] as number;
    if (!(p >= -1 && p < extent))
      throw new Error(`${WASM_KV_WRITE_KERNEL}: slot ${p} at ${i} is outside [-1, ${extent})`);
  }
  const out = b.makeOutput([B, H, extent, dh], 'float32');
  // views after the allocation (makeOutput may grow the heap and detach older views)
  const src = b.typedArrayFromHeap(cache);
  const add = b.typedArrayFromHeap(kv);
  const slot = b.typedArrayFromHeap(slots);
  const dst = b.typedArrayFromHeap(out);
  const rowIn = e0 * dh;
  const rowOut = extent * dh;
  for (let r = 0; r < B * H; r++) {
    dst.set(src.subarray(r * rowIn, (r + 1) * rowIn), r * rowOut);
    dst.fill(0, r * rowOut + rowIn, (r + 1) * rowOut);
  }
  for (let bi = 0; bi < B; bi++) {
    for (let j = 0; j < C; j++) {
      const p = slot[bi * C + j] as number;
      if (p < 0) continue;
      for (let h = 0; h < H; h++) {
        const o = ((bi * H + h) * extent + p) * dh;
        const k = ((bi * H + h) * C + j) * dh;
        // a float64 sum of two float32 values stored into float32 is the float32 sum, as the portable path's add
        for (let d = 0; d < dh; d++) dst[o + d] = (dst[o + d] as number) + (add[k + d] as number);
      }
    }
  }
  return out;
};

export const wasmKvWriteKernelConfig: tf.KernelConfig = {
  kernelName: WASM_KV_WRITE_KERNEL,
  backendName: 'wasm',
  kernelFunc: kvWrite,
};
