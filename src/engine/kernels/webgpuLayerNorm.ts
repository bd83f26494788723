// Fused layer normalisation over the last axis on webgpu (the composed version in ../layers.ts takes 9 dispatches
// forward and ~11 backward; this one 1 forward and 4 backward).
//   'RetireLayerNorm'          x [N, d], g [d], b [d] → y [N, d]; y = (x − mean)·rsqrt(var + ε)·g + b   (per row)
//   'RetireLayerNormGradX'     x, g, dy → dx [N, d]; dx = inv·(dy·g − mean(dy·g) − x̂·mean(dy·g·x̂))      (per row)
//   'RetireLayerNormStats'     x → [2, N] planes mean, inv = rsqrt(var + ε)                            (per row)
//   'RetireLayerNormGradGamma' x, dy, stats → dg [d]; Σ_rows dy·x̂                                      (per column)
//   'RetireLayerNormGradBeta'  dy → db [d]; Σ_rows dy                                                   (per column)
// Variance is the two-pass Σ(x − mean)²/d, as the composed version computes it. ε is a shader constant.
import * as tf from '@tensorflow/tfjs';
import { asWebgpuBackend, f32, flatProgram } from './webgpuProgram';

const LAYER_NORM_KERNEL = 'RetireLayerNorm';
const GRAD_X = 'RetireLayerNormGradX';
const STATS = 'RetireLayerNormStats';
const GRAD_GAMMA = 'RetireLayerNormGradGamma';
const GRAD_BETA = 'RetireLayerNormGradBeta';

/** WGSL: mean and inv of row `index` of x (defines N, d, base, mean, inv) */
function rowMoments(epsilon: number): string {
  return `
    let N = uniforms.xShape.x;
    let d = uniforms.xShape.y;
    if (index >= N) { return; }
    let base = index * d;
    var sum = 0.0;
    for (var c = 0; c < d; c++) { sum += x[base + c]; }
    let mean = sum / f32(d);
    var sq = 0.0;
    for (var c = 0; c < d; c++) { let xc = x[base + c] - mean; sq += xc * xc; }
    let inv = inverseSqrt(sq / f32(d) + ${f32(epsilon)});`;
}

function run(
  backend: unknown,
  name: string,
  names: string[],
  inputs: tf.NamedTensorInfoMap,
  shape: number[],
  threads: number,
  code: string,
): tf.TensorInfo {
  const ins = names.map((n) => {
    const t = inputs[n];
    if (t === undefined) throw new Error(`${name}: missing input '${n}'`);
    return t;
  });
  const program = flatProgram(name, names, shape, code, { threads });
  return asWebgpuBackend(backend, name).runWebGPUProgram(program, ins, 'float32');
}

interface Attrs {
  epsilon: number;
}

const dims = (x: tf.TensorInfo | undefined, kernel: string): [number, number] => {
  if (x === undefined || x.shape.length !== 2) throw new Error(`${kernel}: x must be [rows, features]`);
  return [x.shape[0] as number, x.shape[1] as number];
};

const forward: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const { epsilon } = attrs as unknown as Attrs;
  const [N, d] = dims(inputs.x, LAYER_NORM_KERNEL);
  const code = `
  fn main(index : i32) {
    ${rowMoments(epsilon)}
    for (var c = 0; c < d; c++) {
      result[base + c] = (x[base + c] - mean) * inv * g[c] + b[c];
    }
  }`;
  return run(backend, `${LAYER_NORM_KERNEL}_${epsilon}`, ['x', 'g', 'b'], inputs, [N, d], N, code);
};

