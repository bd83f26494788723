// erf in WGSL, for the fused kernels that compute an exact (erf) GELU (webgpuGelu.ts, webgpuDecodeStep.ts): one
// snippet, so the two cannot drift apart. Abramowitz–Stegun 7.1.26 with tfjs's own constants (backend_util.ERF_*), as
// tfjs's Erf kernel computes it on every backend, so fused and composed agree to float32 rounding. erf(0) is 0
// exactly (sign(0) = 0), which keeps Φ(0) = 1/2 exactly in the GELU gradient.
import * as tf from '@tensorflow/tfjs';
import { f32 } from './webgpuProgram';

const u = tf.backend_util;

/** `fn retireErf(a : f32) -> f32`, to paste into a program's code. */
export const WGSL_ERF = `
  fn retireErf(a : f32) -> f32 {
    let absA = abs(a);
    let t = 1.0 / (1.0 + ${f32(u.ERF_P)} * absA);
    let poly = ((((${f32(u.ERF_A5)} * t + ${f32(u.ERF_A4)}) * t) + ${f32(u.ERF_A3)}) * t + ${f32(u.ERF_A2)}) * t + ${f32(u.ERF_A1)};
    return sign(a) * (1.0 - poly * t * exp(-absA * absA));
  }`;
