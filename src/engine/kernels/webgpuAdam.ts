// Adam with fused WGSL update kernels on webgpu: 3 dispatches per variable per step instead of tfjs's 14.
//   'RetireAdamMoment' m, g → β·m + (1 − β)·g   (or ·g² with attr square: the second moment)
//   'RetireAdamUpdate' p, m', v', 1 − β1^t, 1 − β2^t (scalars) → p − lr · (m'/(1−β1^t)) / (√(v'/(1−β2^t)) + ε)
// term for term tfjs's AdamOptimizer.applyGradients (same constants, same order), so the state is the same objects:
// the moment variables, accBeta1/accBeta2 and the iteration count live where tfjs keeps them, and getWeights /
// setWeights / ../optimizer.ts getAdamState / setAdamState (the checkpoint format) are unchanged. On wasm the step is
// ONE kernel per variable (../wasmAdam.ts, bit-identical to tfjs's 14). On every other backend (and on webgpu with
// the fused kernels turned off) applyGradients IS tfjs's, so runs and resumes there stay bit-identical to
// tf.train.adam.
//
// Not a flat-buffer Adam: the lab's parameters are separate tfjs variables, and a WGSL program binds at most 8
// storage buffers with one output, so one dispatch per step over all parameters would need the model to keep its
// parameters in one buffer (and slice them out each step, one dispatch per variable again).
import * as tf from '@tensorflow/tfjs';
import { useFusedKernels } from './kernelSwitch';
import { asWebgpuBackend, flatProgram, type UniformValue } from './webgpuProgram';
import { WASM_ADAM_KERNEL } from '../wasmAdam';

const ADAM_MOMENT_KERNEL = 'RetireAdamMoment';
const ADAM_UPDATE_KERNEL = 'RetireAdamUpdate';

function run(
  backend: unknown,
  name: string,
  names: string[],
  inputs: tf.NamedTensorInfoMap,
  code: string,
  uniforms: string,
  values: UniformValue[],
): tf.TensorInfo {
  const ins = names.map((n) => {
    const t = inputs[n];
    if (t === undefined) throw new Error(`${name}: missing input '${n}'`);
    return t;
  });
  const shape = (ins[0] as tf.TensorInfo).shape.slice();
  const size = tf.util.sizeFromShape(shape);
  const program = flatProgram(name, names, shape, code, { threads: size, size: true, uniforms });
  return asWebgpuBackend(backend, name).runWebGPUProgram(program, ins, 'float32', values);
}

const moment: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const { beta, square } = attrs as unknown as { beta: number; square: boolean };
  const gTerm = square ? 'g[index] * g[index]' : 'g[index]';
  const code = `
  fn main(index : i32) {
    if (index >= uniforms.size) { return; }
    result[index] = m[index] * uniforms.beta + ${gTerm} * uniforms.oneMinusBeta;
  }`;
  return run(
    backend,
    `${ADAM_MOMENT_KERNEL}_${square ? 'sq' : 'lin'}`,
    ['m', 'g'],
    inputs,
    code,
    'beta : f32, oneMinusBeta : f32,',
    [
      { type: 'float32', data: [beta] },
      { type: 'float32', data: [1 - beta] },
    ],
  );
};

const update: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const { learningRate, epsilon } = attrs as unknown as { learningRate: number; epsilon: number };
  const code = `
  fn main(index : i32) {
    if (index >= uniforms.size) { return; }
    let mHat = m[index] / c1[0];
    let vHat = v[index] / c2[0];
    result[index] = (mHat / (sqrt(vHat) + uniforms.epsilon)) * uniforms.negLr + p[index];
  }`;
  return run(backend, ADAM_UPDATE_KERNEL, ['p', 'm', 'v', 'c1', 'c2'], inputs, code, 'negLr : f32, epsilon : f32,', [
    { type: 'float32', data: [-learningRate] },
    { type: 'float32', data: [epsilon] },
  ]);
};

export const adamKernelConfigs: tf.KernelConfig[] = [
  { kernelName: ADAM_MOMENT_KERNEL, backendName: 'webgpu', kernelFunc: moment },
  { kernelName: ADAM_UPDATE_KERNEL, backendName: 'webgpu', kernelFunc: update },
];

