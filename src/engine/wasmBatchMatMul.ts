// A replacement BatchMatMul kernel for tfjs-backend-wasm 4.22: the whole batched product in ONE engine kernel.
// The stock kernel sends every product with a batch > 1 or a transposed operand to a scalar reference loop (3–70×
// slower per matrix than XNNPACK); only [1, M, K]·[1, K, N] without transposes reaches XNNPACK. This kernel loops
// over the batch itself and, for each slice, registers heap VIEWS of a, b and the output as temporary tensor ids
// (no copy) and calls the module's own BatchMatMul export on those [1, M, K]·[1, K, N] views, so every slice runs
// the XNNPACK 2-D path, exactly as the per-slice tf.matMul calls this kernel replaces did. A transposed operand
// is first transposed whole, every slice in one call of the module's own Transpose kernel (pure data movement, so
// the same bits): for the [256, 127, 127] attention matrices of a W1 step's backward pass that took ~2.4 ms,
// against ~5.6 ms for a copy per slice in JavaScript, as this kernel did before. The temporary ids are disposed
// after each call, which also drops XNNPACK's operator cached for that weight id.
// Measured and rejected: computing dV = Pᵀ·dO as (dOᵀ·P)ᵀ to copy fewer floats (2·T·d instead of T·T) was ~1.5×
// slower for [256, 127, 127]ᵀ·[256, 127, 16] (21 vs 15 ms CPU): XNNPACK then packs the [T, T] operand per slice.
// Small slices with few rows (a decode step's queries) keep the stock kernel: there the reference loop is faster
// than creating an XNNPACK operator per slice. Small slices with many rows and a short shared dimension (a training
// step's attention over T ≥ 12 positions) go through XNNPACK, with the same bits (STOCK_BLOCK below).
import * as tf from '@tensorflow/tfjs';
import type { WasmBackendLike } from './wasmBackendLike';

/** the parts of tfjs-backend-wasm's module and backend this kernel uses (not in its public types) */
interface WasmModuleLike {
  HEAP32: Int32Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  _BatchMatMul(
    aId: number,
    aShapePtr: number,
    aRank: number,
    bId: number,
    bShapePtr: number,
    bRank: number,
    transposeA: number,
    transposeB: number,
    outId: number,
  ): void;
  tfjs: {
    registerTensor(id: number, size: number, memoryOffset: number): void;
    disposeData(id: number): void;
  };
}
interface WasmBatchMatMulBackend extends WasmBackendLike {
  wasm: WasmModuleLike;
  dataIdNextNumber: number;
  dataIdMap: { get(dataId: object): { memoryOffset: number } };
}

/** per-slice multiply-adds from which every slice goes through XNNPACK, whatever its shape */
export const SMALL_SLICE_WORK = 16384;
/**
 * The stock reference loop sums the shared dimension in blocks of this many (tfjs-wasm's kBlockSize), adding each
 * block's sum to the output. Up to one block its sum is sequential from 0, as XNNPACK's GEMM is, so a slice may
 * move between the two with the same bits; beyond it the association differs.
 */
export const STOCK_BLOCK = 48;
/**
 * Rows per slice from which XNNPACK beats the reference loop on small slices with a shared dimension ≤ STOCK_BLOCK
 * (an attention product over T ≥ 12 positions: 1.2–3× faster per [32·4, T, T] product, Node 20, tfjs 4.22). Fewer
 * rows (a decode step's 1 to a few queries) pay more for the per-slice operator than they save.
 */
export const MIN_ROWS_SHORT_SUM = 12;

/**
 * The kernel function: same semantics as tf.matMul (rank ≥ 2, transposes, batch broadcasting where one side has
 * batch 1); float32 only (the stock kernel also rejects other dtypes). `stock` runs products it does not take;
 * `transpose` is the backend's Transpose kernel, which lays a transposed operand out as the 2-D path needs it.
 */
