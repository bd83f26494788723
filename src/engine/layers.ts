// Differentiable building blocks shared by the full forward pass (model.ts) and cached decoding (kvCache.ts).
// Every function is pure tensor math on rank-2 activations [rows, features] unless stated; call inside tf.tidy.
import * as tf from '@tensorflow/tfjs';
import { fusedGelu } from './kernels/webgpuGelu';
import { fusedLayerNorm } from './kernels/webgpuLayerNorm';
import { useFusedKernels } from './kernels/registerWebgpuKernels';

export const LAYER_NORM_EPSILON = 1e-5;
/** additive attention-mask value for a hidden key; exp(-1e9 - max) is exactly 0 in float32 */
export { MASKED } from './additiveMask';

/**
 * Matrix products that are fast on every backend. tfjs-wasm 4.22's stock BatchMatMul runs only the plain 2-D,
 * non-transposed product through XNNPACK; the lab replaces that kernel on wasm (wasmBatchMatMul.ts) by one that
 * runs every slice of a batched or transposed product through XNNPACK inside ONE kernel, so attention's
 * [B·H, T, d] products need no unstacking. The 2-D products of linear() keep their explicit Transpose kernels on
 * wasm, as before (the replacement kernel would make the same transposed copy, inside itself).
 */
const isWasm = (): boolean => tf.getBackend() === 'wasm';

/**
 * op(a) @ op(b) for rank ≥ 2 with equal batch dims (no batch broadcasting: tfjs pairs [B,1]·[B,H] wrongly), where
 * op transposes the last two axes when the flag is set. Differentiable on every backend (tfjs's own gradient,
 * whose transposed products the wasm replacement kernel also takes).
 */
export function matMul<T extends tf.Tensor>(a: T, b: tf.Tensor, transposeA = false, transposeB = false): T {
  return tf.matMul(a, b, transposeA, transposeB) as T;
}

/** x @ w + b with the bias fused into the matMul kernel. x [rows, in], w [in, out], b [out] → [rows, out] */
export function linear(x: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor1D): tf.Tensor2D {
  if (!isWasm()) return tf.fused.matMul({ a: x, b: w, bias: b }) as tf.Tensor2D;
  return linearWasm(x, w, b);
}

const linearWasm = tf.customGrad(((x: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor1D, save: tf.GradSaveFunc) => {
  save([x, w]);
  return {
    value: tf.fused.matMul({ a: x, b: w, bias: b }),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sx, sw] = saved as [tf.Tensor2D, tf.Tensor2D];
      const dy2 = dy as tf.Tensor2D;
      const [nIn, nOut] = sw.shape;
      // dW = xᵀ·dy, or (dyᵀ·x)ᵀ when that packs the smaller operand ([rows, in] rather than [rows, out])
      const dw = nOut > nIn ? tf.transpose(tf.matMul(tf.transpose(dy2), sx)) : tf.matMul(tf.transpose(sx), dy2);
      return [tf.matMul(dy2, tf.transpose(sw)), dw, tf.sum(dy2, 0)];
    },
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (
  x: tf.Tensor2D,
  w: tf.Tensor2D,
  b: tf.Tensor1D,
) => tf.Tensor2D;

/**
 * Embedding lookup as a one-hot product (gather has no gradient on wasm; the one-hot product was also faster than
 * gather on wasm: 11 ms vs 56 ms for 8128 lookups of a [64, 64] table). ids [n] int32, table [V, D] → [n, D];
 * only the table gets a gradient: d table = oneHotᵀ · dy.
 */
export function embed(ids: tf.Tensor1D, table: tf.Tensor2D): tf.Tensor2D {
  const V = table.shape[0];
  // int32 one-hot then a cast: tfjs-wasm 4.22's OneHot ignores dtype 'float32' and writes int32 bits into it
  const oneHot = tf.cast(tf.oneHot(ids, V), 'float32') as tf.Tensor2D; // [n, V]
  const op = tf.customGrad(((t: tf.Tensor2D, save: tf.GradSaveFunc) => {
    save([oneHot]);
    return {
      value: tf.matMul(oneHot, t),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const oh = saved[0] as tf.Tensor2D;
        return [
          isWasm() ? tf.matMul(tf.transpose(oh), dy as tf.Tensor2D) : tf.matMul(oh, dy as tf.Tensor2D, true, false),
        ];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (t: tf.Tensor2D) => tf.Tensor2D;
  return op(table);
}

/**
 * Layer normalisation over the last axis, with an analytic gradient (fewer kernels than differentiating the
 * composed ops): dx = inv·(dy·g − mean(dy·g) − x̂·mean(dy·g·x̂)), dg = Σ dy·x̂, db = Σ dy.
 * x [rows, d], g [d], b [d] → [rows, d]. On webgpu one fused WGSL kernel (kernels/webgpuLayerNorm.ts).
 */
export function layerNorm(x: tf.Tensor2D, g: tf.Tensor1D, b: tf.Tensor1D): tf.Tensor2D {
  if (useFusedKernels()) return fusedLayerNorm(x, g, b, LAYER_NORM_EPSILON);
  return layerNormComposed(x, g, b);
}

/** layerNorm from tfjs ops (every backend; the reference of the fused kernel) */
const layerNormComposed = tf.customGrad(((x: tf.Tensor2D, g: tf.Tensor1D, b: tf.Tensor1D, save: tf.GradSaveFunc) => {
  const mean = tf.mean(x, 1, true);
  const xc = tf.sub(x, mean);
  const variance = tf.mean(tf.square(xc), 1, true);
  const inv = tf.rsqrt(tf.add(variance, LAYER_NORM_EPSILON));
  const xhat = tf.mul(xc, inv);
  save([xhat, inv, g]);
  return {
    value: tf.add(tf.mul(xhat, g), b),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sx, si, sg] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor1D];
      const dxhat = tf.mul(dy, sg);
      const m1 = tf.mean(dxhat, 1, true);
      const m2 = tf.mean(tf.mul(dxhat, sx), 1, true);
      const dx = tf.mul(tf.sub(tf.sub(dxhat, m1), tf.mul(sx, m2)), si);
      const dg = tf.sum(tf.mul(dy, sx), 0);
      const db = tf.sum(dy, 0);
      return [dx, dg, db];
    },
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (
  x: tf.Tensor2D,
  g: tf.Tensor1D,
  b: tf.Tensor1D,
) => tf.Tensor2D;

const SQRT_HALF = Math.SQRT1_2;
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

/**
 * Exact (erf) GELU, as PyTorch's default: x·Φ(x), with the analytic gradient Φ(x) + x·φ(x). On webgpu one fused
 * WGSL kernel each way (kernels/webgpuGelu.ts).
 */
export function gelu<T extends tf.Tensor>(x: T): T {
  if (useFusedKernels()) return fusedGelu(x);
  return geluComposed(x);
}

/** gelu from tfjs ops (every backend; the reference of the fused kernel) */
const geluComposed = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
  const cdf = tf.mul(tf.add(tf.erf(tf.mul(x, SQRT_HALF)), 1), 0.5);
  save([x, cdf]);
  return {
    value: tf.mul(x, cdf),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sx, scdf] = saved as [tf.Tensor, tf.Tensor];
      const pdf = tf.mul(tf.exp(tf.mul(tf.square(sx), -0.5)), INV_SQRT_2PI);
      return [tf.mul(dy, tf.add(scdf, tf.mul(sx, pdf)))];
    },
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as <T extends tf.Tensor>(x: T) => T;
