// Fused GRPO loss reduction on webgpu (../losses/grpoLoss.ts, docs/METHODS.md §2): clipped surrogate with verl's dual
// clip (c = clipRatioC; 0 = off), aggregation, β·k3 KL and every statistic.
//   'RetireGrpoReduce[Ref]' rows = lp [B·T] or [2, B·T] (lp, entropy), old [B, T], cls [B, T], adv [B], refLp [B, T]
//   → [10] loss, policyLoss, kl, clipFracLow, clipFracHigh, ratioMean, entropy, actionTokens, clipFracDual, ratioDevSq
// One kernel name without and one with the reference log-probs (tfjs saves gradient inputs by name).
import * as tf from '@tensorflow/tfjs';
import { type UniformValue } from './webgpuProgram';
import {
  checkCls,
  GRAD,
  input,
  int32,
  IS_ACTION,
  perSequenceProgram,
  reduceCode,
  reduceProgram,
  runReduction,
  reductionGrad,
} from './webgpuReduction';

const GRPO_REDUCE_KERNEL = 'RetireGrpoReduce';
const REF = 'Ref';
export const GRPO_STATS = [
  'loss',
  'policyLoss',
  'kl',
  'clipFracLow',
  'clipFracHigh',
  'ratioMean',
  'entropy',
  'actionTokens',
  'clipFracDual',
  'ratioDevSq',
] as const;
const NSTATS = GRPO_STATS.length;

export type AggregationCode = 0 | 1 | 2; // token-mean, seq-mean-token-sum, seq-mean-token-mean

interface GrpoAttrs {
  clipLow: number;
  clipHigh: number;
  klCoef: number;
  /** dual-clip c (> 1), 0 = off */
  clipRatioC: number;
  aggregation: AggregationCode;
  hasRef: boolean;
  hasEntropy: boolean;
}

const grpoUniforms = 'lo : f32, hi : f32, klCoef : f32, dualC : f32,';
const grpoUniformValues = (a: GrpoAttrs): UniformValue[] => [
  { type: 'float32', data: [1 - a.clipLow] },
  { type: 'float32', data: [1 + a.clipHigh] },
  { type: 'float32', data: [a.klCoef] },
  { type: 'float32', data: [a.clipRatioC] },
];
const grpoNames = (a: GrpoAttrs): string[] => ['rows', 'old', 'cls', 'adv', ...(a.hasRef ? ['refLp'] : [])];

/** WGSL: per-token quantities of the clipped surrogate at flat index i of sequence b (defines lp, r, …). */
function grpoToken(a: GrpoAttrs): string {
  return `
        let lp = rows[i];
        let A = adv[b];
        let dOld = lp - old[i];
        let r = exp(clamp(dOld, -20.0, 20.0));
        let u = r * A;
        let cl = clamp(r, uniforms.lo, uniforms.hi) * A;
        let pgBase = -min(u, cl);
        let dualOn = uniforms.dualC > 0.0 && A < 0.0 && pgBase > -A * uniforms.dualC;
        let pg = select(pgBase, -A * uniforms.dualC, dualOn);
        ${
          a.hasRef
            ? `let e = refLp[i] - lp;
        let ec = clamp(e, -20.0, 20.0);
        let k3 = exp(ec) - ec - 1.0;`
            : 'let k3 = 0.0;'
        }`;
}

/** per-sequence weight of the aggregated (loss) terms: token-mean 1/N, seq-token-sum 1/B, seq-token-mean 1/(B·n_b) */
function aggWeight(code: AggregationCode): string {
  return ['1.0 / max(N, 1.0)', '1.0 / f32(B)', '1.0 / (f32(B) * max(rowN, 1.0))'][code] as string;
}

const grpoForward: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const a = attrs as unknown as GrpoAttrs;
  const names = grpoNames(a);
  checkCls(input(inputs, 'cls', GRPO_REDUCE_KERNEL), GRPO_REDUCE_KERNEL);
  const agg = a.aggregation === 2 ? 'rowPg / max(rowN, 1.0)' : 'rowPg';
  const aggKl = a.aggregation === 2 ? 'rowKl / max(rowN, 1.0)' : 'rowKl';
  const den = a.aggregation === 0 ? 'max(s[7], 1.0)' : 'Bf';
  const code = reduceCode(
    NSTATS,
    `var rowPg = 0.0;
      var rowKl = 0.0;
      var rowN = 0.0;
      for (var t = 0; t < T; t++) {
        let i = b * T + t;
        let c = cls[i];
        if (!${IS_ACTION}) { continue; }
        ${grpoToken(a)}
        rowPg += pg;
        rowKl += k3;
        rowN += 1.0;
        a[2] += k3;
        a[3] += select(0.0, 1.0, r < uniforms.lo && A < 0.0);
        a[4] += select(0.0, 1.0, r > uniforms.hi && A > 0.0);
        a[5] += r;
        ${a.hasEntropy ? 'a[6] += rows[R + i];' : ''}
        a[8] += select(0.0, 1.0, dualOn);
        a[9] += (r - 1.0) * (r - 1.0);
      }
      a[0] += ${agg};
      a[1] += ${aggKl};
      a[7] += rowN;`,
    `let n = max(s[7], 1.0);
      let policyLoss = s[0] / ${den};
      result[0] = ${a.hasRef && a.klCoef > 0 ? `policyLoss + uniforms.klCoef * (s[1] / ${den})` : 'policyLoss'};
      result[1] = policyLoss;
      result[2] = s[2] / n;
      result[3] = s[3] / n;
      result[4] = s[4] / n;
      result[5] = s[5] / n;
      result[6] = s[6] / n;
      result[7] = s[7];
      result[8] = s[8] / n;
      result[9] = s[9] / n;`,
  );
  const key = `${GRPO_REDUCE_KERNEL}_${a.aggregation}_${a.hasRef ? 1 : 0}${a.hasEntropy ? 1 : 0}${a.klCoef > 0 ? 1 : 0}`;
  const program = reduceProgram(key, names, NSTATS, code, grpoUniforms);
  return runReduction(backend, GRPO_REDUCE_KERNEL, program, inputs, names, grpoUniformValues(a));
};

