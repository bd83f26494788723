// Fused exact (erf) GELU on webgpu, elementwise over any shape (the composed version in ../layers.ts takes 5
// dispatches forward and 7 backward; this one 1 and 1).
//   'RetireGelu'     x → x·Φ(x),  Φ(x) = (1 + erf(x/√2))/2
//   'RetireGeluGrad' x, dy → dy·(Φ(x) + x·φ(x)),  φ(x) = exp(−x²/2)/√(2π)
// erf is webgpuErf.ts's snippet (tfjs's own constants), so fused and composed agree to float32 rounding.
import * as tf from '@tensorflow/tfjs';
import { WGSL_ERF } from './webgpuErf';
import { asWebgpuBackend, f32, flatProgram } from './webgpuProgram';

const GELU_KERNEL = 'RetireGelu';
const GELU_GRAD = 'RetireGeluGrad';

function erfAndCdf(): string {
  return `${WGSL_ERF}
  fn retireCdf(x : f32) -> f32 {
    return (retireErf(x * ${f32(Math.SQRT1_2)}) + 1.0) * 0.5;
  }`;
}

function run(backend: unknown, name: string, names: string[], inputs: tf.NamedTensorInfoMap, code: string) {
  const ins = names.map((n) => {
    const t = inputs[n];
    if (t === undefined) throw new Error(`${name}: missing input '${n}'`);
    return t;
  });
  const x = ins[0] as tf.TensorInfo;
  const program = flatProgram(name, names, x.shape.slice(), code, {
    threads: tf.util.sizeFromShape(x.shape),
    size: true,
  });
  return asWebgpuBackend(backend, name).runWebGPUProgram(program, ins, 'float32');
}

const forward: tf.KernelFunc = ({ inputs, backend }) =>
  run(
    backend,
    GELU_KERNEL,
    ['x'],
    inputs,
    `${erfAndCdf()}
  fn main(index : i32) {
    if (index >= uniforms.size) { return; }
    let v = x[index];
    result[index] = v * retireCdf(v);
  }`,
  );

const backward: tf.KernelFunc = ({ inputs, backend }) =>
  run(
    backend,
    GELU_GRAD,
    ['x', 'dy'],
    inputs,
    `${erfAndCdf()}
  fn main(index : i32) {
    if (index >= uniforms.size) { return; }
    let v = x[index];
    let pdf = exp(v * v * -0.5) * ${f32(1 / Math.sqrt(2 * Math.PI))};
    result[index] = dy[index] * (retireCdf(v) + v * pdf);
  }`,
  );

export const geluKernelConfigs: tf.KernelConfig[] = [
  { kernelName: GELU_KERNEL, backendName: 'webgpu', kernelFunc: forward },
  { kernelName: GELU_GRAD, backendName: 'webgpu', kernelFunc: backward },
];

export const geluGradConfig: tf.GradConfig = {
  kernelName: GELU_KERNEL,
  inputsToSave: ['x'],
  gradFunc: (dy, saved) => {
    const [x] = saved as [tf.Tensor];
    return { x: () => tf.engine().runKernel(GELU_GRAD, { x, dy: dy as tf.Tensor }, {}) as tf.Tensor };
  },
};

/** Fused GELU on the active (webgpu) backend, any shape; differentiable. */
export function fusedGelu<T extends tf.Tensor>(x: T): T {
  return tf.engine().runKernel(GELU_KERNEL, { x }, {}) as T;
}
