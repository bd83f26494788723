// Dropping padding from the per-token work of a full forward pass. A padded batch [B, T] holds N = Σ lengths real
// tokens; the embeddings, layer norms, projections, MLPs and the head only need those N rows, and attention needs
// the padded [B, T] layout back. packRows / unpackRows move rows between the two layouts by index (exact copies,
// never arithmetic), each the other's gradient.
//
// Why this is bit-identical to running the padded rows: padding is at the end of every row, so under the causal
// mask no real position ever sees a padded one, and the losses give padded positions a gradient of exactly 0. A
// padded row therefore adds only exact zeros to every sum over rows (a weight's gradient, a bias's or a layer
// norm's), and XNNPACK's GEMMs and tfjs-wasm's reductions accumulate sequentially, where adding ±0 changes nothing.
// The engine's pinned runs (the smoke run's sha256) hold this in the tests.
//
// Only on wasm: that is where the per-token GEMMs are the step's cost and where the sums are sequential. The cpu
// backend's matMul sums the shared dimension in blocks of 48, so removing rows moves the block edges and changes
// the last bits; on webgpu the step is dispatch-bound and the extra gathers would cost more than they save.
import * as tf from '@tensorflow/tfjs';

/** whether PolicyModel.forward drops padding on the active backend */
export function packsPadding(): boolean {
  return tf.getBackend() === 'wasm';
}

/** Index maps between a padded [B·T] row layout and the packed rows of real tokens. */
export interface RowPacking {
  /** N: real tokens (packed rows) */
  readonly rows: number;
  /** B·T: padded rows */
  readonly paddedRows: number;
  /** [N] int32: the padded row of packed row n (row-major, b·T + t) */
  readonly packIndex: tf.Tensor1D;
  /** [B·T] int32: the packed row of padded row i, or N (an appended zero row) for padding */
  readonly unpackIndex: tf.Tensor1D;
}

/**
 * The packing of a padded batch whose row b holds lengths[b] real tokens (1 ≤ lengths[b] ≤ T), or null when there
 * is no padding to drop. Call inside tf.tidy (the index tensors are ordinary tensors).
 */
export function rowPacking(lengths: ArrayLike<number>, batch: number, seqLen: number): RowPacking | null {
  if (lengths.length !== batch) throw new Error(`rowPacking: ${lengths.length} lengths for a batch of ${batch}`);
  let n = 0;
  for (let b = 0; b < batch; b++) {
    const len = lengths[b] as number;
    if (!Number.isInteger(len) || len < 1 || len > seqLen)
      throw new Error(`rowPacking: lengths[${b}] = ${len} is not an integer in [1, ${seqLen}]`);
    n += len;
  }
  if (n === batch * seqLen) return null;
  const pack = new Int32Array(n);
  const unpack = new Int32Array(batch * seqLen).fill(n);
  let k = 0;
  for (let b = 0; b < batch; b++) {
    const len = lengths[b] as number;
    for (let t = 0; t < len; t++, k++) {
      pack[k] = b * seqLen + t;
      unpack[b * seqLen + t] = k;
    }
  }
  return {
    rows: n,
    paddedRows: batch * seqLen,
    packIndex: tf.tensor1d(pack, 'int32'),
    unpackIndex: tf.tensor1d(unpack, 'int32'),
  };
}

/** rows of x [N, F] at `index`, with row N reading zeros: [index.length, F] */
function gatherWithZeroRow(x: tf.Tensor2D, index: tf.Tensor1D): tf.Tensor2D {
  const zero = tf.zeros([1, x.shape[1]], x.dtype);
  return tf.gather(tf.concat([x, zero], 0), index) as tf.Tensor2D;
}

/** x [B·T, F] → its real rows [N, F]; gradient: scattered back with zeros at padding */
export function packRows(x: tf.Tensor2D, p: RowPacking): tf.Tensor2D {
  const op = tf.customGrad(((xi: tf.Tensor2D, save: tf.GradSaveFunc) => {
    save([p.unpackIndex]);
    return {
      value: tf.gather(xi, p.packIndex),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => [gatherWithZeroRow(dy as tf.Tensor2D, saved[0] as tf.Tensor1D)],
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (x: tf.Tensor2D) => tf.Tensor2D;
  return op(x);
}

/** real rows x [N, F] → the padded layout [B·T, F], zeros at padding; gradient: the real rows of dy */
export function unpackRows(x: tf.Tensor2D, p: RowPacking): tf.Tensor2D {
  const op = tf.customGrad(((xi: tf.Tensor2D, save: tf.GradSaveFunc) => {
    save([p.packIndex]);
    return {
      value: gatherWithZeroRow(xi, p.unpackIndex),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => [tf.gather(dy, saved[0] as tf.Tensor1D)],
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (x: tf.Tensor2D) => tf.Tensor2D;
  return op(x);
}
