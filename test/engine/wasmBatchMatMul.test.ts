// The wasm BatchMatMul replacement (src/engine/wasmBatchMatMul.ts) against a float64 reference on the attention
// shapes of the W1 benchmark ([B·H, T, d_head] with T = 127, d_head = 16) and their gradient products, in ONE
// kernel per product, leaving no tensors (and no transient copies in the backend) behind.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../../src/engine/backend';
import { countKernels } from '../../src/engine/kernelCounter';
import { SeededRandom } from '../../src/engine/sampling';
import { SMALL_SLICE_WORK, STOCK_BLOCK } from '../../src/engine/wasmBatchMatMul';

const BH = 6;
const T = 127;
const D = 16;

function randn(n: number, seed: number): Float32Array {
  const r = new SeededRandom(seed);
  return Float32Array.from({ length: n }, () => r.normal());
}

/** a product's operands: a, its shape, b, its shape, transposeA, transposeB (shapes [batch, rows, cols]) */
type Operands = [
  a: Float32Array,
  sa: readonly number[],
  b: Float32Array,
  sb: readonly number[],
  ta: boolean,
  tb: boolean,
];

/**
 * op(a)·op(b) per batch slice, each output entry summed by `dot` from its K products (`term(k)`, exact in float64);
 * a, b stored row-major with the given shapes, a batch of 1 broadcasts.
 */
function slicewise(
  dot: (term: (k: number) => number, K: number) => number,
  ...[a, sa, b, sb, ta, tb]: Operands
): number[] {
  const [ba, ra, ca] = sa as [number, number, number];
  const [bb, rb, cb] = sb as [number, number, number];
  const M = ta ? ca : ra;
  const K = ta ? ra : ca;
  const N = tb ? rb : cb;
  const out: number[] = [];
  for (let i = 0; i < Math.max(ba, bb); i++) {
    const oa = (ba === 1 ? 0 : i) * ra * ca;
    const ob = (bb === 1 ? 0 : i) * rb * cb;
    for (let m = 0; m < M; m++)
      for (let n = 0; n < N; n++)
        out.push(
          dot(
            (k) =>
              (a[oa + (ta ? k * ca + m : m * ca + k)] as number) * (b[ob + (tb ? n * cb + k : k * cb + n)] as number),
            K,
          ),
        );
  }
  return out;
}

/** float64 op(a)·op(b) */
function reference(...p: Operands): Float64Array {
  const sum = (term: (k: number) => number, K: number): number => {
    let s = 0;
    for (let k = 0; k < K; k++) s += term(k);
    return s;
  };
  return Float64Array.from(slicewise(sum, ...p));
}

/**
 * float32 op(a)·op(b) summed as tfjs-wasm's stock reference loop sums: the shared dimension in blocks of
 * STOCK_BLOCK, each block's products added in order from 0, each block's sum then added to the output (Math.fround
 * after every operation gives IEEE single precision exactly; a product of two float32 values is exact in float64).
 */
function stockBits(...p: Operands): Float32Array {
  const f = Math.fround;
  const blocked = (term: (k: number) => number, K: number): number => {
    let o = 0;
    for (let k0 = 0; k0 < K; k0 += STOCK_BLOCK) {
      let s = 0;
      for (let k = k0; k < Math.min(k0 + STOCK_BLOCK, K); k++) s = f(s + f(term(k)));
      o = f(o + s);
    }
    return o;
  };
  return Float32Array.from(slicewise(blocked, ...p));
}

/** max |got − want| / max |want| */
function relErr(got: ArrayLike<number>, want: Float64Array): number {
  let d = 0;
  let scale = 1e-30;
  for (let i = 0; i < want.length; i++) {
    d = Math.max(d, Math.abs((got[i] as number) - (want[i] as number)));
    scale = Math.max(scale, Math.abs(want[i] as number));
  }
  return d / scale;
}

// [a shape, b shape, transposeA, transposeB, what it is in attention]
const CASES: [number[], number[], boolean, boolean, string][] = [
  [[BH, T, D], [BH, T, D], false, true, 'scores Q·Kᵀ'],
  [[BH, T, T], [BH, T, D], false, false, 'context P·V'],
  [[BH, T, D], [BH, T, D], false, true, 'dP = dO·Vᵀ'],
  [[BH, T, T], [BH, T, D], true, false, 'dV = Pᵀ·dO'],
  [[BH, T, D], [BH, T, T], true, true, 'both transposed'],
  [[1, T, D], [BH, D, T], false, false, 'a broadcast over the batch'],
  [[1, D, T], [BH, D, T], true, false, 'a transposed operand broadcast over the batch'],
];