export function batchMatMulKernel(stock: tf.KernelFunc, transpose: tf.KernelFunc): tf.KernelFunc {
  return (args) => {
    const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
    const { transposeA, transposeB } = args.attrs as unknown as { transposeA: boolean; transposeB: boolean };
    const ra = a.shape.length;
    const rb = b.shape.length;
    const M = a.shape[transposeA ? ra - 1 : ra - 2] as number;
    const K = a.shape[transposeA ? ra - 2 : ra - 1] as number;
    const N = b.shape[transposeB ? rb - 2 : rb - 1] as number;
    const batchA = a.shape.slice(0, -2).reduce((x, y) => x * y, 1);
    const batchB = b.shape.slice(0, -2).reduce((x, y) => x * y, 1);
    const plain2d = batchA === 1 && batchB === 1 && !transposeA && !transposeB;
    if (
      plain2d ||
      a.dtype !== 'float32' ||
      b.dtype !== 'float32' ||
      !(M * K * N >= SMALL_SLICE_WORK || (K <= STOCK_BLOCK && M >= MIN_ROWS_SHORT_SUM)) ||
      (batchA !== batchB && batchA !== 1 && batchB !== 1) ||
      K !== (b.shape[transposeB ? rb - 1 : rb - 2] as number)
    ) {
      return stock(args);
    }
    const backend = args.backend as unknown as WasmBatchMatMulBackend;
    const batch = Math.max(batchA, batchB);
    const outBatchShape = (batchA >= batchB ? a : b).shape.slice(0, -2);
    const out = backend.makeOutput([...outBatchShape, M, N], 'float32');
    // a transposed operand [..., K, M] (or [..., N, K]), every slice transposed in one kernel call
    const swapLast = (t: tf.TensorInfo): tf.TensorInfo => {
      const perm = t.shape.map((_, i) => i);
      perm.splice(-2, 2, t.shape.length - 1, t.shape.length - 2);
      return transpose({ inputs: { x: t }, backend: args.backend, attrs: { perm } }) as tf.TensorInfo;
    };
    let aT: tf.TensorInfo | null = null;
    let bT: tf.TensorInfo | null = null;
    const mod = backend.wasm;
    let scratch = 0;
    const ids = [0, 0, 0];
    try {
      aT = transposeA ? swapLast(a) : null;
      bT = transposeB ? swapLast(b) : null;
      // shape vectors (2 × 3 int32)
      scratch = mod._malloc(4 * 6) >>> 0;
      // offsets are read after every allocation (malloc may grow the heap and detach older views)
      const aOff = backend.dataIdMap.get((aT ?? a).dataId).memoryOffset >>> 2;
      const bOff = backend.dataIdMap.get((bT ?? b).dataId).memoryOffset >>> 2;
      const oOff = backend.dataIdMap.get(out.dataId).memoryOffset >>> 2;
      const shapes = scratch >>> 2;
      mod.HEAP32.set([1, M, K, 1, K, N], shapes);
      for (let i = 0; i < batch; i++) {
        const pa = aOff + (batchA === 1 ? 0 : i) * M * K;
        const pb = bOff + (batchB === 1 ? 0 : i) * K * N;
        ids[0] = backend.dataIdNextNumber++;
        ids[1] = backend.dataIdNextNumber++;
        ids[2] = backend.dataIdNextNumber++;
        mod.tfjs.registerTensor(ids[0], M * K, pa * 4);
        mod.tfjs.registerTensor(ids[1], K * N, pb * 4);
        mod.tfjs.registerTensor(ids[2], M * N, (oOff + i * M * N) * 4);
        mod._BatchMatMul(ids[0], shapes * 4, 3, ids[1], (shapes + 3) * 4, 3, 0, 0, ids[2]);
        for (const id of ids) mod.tfjs.disposeData(id);
        ids.fill(0);
      }
    } finally {
      for (const id of ids) if (id !== 0) mod.tfjs.disposeData(id);
      if (scratch !== 0) mod._free(scratch);
      if (aT !== null) backend.disposeData(aT.dataId);
      if (bT !== null) backend.disposeData(bT.dataId);
    }
    return out;
  };
}
