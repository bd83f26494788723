// A replacement BatchMatMul kernel for tfjs-backend-wasm 4.22: the whole batched product in ONE engine kernel.
// The stock kernel sends every product with a batch > 1 or a transposed operand to a scalar reference loop (3–70×
// slower per matrix than XNNPACK); only [1, M, K]·[1, K, N] without transposes reaches XNNPACK. This kernel loops
// over the batch itself and, for each slice, registers heap VIEWS of a, b and the output as temporary tensor ids
// (no copy) and calls the module's own BatchMatMul export on those [1, M, K]·[1, K, N] views, so every slice runs
// the XNNPACK 2-D path, exactly as the per-slice tf.matMul calls this kernel replaces did. A transposed operand
// is first copied transposed into heap scratch (a [T, 16] slice is ~2,000 floats: microseconds). The temporary
// ids are disposed after each call, which also drops XNNPACK's operator cached for that weight id.
// Measured and rejected: computing dV = Pᵀ·dO as (dOᵀ·P)ᵀ to copy fewer floats (2·T·d instead of T·T) was ~1.5×
// slower for [256, 127, 127]ᵀ·[256, 127, 16] (21 vs 15 ms CPU): XNNPACK then packs the [T, T] operand per slice.
// Small slices with few rows (a decode step's queries) keep the stock kernel: there the reference loop is faster
// than creating an XNNPACK operator per slice. Small slices with many rows and a short shared dimension (a training
// step's attention over T ≥ 12 positions) go through XNNPACK, with the same bits (STOCK_BLOCK below).
import * as tf from '@tensorflow/tfjs';

/** the parts of tfjs-backend-wasm's module and backend this kernel uses (not in its public types) */
interface WasmModuleLike {
  HEAPF32: Float32Array;
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
interface WasmBackendLike {
  wasm: WasmModuleLike;
  dataIdNextNumber: number;
  dataIdMap: { get(dataId: object): { memoryOffset: number } };
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
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

/** a [rows, cols] at src (float offset) → its transpose [cols, rows] at dst (float offset), inside heap */
function transposeInto(heap: Float32Array, src: number, rows: number, cols: number, dst: number): void {
  for (let r = 0; r < rows; r++) {
    const s = src + r * cols;
    for (let c = 0; c < cols; c++) heap[dst + c * rows + r] = heap[s + c] as number;
  }
}

/**
 * The kernel function: same semantics as tf.matMul (rank ≥ 2, transposes, batch broadcasting where one side has
 * batch 1); float32 only (the stock kernel also rejects other dtypes). `stock` runs products it does not take.
 */
export function batchMatMulKernel(stock: tf.KernelFunc): tf.KernelFunc {
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
    const backend = args.backend as unknown as WasmBackendLike;
    const batch = Math.max(batchA, batchB);
    const outBatchShape = (batchA >= batchB ? a : b).shape.slice(0, -2);
    const out = backend.makeOutput([...outBatchShape, M, N], 'float32');
    const mod = backend.wasm;
    // scratch: shape vectors (2 × 3 int32) and, for transposed operands, one slice each
    const scratchA = transposeA ? M * K : 0;
    const scratchB = transposeB ? K * N : 0;
    const scratch = mod._malloc(4 * (6 + scratchA + scratchB)) >>> 0;
    // views are taken after every allocation (malloc may grow the heap and detach older views)
    const aOff = backend.dataIdMap.get(a.dataId).memoryOffset >>> 2;
    const bOff = backend.dataIdMap.get(b.dataId).memoryOffset >>> 2;
    const oOff = backend.dataIdMap.get(out.dataId).memoryOffset >>> 2;
    const shapes = scratch >>> 2;
    const tA = shapes + 6;
    const tB = tA + scratchA;
    mod.HEAP32.set([1, M, K, 1, K, N], shapes);
    const ids = [0, 0, 0];
    try {
      for (let i = 0; i < batch; i++) {
        let pa = aOff + (batchA === 1 ? 0 : i) * M * K;
        let pb = bOff + (batchB === 1 ? 0 : i) * K * N;
        const heap = mod.HEAPF32; // re-read: XNNPACK may have grown (and so replaced) the heap in the last call
        if (transposeA) {
          transposeInto(heap, pa, K, M, tA); // stored [K, M] → [M, K]
          pa = tA;
        }
        if (transposeB) {
          transposeInto(heap, pb, N, K, tB); // stored [N, K] → [K, N]
          pb = tB;
        }
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
      mod._free(scratch);
    }
    return out;
  };
}
