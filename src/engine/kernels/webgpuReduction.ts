// Shared parts of the fused loss reductions (webgpuSftReduce.ts, webgpuGrpoReduce.ts, webgpuOpdReduce.ts): every
// statistic of a loss in ONE dispatch forward (a single workgroup; one invocation per sequence, then a workgroup sum)
// and ONE dispatch backward (one invocation per sequence). Per-token inputs are [B, T] (flat index b·T + t), cls
// [B, T] int32 target classes; `rows` (the differentiable input) is lp [B·T] or planes [2, B·T] from the row kernel
// of webgpuTokenStats.ts. Outputs are packed statistic vectors; the gradient kernels (name + 'Grad') take
// (…saved inputs, dy [K], fwd [K]) and return d rows.
import * as tf from '@tensorflow/tfjs';
import { TokenClass } from '../../core/env/types';
import { asWebgpuBackend, flatProgram, type UniformValue } from './webgpuProgram';

export const GRAD = 'Grad';

/** invocations of the single reduction workgroup (one per sequence, looping when B is larger) */
const WG = 64;

export const IS_ACTION = `(c == ${TokenClass.actionHead} || c == ${TokenClass.actionArg})`;
export const IS_OBS = `(c == ${TokenClass.observation})`;

/** WGSL of a one-workgroup reduction: `body` adds to a[0..K) per sequence b; `finish` writes result from s[0..K). */
export function reduceCode(k: number, body: string, finish: string): string {
  return `
  var<workgroup> red : array<f32, ${WG * k}>;
  fn main(index : i32) {
    let tid = i32(localId.x);
    let B = uniforms.clsShape.x;
    let T = uniforms.clsShape.y;
    let R = B * T;
    var a : array<f32, ${k}>;
    for (var j = 0; j < ${k}; j++) { a[j] = 0.0; }
    for (var b = tid; b < B; b += ${WG}) {
      ${body}
    }
    for (var j = 0; j < ${k}; j++) { red[j * ${WG} + tid] = a[j]; }
    workgroupBarrier();
    if (tid == 0) {
      var s : array<f32, ${k}>;
      for (var j = 0; j < ${k}; j++) {
        var acc = 0.0;
        for (var w = 0; w < ${WG}; w++) { acc += red[j * ${WG} + w]; }
        s[j] = acc;
      }
      let Bf = f32(B);
      ${finish}
    }
  }`;
}

export function reduceProgram(name: string, names: string[], k: number, code: string, uniforms?: string) {
  return flatProgram(name, names, [k], code, { threads: WG, workgroup: WG, ...(uniforms ? { uniforms } : {}) });
}

/** a per-sequence program (one invocation per b) writing an output of `shape` */
export function perSequenceProgram(
  name: string,
  names: string[],
  shape: number[],
  batch: number,
  code: string,
  uniforms?: string,
) {
  return flatProgram(name, names, shape, code, { threads: batch, ...(uniforms ? { uniforms } : {}) });
}

export function input(inputs: tf.NamedTensorInfoMap, name: string, kernel: string): tf.TensorInfo {
  const t = inputs[name];
  if (t === undefined) throw new Error(`${kernel}: missing input '${name}'`);
  return t;
}

/** Run `program` on the webgpu backend over `inputs[names…]` (in that order): the reductions' one launch path. */
export function runReduction(
  backend: unknown,
  kernel: string,
  program: ReturnType<typeof flatProgram>,
  inputs: tf.NamedTensorInfoMap,
  names: readonly string[],
  uniforms?: UniformValue[],
): tf.TensorInfo {
  const ins = names.map((n) => input(inputs, n, kernel));
  return asWebgpuBackend(backend, kernel).runWebGPUProgram(program, ins, 'float32', uniforms);
}

export function checkCls(cls: tf.TensorInfo, kernel: string): [number, number] {
  if (cls.shape.length !== 2) throw new Error(`${kernel}: cls must be [B, T], got [${cls.shape}]`);
  return [cls.shape[0] as number, cls.shape[1] as number];
}

/** gradient of a reduction: d rows from (the saved inputs, dy, fwd); the other inputs are data (zero gradient) */
export function reductionGrad(kernelName: string, names: string[]): tf.GradConfig {
  return {
    kernelName,
    inputsToSave: names,
    outputsToSave: [true],
    gradFunc: (dy, saved, attrs) => {
      const byName: tf.NamedTensorMap = {};
      names.forEach((n, i) => (byName[n] = saved[i] as tf.Tensor));
      const gradInputs = { ...byName, dy: dy as tf.Tensor, fwd: saved[names.length] as tf.Tensor };
      const grads: Record<string, () => tf.Tensor> = {};
      for (const n of names) grads[n] = () => tf.zerosLike(byName[n] as tf.Tensor);
      const rowsName = names[0] as string;
      grads[rowsName] = () => tf.engine().runKernel(kernelName + GRAD, gradInputs, attrs) as tf.Tensor;
      return grads;
    },
  };
}

/** cls as int32 (the kernels index it as i32) */
export function int32(t: tf.Tensor): tf.Tensor {
  return t.dtype === 'int32' ? t : tf.cast(t, 'int32');
}