interface OptimizerVariable {
  originalName: string;
  variable: tf.Variable;
}

/** tfjs AdamOptimizer's private fields, as this subclass reads them (checked when the fused path first runs) */
interface AdamInternals {
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
  accumulatedFirstMoment: OptimizerVariable[];
  accumulatedSecondMoment: OptimizerVariable[];
  incrementIterations(): void;
}

/**
 * tf.AdamOptimizer whose applyGradients runs the fused kernels when useFusedKernels() (webgpu), and is tfjs's own
 * everywhere else. Same constructor, same state, same serialisation class name ('Adam').
 */
export class WebgpuAdamOptimizer extends tf.AdamOptimizer {
  override applyGradients(variableGradients: Parameters<tf.AdamOptimizer['applyGradients']>[0]): void {
    const wasm = tf.getBackend() === 'wasm' && tf.getKernel(WASM_ADAM_KERNEL, 'wasm') !== undefined;
    if (!wasm && !useFusedKernels()) {
      super.applyGradients(variableGradients);
      return;
    }
    const self = this as unknown as AdamInternals;
    if (
      !(self.accBeta1 instanceof tf.Variable) ||
      !Array.isArray(self.accumulatedFirstMoment) ||
      typeof self.incrementIterations !== 'function'
    ) {
      throw new Error('WebgpuAdamOptimizer: tfjs AdamOptimizer internals changed (accBeta1, accumulatedFirstMoment)');
    }
    const names = Array.isArray(variableGradients)
      ? variableGradients.map((v) => v.name)
      : Object.keys(variableGradients);
    const engine = tf.engine();
    const registered = (engine as unknown as { registeredVariables: Record<string, tf.Variable> }).registeredVariables;
    tf.tidy(() => {
      const c1 = tf.sub(1, self.accBeta1);
      const c2 = tf.sub(1, self.accBeta2);
      names.forEach((name, i) => {
        const value = registered[name];
        if (value === undefined) throw new Error(`WebgpuAdamOptimizer: no variable named '${name}'`);
        // moments are created lazily, named and ordered exactly as tfjs does (the checkpoint format relies on it)
        self.accumulatedFirstMoment[i] ??= {
          originalName: `${name}/m`,
          variable: tf.tidy(() => tf.zerosLike(value).variable(false)),
        };
        self.accumulatedSecondMoment[i] ??= {
          originalName: `${name}/v`,
          variable: tf.tidy(() => tf.zerosLike(value).variable(false)),
        };
        const g = Array.isArray(variableGradients) ? variableGradients[i]?.tensor : variableGradients[name];
        if (g == null) return;
        const m = (self.accumulatedFirstMoment[i] as OptimizerVariable).variable;
        const v = (self.accumulatedSecondMoment[i] as OptimizerVariable).variable;
        if (wasm) {
          // one kernel: the same float32 operations as tfjs's 14 (../wasmAdam.ts), so bit-identical
          const attrs = {
            beta1: this.beta1,
            beta2: this.beta2,
            learningRate: this.learningRate,
            epsilon: this.epsilon,
          };
          const [newM, newV, newP] = engine.runKernel(
            WASM_ADAM_KERNEL,
            { p: value, m, v, g, c1, c2 },
            attrs,
          ) as tf.Tensor[];
          m.assign(newM as tf.Tensor);
          v.assign(newV as tf.Tensor);
          value.assign(newP as tf.Tensor);
          return;
        }
        const newM = engine.runKernel(ADAM_MOMENT_KERNEL, { m, g }, { beta: this.beta1, square: false }) as tf.Tensor;
        const newV = engine.runKernel(ADAM_MOMENT_KERNEL, { m: v, g }, { beta: this.beta2, square: true }) as tf.Tensor;
        m.assign(newM);
        v.assign(newV);
        const attrs = { learningRate: this.learningRate, epsilon: this.epsilon };
        value.assign(engine.runKernel(ADAM_UPDATE_KERNEL, { p: value, m: newM, v: newV, c1, c2 }, attrs) as tf.Tensor);
      });
      self.accBeta1.assign(tf.mul(self.accBeta1, this.beta1));
      self.accBeta2.assign(tf.mul(self.accBeta2, this.beta2));
    });
    self.incrementIterations();
  }
}
