// Fused ActObs / weighted SFT loss reduction on webgpu (../losses/actObsLoss.ts weightedSftLoss, docs/METHODS.md §1):
//   'RetireSftReduce' lp [B, T], cls [B, T] → [5] loss, actionCE, observationCE, actionTokens, observationTokens
// loss = −mean_b Σ_t w·lp / max(1, Σ_t w), w = wAct on action targets, wObs on observation targets.
import * as tf from '@tensorflow/tfjs';
import { type UniformValue } from './webgpuProgram';
import {
  checkCls,
  GRAD,
  input,
  int32,
  IS_ACTION,
  IS_OBS,
  perSequenceProgram,
  reduceCode,
  reduceProgram,
  runReduction,
  reductionGrad,
} from './webgpuReduction';

const SFT_REDUCE_KERNEL = 'RetireSftReduce';
export const SFT_STATS = ['loss', 'actionCE', 'observationCE', 'actionTokens', 'observationTokens'] as const;

interface SftAttrs {
  actionWeight: number;
  observationWeight: number;
}

const sftUniforms = 'wAct : f32, wObs : f32,';
const sftUniformValues = (a: SftAttrs): UniformValue[] => [
  { type: 'float32', data: [a.actionWeight] },
  { type: 'float32', data: [a.observationWeight] },
];

const sftForward: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const a = attrs as unknown as SftAttrs;
  const names = ['lp', 'cls'];
  checkCls(input(inputs, 'cls', SFT_REDUCE_KERNEL), SFT_REDUCE_KERNEL);
  const code = reduceCode(
    5,
    `var num = 0.0;
      var den = 0.0;
      for (var t = 0; t < T; t++) {
        let i = b * T + t;
        let c = cls[i];
        let x = lp[i];
        if ${IS_ACTION} { num += uniforms.wAct * x; den += uniforms.wAct; a[1] += x; a[3] += 1.0; }
        if ${IS_OBS} { num += uniforms.wObs * x; den += uniforms.wObs; a[2] += x; a[4] += 1.0; }
      }
      a[0] += num / max(den, 1.0);`,
    `result[0] = -s[0] / Bf;
      result[1] = -s[1] / max(s[3], 1.0);
      result[2] = -s[2] / max(s[4], 1.0);
      result[3] = s[3];
      result[4] = s[4];`,
  );
  const program = reduceProgram(SFT_REDUCE_KERNEL, names, 5, code, sftUniforms);
  return runReduction(backend, SFT_REDUCE_KERNEL, program, inputs, names, sftUniformValues(a));
};

const sftBackward: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const a = attrs as unknown as SftAttrs;
  const kernel = SFT_REDUCE_KERNEL + GRAD;
  const names = ['cls', 'dy', 'fwd'];
  const [B, T] = checkCls(input(inputs, 'cls', kernel), kernel);
  const code = `
  fn main(index : i32) {
    let B = uniforms.clsShape.x;
    let T = uniforms.clsShape.y;
    let b = index;
    if (b >= B) { return; }
    var den = 0.0;
    for (var t = 0; t < T; t++) {
      let c = cls[b * T + t];
      if ${IS_ACTION} { den += uniforms.wAct; }
      if ${IS_OBS} { den += uniforms.wObs; }
    }
    let perSeq = -dy[0] / (f32(B) * max(den, 1.0));
    let dA = -dy[1] / max(fwd[3], 1.0);
    let dO = -dy[2] / max(fwd[4], 1.0);
    for (var t = 0; t < T; t++) {
      let i = b * T + t;
      let c = cls[i];
      var g = 0.0;
      if ${IS_ACTION} { g = perSeq * uniforms.wAct + dA; }
      if ${IS_OBS} { g = perSeq * uniforms.wObs + dO; }
      result[i] = g;
    }
  }`;
  const program = perSequenceProgram(kernel, names, [B, T], B, code, sftUniforms);
  return runReduction(backend, kernel, program, inputs, names, sftUniformValues(a));
};

export const sftKernelConfigs: tf.KernelConfig[] = [
  { kernelName: SFT_REDUCE_KERNEL, backendName: 'webgpu', kernelFunc: sftForward },
  { kernelName: SFT_REDUCE_KERNEL + GRAD, backendName: 'webgpu', kernelFunc: sftBackward },
];

export const sftGradConfig: tf.GradConfig = reductionGrad(SFT_REDUCE_KERNEL, ['lp', 'cls']);

/** [5] SFT statistics (SFT_STATS order) from per-token log-probs lp [B, T] and classes cls [B, T]. */
export function sftReduce(lp: tf.Tensor, cls: tf.Tensor, actionWeight: number, observationWeight: number): tf.Tensor {
  const attrs = { actionWeight, observationWeight };
  return tf.engine().runKernel(SFT_REDUCE_KERNEL, { lp, cls: int32(cls) }, attrs as never) as tf.Tensor;
}