const gradX: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const { epsilon } = attrs as unknown as Attrs;
  const [N, d] = dims(inputs.x, GRAD_X);
  const code = `
  fn main(index : i32) {
    ${rowMoments(epsilon)}
    var m1 = 0.0;
    var m2 = 0.0;
    for (var c = 0; c < d; c++) {
      let dxhat = dy[base + c] * g[c];
      m1 += dxhat;
      m2 += dxhat * ((x[base + c] - mean) * inv);
    }
    m1 = m1 / f32(d);
    m2 = m2 / f32(d);
    for (var c = 0; c < d; c++) {
      let xhat = (x[base + c] - mean) * inv;
      result[base + c] = (dy[base + c] * g[c] - m1 - xhat * m2) * inv;
    }
  }`;
  return run(backend, `${GRAD_X}_${epsilon}`, ['x', 'g', 'dy'], inputs, [N, d], N, code);
};

const stats: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const { epsilon } = attrs as unknown as Attrs;
  const [N] = dims(inputs.x, STATS);
  const code = `
  fn main(index : i32) {
    ${rowMoments(epsilon)}
    result[index] = mean;
    result[N + index] = inv;
  }`;
  return run(backend, `${STATS}_${epsilon}`, ['x'], inputs, [2, N], N, code);
};

const gradGamma: tf.KernelFunc = ({ inputs, backend }) => {
  const [, d] = dims(inputs.x, GRAD_GAMMA);
  const code = `
  fn main(index : i32) {
    let N = uniforms.xShape.x;
    let d = uniforms.xShape.y;
    if (index >= d) { return; }
    var acc = 0.0;
    for (var r = 0; r < N; r++) {
      acc += dy[r * d + index] * ((x[r * d + index] - stats[r]) * stats[N + r]);
    }
    result[index] = acc;
  }`;
  return run(backend, GRAD_GAMMA, ['x', 'dy', 'stats'], inputs, [d], d, code);
};

const gradBeta: tf.KernelFunc = ({ inputs, backend }) => {
  const [, d] = dims(inputs.dy, GRAD_BETA);
  const code = `
  fn main(index : i32) {
    let N = uniforms.dyShape.x;
    let d = uniforms.dyShape.y;
    if (index >= d) { return; }
    var acc = 0.0;
    for (var r = 0; r < N; r++) { acc += dy[r * d + index]; }
    result[index] = acc;
  }`;
  return run(backend, GRAD_BETA, ['dy'], inputs, [d], d, code);
};

export const layerNormKernelConfigs: tf.KernelConfig[] = [
  { kernelName: LAYER_NORM_KERNEL, backendName: 'webgpu', kernelFunc: forward },
  { kernelName: GRAD_X, backendName: 'webgpu', kernelFunc: gradX },
  { kernelName: STATS, backendName: 'webgpu', kernelFunc: stats },
  { kernelName: GRAD_GAMMA, backendName: 'webgpu', kernelFunc: gradGamma },
  { kernelName: GRAD_BETA, backendName: 'webgpu', kernelFunc: gradBeta },
];

export const layerNormGradConfig: tf.GradConfig = {
  kernelName: LAYER_NORM_KERNEL,
  inputsToSave: ['x', 'g'],
  gradFunc: (dy, saved, attrs) => {
    const [x, g] = saved as [tf.Tensor, tf.Tensor];
    const e = tf.engine();
    const a = attrs as unknown as tf.NamedAttrMap;
    return {
      x: () => e.runKernel(GRAD_X, { x, g, dy: dy as tf.Tensor }, a) as tf.Tensor,
      g: () => {
        const s = e.runKernel(STATS, { x }, a) as tf.Tensor;
        return e.runKernel(GRAD_GAMMA, { x, dy: dy as tf.Tensor, stats: s }, a) as tf.Tensor;
      },
      b: () => e.runKernel(GRAD_BETA, { dy: dy as tf.Tensor }, a) as tf.Tensor,
    };
  },
};

/** Fused layer norm on the active (webgpu) backend: x [rows, d], g [d], b [d] → [rows, d]; differentiable. */
export function fusedLayerNorm(x: tf.Tensor2D, g: tf.Tensor1D, b: tf.Tensor1D, epsilon: number): tf.Tensor2D {
  return tf.engine().runKernel(LAYER_NORM_KERNEL, { x, g, b }, { epsilon }) as tf.Tensor2D;
}
