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
// Guarded step (applyGuardedGradients, webgpu only): the same kernels with two more scalar inputs computed on the
// device, `s` (the gradient-clip coefficient: every g is read as g·s, the f32 product the host path's tf.mul(g, s)
// gives) and `ok` (1: apply; 0: the step is refused). With ok = 0 every kernel writes its input back unchanged
// (WGSL select, so a NaN in g never reaches p, m or v) and the bias-correction powers stay: the host reads nothing
// before the update, and a refused step leaves weights and Adam's slots as they were.
//
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
  const { beta, square, guarded } = attrs as unknown as { beta: number; square: boolean; guarded?: boolean };
  // guarded: g·s is the clipped gradient (one f32 product, as tf.mul(g, s)); ok[0] = 0 keeps m as it was
  const g = guarded ? 'gs' : 'g[index]';
  const gTerm = square ? `${g} * ${g}` : g;
  const code = guarded
    ? `
  fn main(index : i32) {
    if (index >= uniforms.size) { return; }
    let gs = g[index] * s[0];
    let next = m[index] * uniforms.beta + ${gTerm} * uniforms.oneMinusBeta;
    result[index] = select(m[index], next, ok[0] > 0.5);
  }`
    : `
  fn main(index : i32) {
    if (index >= uniforms.size) { return; }
    result[index] = m[index] * uniforms.beta + ${gTerm} * uniforms.oneMinusBeta;
  }`;
  return run(
    backend,
    `${ADAM_MOMENT_KERNEL}_${square ? 'sq' : 'lin'}${guarded ? '_guarded' : ''}`,
    guarded ? ['m', 'g', 's', 'ok'] : ['m', 'g'],
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
  const { learningRate, epsilon, guarded } = attrs as unknown as {
    learningRate: number;
    epsilon: number;
    guarded?: boolean;
  };
  const next = '(mHat / (sqrt(vHat) + uniforms.epsilon)) * uniforms.negLr + p[index]';
  const code = `
  fn main(index : i32) {
    if (index >= uniforms.size) { return; }
    let mHat = m[index] / c1[0];
    let vHat = v[index] / c2[0];
    result[index] = ${guarded ? `select(p[index], ${next}, ok[0] > 0.5)` : next};
  }`;
  const names = guarded ? ['p', 'm', 'v', 'c1', 'c2', 'ok'] : ['p', 'm', 'v', 'c1', 'c2'];
  const name = guarded ? `${ADAM_UPDATE_KERNEL}_guarded` : ADAM_UPDATE_KERNEL;
  return run(backend, name, names, inputs, code, 'negLr : f32, epsilon : f32,', [
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

/** The device-side guard of one update: both float32 scalars, computed on the GPU (nothing read to the host). */
export interface AdamGuard {
  /** the factor every gradient is multiplied by before the update (the clip coefficient; 1 = not clipped) */
  scale: tf.Scalar;
  /** 1: apply the update; 0: leave the weights, both moments and the bias-correction powers untouched */
  ok: tf.Scalar;
}

type VariableGradients = Parameters<tf.AdamOptimizer['applyGradients']>[0];

/**
 * tf.AdamOptimizer whose applyGradients runs the fused kernels when useFusedKernels() (webgpu), and is tfjs's own
 * everywhere else. Same constructor, same state, same serialisation class name ('Adam').
 */
export class WebgpuAdamOptimizer extends tf.AdamOptimizer {
  override applyGradients(variableGradients: VariableGradients): void {
    const wasm = tf.getBackend() === 'wasm' && tf.getKernel(WASM_ADAM_KERNEL, 'wasm') !== undefined;
    if (!wasm && !useFusedKernels()) {
      super.applyGradients(variableGradients);
      return;
    }
    this.fusedStep(variableGradients, wasm, null);
  }

  /**
   * One update scaled by `guard.scale` and masked by `guard.ok`, both computed on the device: no read to the host
   * before the update. Only on the fused webgpu path (throws elsewhere: there the caller clips and checks on the
   * host, which keeps cpu and wasm bit-identical). The iteration count (a host number) advances here and is taken
   * back by forgetRefusedUpdates once the host has read that the update was refused.
   */
  applyGuardedGradients(variableGradients: VariableGradients, guard: AdamGuard): void {
    if (!useFusedKernels()) {
      throw new Error('WebgpuAdamOptimizer.applyGuardedGradients: only on webgpu with the fused kernels enabled');
    }
    this.fusedStep(variableGradients, false, guard);
  }

  /**
   * The host learned (after its one read) that the last `updates` guarded updates were refused: their kernels wrote
   * nothing, and this takes back the iteration count they advanced, so the whole state is as before them.
   */
  forgetRefusedUpdates(updates: number): void {
    const self = this as unknown as { iterations_: number; iterations: number };
    self.iterations_ = Math.max(0, self.iterations - updates);
  }

  private fusedStep(variableGradients: VariableGradients, wasm: boolean, guard: AdamGuard | null): void {
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
      // the guard's scalars as the kernels bind them (shape [1]); unguarded kernels take neither
      const extra: tf.NamedTensorMap =
        guard === null ? {} : { s: tf.reshape(guard.scale, [1]), ok: tf.reshape(guard.ok, [1]) };
      const guarded = guard !== null;
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
        const newM = engine.runKernel(
          ADAM_MOMENT_KERNEL,
          { m, g, ...extra },
          { beta: this.beta1, square: false, guarded },
        ) as tf.Tensor;
        const newV = engine.runKernel(
          ADAM_MOMENT_KERNEL,
          { m: v, g, ...extra },
          { beta: this.beta2, square: true, guarded },
        ) as tf.Tensor;
        m.assign(newM);
        v.assign(newV);
        const attrs = { learningRate: this.learningRate, epsilon: this.epsilon, guarded };
        const ok: tf.NamedTensorMap = guard === null ? {} : { ok: extra.ok as tf.Tensor };
        value.assign(
          engine.runKernel(ADAM_UPDATE_KERNEL, { p: value, m: newM, v: newV, c1, c2, ...ok }, attrs) as tf.Tensor,
        );
      });
      const b1 = tf.mul(self.accBeta1, this.beta1);
      const b2 = tf.mul(self.accBeta2, this.beta2);
      if (guard === null) {
        self.accBeta1.assign(b1);
        self.accBeta2.assign(b2);
      } else {
        // a refused step keeps the powers β^(t+1) as they were (the same float32 product as the line above)
        const apply = tf.greater(guard.ok, 0.5);
        self.accBeta1.assign(tf.where(apply, b1, self.accBeta1));
        self.accBeta2.assign(tf.where(apply, b2, self.accBeta2));
      }
    });
    self.incrementIterations();
  }
}