const grpoBackward: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const a = attrs as unknown as GrpoAttrs;
  const kernel = GRPO_REDUCE_KERNEL + GRAD;
  const names = [...grpoNames(a), 'dy', 'fwd'];
  const [B] = checkCls(input(inputs, 'cls', kernel), kernel);
  const rows = input(inputs, 'rows', kernel);
  const klOn = a.hasRef && a.klCoef > 0;
  const code = `
  fn main(index : i32) {
    let B = uniforms.clsShape.x;
    let T = uniforms.clsShape.y;
    let R = B * T;
    let b = index;
    if (b >= B) { return; }
    let N = fwd[7];
    let n = max(N, 1.0);
    var rowN = 0.0;
    for (var t = 0; t < T; t++) {
      let c = cls[b * T + t];
      if ${IS_ACTION} { rowN += 1.0; }
    }
    let w = ${aggWeight(a.aggregation)};
    let dPolicy = (dy[0] + dy[1]) * w;
    let dKl = ${klOn ? 'dy[0] * uniforms.klCoef * w' : '0.0'} + dy[2] / n;
    for (var t = 0; t < T; t++) {
      let i = b * T + t;
      let c = cls[i];
      if (!${IS_ACTION}) {
        result[i] = 0.0;
        ${a.hasEntropy ? 'result[R + i] = 0.0;' : ''}
        continue;
      }
      ${grpoToken(a)}
      let drdlp = select(0.0, r, dOld >= -20.0 && dOld <= 20.0);
      let inClip = r >= uniforms.lo && r <= uniforms.hi;
      let dpgdr = select(-A * select(select(0.0, 1.0, inClip), 1.0, u <= cl), 0.0, dualOn);
      var g = dPolicy * dpgdr * drdlp + (dy[5] / n) * drdlp + (dy[9] / n) * 2.0 * (r - 1.0) * drdlp;
      ${a.hasRef ? 'g += dKl * select(0.0, -(exp(ec) - 1.0), e >= -20.0 && e <= 20.0);' : ''}
      result[i] = g;
      ${a.hasEntropy ? 'result[R + i] = dy[6] / n;' : ''}
    }
  }`;
  const key = `${kernel}_${a.aggregation}_${a.hasRef ? 1 : 0}${a.hasEntropy ? 1 : 0}${klOn ? 1 : 0}`;
  const program = perSequenceProgram(key, names, rows.shape.slice(), B, code, grpoUniforms);
  return runReduction(backend, kernel, program, inputs, names, grpoUniformValues(a));
};

export const grpoKernelConfigs: tf.KernelConfig[] = [
  { kernelName: GRPO_REDUCE_KERNEL, backendName: 'webgpu', kernelFunc: grpoForward },
  { kernelName: GRPO_REDUCE_KERNEL + GRAD, backendName: 'webgpu', kernelFunc: grpoBackward },
  { kernelName: GRPO_REDUCE_KERNEL + REF, backendName: 'webgpu', kernelFunc: grpoForward },
  { kernelName: GRPO_REDUCE_KERNEL + REF + GRAD, backendName: 'webgpu', kernelFunc: grpoBackward },
];

export const grpoGradConfigs: tf.GradConfig[] = [
  reductionGrad(GRPO_REDUCE_KERNEL, ['rows', 'old', 'cls', 'adv']),
  reductionGrad(GRPO_REDUCE_KERNEL + REF, ['rows', 'old', 'cls', 'adv', 'refLp']),
];

/** [10] GRPO statistics (GRPO_STATS order). rows = lp [B·T] or [2, B·T] (lp, entropy) when hasEntropy. */
export function grpoReduce(
  rows: tf.Tensor,
  old: tf.Tensor,
  cls: tf.Tensor,
  adv: tf.Tensor,
  ref: tf.Tensor | undefined,
  attrs: {
    clipLow: number;
    clipHigh: number;
    klCoef: number;
    clipRatioC: number;
    aggregation: AggregationCode;
    hasEntropy: boolean;
  },
): tf.Tensor {
  const inputs: tf.NamedTensorMap = { rows, old, cls: int32(cls), adv };
  if (ref !== undefined) inputs.refLp = ref;
  const all: GrpoAttrs = { ...attrs, hasRef: ref !== undefined };
  return tf.engine().runKernel(GRPO_REDUCE_KERNEL + (all.hasRef ? REF : ''), inputs, all as never) as tf.Tensor;
}
