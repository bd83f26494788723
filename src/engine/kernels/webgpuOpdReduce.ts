// Fused OPD loss reduction on webgpu (../losses/opdLoss.ts, docs/METHODS.md §3): k3 with its importance ratio r, the full
// reverse KL (from the row kernel's KL plane) or the naive ablation, and every statistic.
//   'RetireOpdReduce' rows = lp [B·T] or [2, B·T] (lp, full KL), tlp [B, T], old [B, T], cls [B, T]
//   → [5] loss, gap, k3, ratioMean, actionTokens
import * as tf from '@tensorflow/tfjs';
import { f32 } from './webgpuProgram';
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

const OPD_REDUCE_KERNEL = 'RetireOpdReduce';
export const OPD_STATS = ['loss', 'gap', 'k3', 'ratioMean', 'actionTokens'] as const;

export type OpdEstimatorCode = 0 | 1 | 2; // k3, full, naive

interface OpdAttrs {
  estimator: OpdEstimatorCode;
  logRatioCap: number;
  negEllCap: number;
}

/** WGSL: OPD per-token terms at flat index i (defines lp, ell, negEll, k3, dOld, rho). */
function opdToken(a: OpdAttrs): string {
  return `
        let lp = rows[i];
        let ell = lp - tlp[i];
        let negEll = min(-ell, ${f32(a.negEllCap)});
        let k3 = (exp(negEll) - 1.0) - negEll;
        let dOld = lp - old[i];
        let rho = exp(min(dOld, ${f32(a.logRatioCap)}));`;
}

const OPD_NAMES = ['rows', 'tlp', 'old', 'cls'];

const opdForward: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const a = attrs as unknown as OpdAttrs;
  checkCls(input(inputs, 'cls', OPD_REDUCE_KERNEL), OPD_REDUCE_KERNEL);
  const term = ['rho * k3', 'rows[R + i]', 'ell'][a.estimator] as string;
  const code = reduceCode(
    5,
    `for (var t = 0; t < T; t++) {
        let i = b * T + t;
        let c = cls[i];
        if (!${IS_ACTION}) { continue; }
        ${opdToken(a)}
        a[0] += ${term};
        a[1] += tlp[i] - old[i];
        a[2] += k3;
        a[3] += rho;
        a[4] += 1.0;
      }`,
    `let n = max(s[4], 1.0);
      result[0] = s[0] / n;
      result[1] = s[1] / n;
      result[2] = s[2] / n;
      result[3] = s[3] / n;
      result[4] = s[4];`,
  );
  const program = reduceProgram(`${OPD_REDUCE_KERNEL}_${a.estimator}`, OPD_NAMES, 5, code);
  return runReduction(backend, OPD_REDUCE_KERNEL, program, inputs, OPD_NAMES);
};

const opdBackward: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const a = attrs as unknown as OpdAttrs;
  const kernel = OPD_REDUCE_KERNEL + GRAD;
  const names = [...OPD_NAMES, 'dy', 'fwd'];
  const [B] = checkCls(input(inputs, 'cls', kernel), kernel);
  const rows = input(inputs, 'rows', kernel);
  // k3: d(r·k3)/dlp = r'·k3 + r·k3'. With both clamps open, r' = r and k3' = −(e − 1), so the sum is exactly
  // −r·(−ℓ): computed so, instead of as the difference of two terms of size r·e^(−ℓ) (the composed ops lose up to
  // ~1e-7·e^(−ℓ)/(−ℓ) relative there, e.g. 1 % at −ℓ = 15)
  const dTerm = ['select(drho * k3 + rho * dk3, -rho * negEll, drhoOpen && dk3Open)', '0.0', '1.0'][
    a.estimator
  ] as string;
  const code = `
  fn main(index : i32) {
    let B = uniforms.clsShape.x;
    let T = uniforms.clsShape.y;
    let R = B * T;
    let b = index;
    if (b >= B) { return; }
    let n = max(fwd[4], 1.0);
    for (var t = 0; t < T; t++) {
      let i = b * T + t;
      let c = cls[i];
      if (!${IS_ACTION}) {
        result[i] = 0.0;
        ${a.estimator === 1 ? 'result[R + i] = 0.0;' : ''}
        continue;
      }
      ${opdToken(a)}
      let dk3Open = -ell <= ${f32(a.negEllCap)};
      let drhoOpen = dOld <= ${f32(a.logRatioCap)};
      let dk3 = select(0.0, -(exp(negEll) - 1.0), dk3Open);
      let drho = select(0.0, rho, drhoOpen);
      result[i] = (dy[0] / n) * (${dTerm}) + (dy[2] / n) * dk3 + (dy[3] / n) * drho;
      ${a.estimator === 1 ? 'result[R + i] = dy[0] / n;' : ''}
    }
  }`;
  const program = perSequenceProgram(`${kernel}_${a.estimator}`, names, rows.shape.slice(), B, code);
  return runReduction(backend, kernel, program, inputs, names);
};

export const opdKernelConfigs: tf.KernelConfig[] = [
  { kernelName: OPD_REDUCE_KERNEL, backendName: 'webgpu', kernelFunc: opdForward },
  { kernelName: OPD_REDUCE_KERNEL + GRAD, backendName: 'webgpu', kernelFunc: opdBackward },
];

export const opdGradConfig: tf.GradConfig = reductionGrad(OPD_REDUCE_KERNEL, OPD_NAMES);

/** [5] OPD statistics (OPD_STATS order). rows = lp [B·T], or [2, B·T] (lp, full KL) for the 'full' estimator. */
export function opdReduce(
  rows: tf.Tensor,
  teacherLogProbs: tf.Tensor,
  old: tf.Tensor,
  cls: tf.Tensor,
  attrs: { estimator: OpdEstimatorCode; logRatioCap: number; negEllCap: number },
): tf.Tensor {
  return tf
    .engine()
    .runKernel(OPD_REDUCE_KERNEL, { rows, tlp: teacherLogProbs, old, cls: int32(cls) }, attrs as never) as tf.Tensor;
}