describe('wasm BatchMatMul replacement', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });
  afterAll(async () => {
    await tf.setBackend('cpu');
  });

  for (const [sa, sb, ta, tb, what] of CASES) {
    it(`${what} ${JSON.stringify(sa)}·${JSON.stringify(sb)} matches float64 within 1e-5 relative, in one kernel`, async () => {
      const a = randn(
        sa.reduce((x, y) => x * y, 1),
        1,
      );
      const b = randn(
        sb.reduce((x, y) => x * y, 1),
        2,
      );
      const before = tf.memory().numTensors;
      // the backend's own count also covers the kernel's transient transposed copies, which the engine never sees
      const dataBefore = tf.engine().backend.numDataIds();
      const at = tf.tensor3d(a, sa as [number, number, number]);
      const bt = tf.tensor3d(b, sb as [number, number, number]);
      const { result, kernels } = await countKernels(() => tf.matMul(at, bt, ta, tb));
      expect(kernels.byName).toEqual({ BatchMatMul: 1 });
      expect(relErr(await result.data(), reference(a, sa, b, sb, ta, tb))).toBeLessThan(1e-5);
      tf.dispose([at, bt, result]);
      expect(tf.memory().numTensors).toBe(before);
      expect(tf.engine().backend.numDataIds()).toBe(dataBefore);
    });
  }

  // Small slices (below SMALL_SLICE_WORK multiply-adds) route by shape: many rows with a short shared dimension go
  // through XNNPACK, the rest through the stock loop. Either way the bits must be the stock loop's, so that moving
  // a slice between the two changes no run.
  const ROUTED: [number[], number[], boolean, boolean, string][] = [
    [[128, 28, 16], [128, 28, 16], false, true, 'training scores Q·Kᵀ over 28 positions (XNNPACK)'],
    [[128, 28, 28], [128, 28, 16], false, false, 'training context P·V over 28 positions (XNNPACK)'],
    [[128, 28, 28], [128, 28, 16], true, false, 'training dV = Pᵀ·dO over 28 positions (XNNPACK)'],
    [[128, 12, 48], [128, 48, 16], false, false, '12 rows, shared dimension 48: the edge (XNNPACK)'],
    [[256, 1, 16], [256, 100, 16], false, true, 'a decode step Q·Kᵀ, 1 row (stock loop)'],
    [[128, 11, 48], [128, 48, 16], false, false, '11 rows (stock loop)'],
    [[64, 12, 100], [64, 100, 12], false, false, 'shared dimension 100 > one block (stock loop, blocked sum)'],
  ];
  for (const [sa, sb, ta, tb, what] of ROUTED) {
    it(`${what}: the stock reference loop's float32 bits`, async () => {
      expect((ta ? sa[2]! : sa[1]!) * (ta ? sa[1]! : sa[2]!) * (tb ? sb[1]! : sb[2]!)).toBeLessThan(SMALL_SLICE_WORK);
      const a = randn(
        sa.reduce((x, y) => x * y, 1),
        7,
      );
      const b = randn(
        sb.reduce((x, y) => x * y, 1),
        8,
      );
      const at = tf.tensor3d(a, sa as [number, number, number]);
      const bt = tf.tensor3d(b, sb as [number, number, number]);
      const out = tf.matMul(at, bt, ta, tb);
      const got = (await out.data()) as Float32Array;
      const want = stockBits(a, sa, b, sb, ta, tb);
      let differ = 0;
      for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) differ++;
      expect(differ).toBe(0);
      tf.dispose([at, bt, out]);
    });
  }

  it('gradients of sum(w ⊙ softmax-free attention Q·Kᵀ·V) match float64 within 1e-5 relative', async () => {
    const q = randn(BH * T * D, 3);
    const k = randn(BH * T * D, 4);
    const v = randn(BH * T * D, 5);
    const w = randn(BH * T * D, 6);
    const shape: [number, number, number] = [BH, T, D];
    // out = (Q·Kᵀ)·V; L = Σ w ⊙ out.  dOut = w; dS = w·Vᵀ; dV = Sᵀ·w; dQ = dS·K; dK = dSᵀ·Q
    const S = reference(q, shape, k, shape, false, true);
    const S32 = Float32Array.from(S);
    const dS = reference(w, shape, v, shape, false, true);
    const dS32 = Float32Array.from(dS);
    const want = {
      dq: reference(dS32, [BH, T, T], k, shape, false, false),
      dk: reference(dS32, [BH, T, T], q, shape, true, false),
      dv: reference(S32, [BH, T, T], w, shape, true, false),
    };
    const before = tf.memory().numTensors;
    const [qt, kt, vt, wt] = [q, k, v, w].map((x) => tf.tensor3d(x, shape)) as tf.Tensor3D[];
    const f = (x: tf.Tensor, y: tf.Tensor, z: tf.Tensor): tf.Scalar =>
      tf.sum(tf.mul(tf.matMul(tf.matMul(x, y, false, true), z), wt as tf.Tensor3D));
    const { value, grads } = tf.valueAndGrads(f)([qt as tf.Tensor3D, kt as tf.Tensor3D, vt as tf.Tensor3D]);
    const [dq, dk, dv] = grads as [tf.Tensor, tf.Tensor, tf.Tensor];
    expect(relErr(await dq.data(), want.dq)).toBeLessThan(1e-5);
    expect(relErr(await dk.data(), want.dk)).toBeLessThan(1e-5);
    expect(relErr(await dv.data(), want.dv)).toBeLessThan(1e-5);
    tf.dispose([qt, kt, vt, wt, value, ...grads] as tf.Tensor[]);
    expect(tf.memory().numTensors).toBe(before);
  });
});
