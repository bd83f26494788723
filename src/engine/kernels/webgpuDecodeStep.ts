// The fused decode step on webgpu: one new token per row through the whole transformer in 7 programs per layer
// (the composed tfjs ops take about 25), used by KVCache.appendOnDevice when the input is built on the device.
// The state [R, 8] is the packed decode state of webgpuSampling.ts (column 3: the row feeds a token, column 6: the
// row's length with that token, so the token sits at slot length − 1).
//
// Kernel 'RetireRowLinear' — out[r, j] = act(Σ_c x̃[r, c]·W[c, j] + bias[j]) (+ res[r, j]); inputs x [R, Din],
// w [Din, Dout] (or [Dout, Din] with transposeW: a tied head), bias [Dout], and with attr ln: lnG, lnB [Din] (x̃ is
// x layer-normalised per row, two-pass variance, ε = attr epsilon, as layers.ts), with attr residual: res [R, Dout];
// attr gelu: exact (erf) GELU as webgpuGelu.ts. One invocation per output element (the rows' moments are recomputed
// per element: Din is tens of values). Members (memberModel.ts): with attr rowsPerMember, the rows are K equal
// consecutive shares and w, bias, lnG, lnB hold K members' stacked ([K·Din, Dout] or [K·Dout, Din], [K·Dout],
// [K·Din]); row r uses member ⌊r / rowsPerMember⌋'s. K = 1 (the default) is the single model's arithmetic exactly.
// Kernel 'RetireKvWrite' — inputs cache [R, H, cap, dh], qkv [R, 3D], state; attr part (1 keys, 2 values) → the
// cache with each feeding row's new k (or v) at its slot; every other slot is copied (the cache is append-only, so
// that slot held 0: the same bits as the composed K + w ⊙ k).
// Kernel 'RetireDecodeAttention' — inputs qkv [R, 3D], keys, values [R, H, cap, dh], state → y [R, D] (heads
// side by side): softmax over the visible slots 0 … length − 1 of (q/√dh)·k, times v. One invocation per (row, head).
import * as tf from '@tensorflow/tfjs';
import { asWebgpuBackend, f32, flatProgram } from './webgpuProgram';
import { WGSL_ERF } from './webgpuErf';

export const ROW_LINEAR_KERNEL = 'RetireRowLinear';
export const KV_WRITE_KERNEL = 'RetireKvWrite';
export const DECODE_ATTENTION_KERNEL = 'RetireDecodeAttention';

export interface RowLinearAttrs {
  ln: boolean;
  epsilon: number;
  gelu: boolean;
  residual: boolean;
  transposeW: boolean;
  /** rows per member (a divisor of R); default R, one model */
  rowsPerMember?: number;
}

function rowLinearCode(a: RowLinearAttrs): string {
  const xin = a.ln ? '((x[base + c] - mean) * inv * lnG[mIn + c] + lnB[mIn + c])' : 'x[base + c]';
  const wAt = a.transposeW ? 'w[mW + j * Din + c]' : 'w[mW + c * Dout + j]';
  return `
  ${a.gelu ? WGSL_ERF : ''}
  fn main(index : i32) {
    let R = uniforms.xShape.x;
    let Din = uniforms.xShape.y;
    let Dout = uniforms.biasShape / (R / uniforms.rowsPerMember);
    if (index >= R * Dout) { return; }
    let r = index / Dout;
    let j = index - r * Dout;
    let base = r * Din;
    // this row's member: offsets of its weights, bias and layer-norm parameters
    let member = r / uniforms.rowsPerMember;
    let mW = member * Din * Dout;
    let mIn = member * Din;
    ${
      a.ln
        ? `var sum = 0.0;
    for (var c = 0; c < Din; c++) { sum += x[base + c]; }
    let mean = sum / f32(Din);
    var sq = 0.0;
    for (var c = 0; c < Din; c++) { let xc = x[base + c] - mean; sq += xc * xc; }
    let inv = inverseSqrt(sq / f32(Din) + ${f32(a.epsilon)});`
        : ''
    }
    var acc = 0.0;
    for (var c = 0; c < Din; c++) { acc += ${xin} * ${wAt}; }
    var y = acc + bias[member * Dout + j];
    ${a.gelu ? 'y = y * (1.0 + retireErf(y * 0.7071067811865476)) * 0.5;' : ''}
    ${a.residual ? 'y = y + res[index];' : ''}
    result[index] = y;
  }`;
}

const rowLinear: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const a = attrs as unknown as RowLinearAttrs;
  const names = ['x', 'w', 'bias', ...(a.ln ? ['lnG', 'lnB'] : []), ...(a.residual ? ['res'] : [])];
  const ins = names.map((n) => {
    const t = inputs[n] as tf.TensorInfo | undefined;
    if (t === undefined) throw new Error(`${ROW_LINEAR_KERNEL}: missing input '${n}'`);
    return t;
  });
  const x = ins[0] as tf.TensorInfo;
  const bias = ins[2] as tf.TensorInfo;
  const R = x.shape[0] as number;
  const rpm = a.rowsPerMember ?? R;
  if (!Number.isInteger(rpm) || rpm <= 0 || R % rpm !== 0 || (bias.shape[0] as number) % (R / rpm) !== 0)
    throw new Error(`${ROW_LINEAR_KERNEL}: rowsPerMember ${rpm} does not split ${R} rows and bias [${bias.shape}]`);
  const key = `${ROW_LINEAR_KERNEL}_${a.ln ? `ln${a.epsilon}` : ''}_${a.gelu ? 'gelu' : ''}_${a.residual ? 'res' : ''}_${a.transposeW ? 'wT' : ''}`;
  const program = flatProgram(key, names, [R, (bias.shape[0] as number) / (R / rpm)], rowLinearCode(a), {
    uniforms: 'rowsPerMember : i32,',
  });
  return asWebgpuBackend(backend, ROW_LINEAR_KERNEL).runWebGPUProgram(program, ins, 'float32', [
    { type: 'int32', data: [rpm] },
  ]);
};

function kvWriteCode(part: number): string {
  return `
  fn main(index : i32) {
    let R = uniforms.cacheShape.x;
    let H = uniforms.cacheShape.y;
    let cap = uniforms.cacheShape.z;
    let dh = uniforms.cacheShape.w;
    if (index >= R * H * cap * dh) { return; }
    let d = index % dh;
    let p = (index / dh) % cap;
    let h = (index / (dh * cap)) % H;
    let r = index / (dh * cap * H);
    let fed = state[r * 8 + 3] > 0.5;
    let slot = i32(state[r * 8 + 6]) - 1;
    if (fed && p == slot) {
      result[index] = qkv[r * 3 * H * dh + ${part} * H * dh + h * dh + d];
    } else {
      result[index] = cache[index];
    }
  }`;
}

const kvWrite: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const { part } = attrs as unknown as { part: 1 | 2 };
  const cache = inputs.cache as tf.TensorInfo;
  const program = flatProgram(
    `${KV_WRITE_KERNEL}_${part}`,
    ['cache', 'qkv', 'state'],
    cache.shape.slice(),
    kvWriteCode(part),
  );
  return asWebgpuBackend(backend, KV_WRITE_KERNEL).runWebGPUProgram(
    program,
    [cache, inputs.qkv as tf.TensorInfo, inputs.state as tf.TensorInfo],
    'float32',
  );
};

function attentionCode(dh: number): string {
  return `
  fn main(index : i32) {
    let R = uniforms.kcShape.x;
    let H = uniforms.kcShape.y;
    let cap = uniforms.kcShape.z;
    let dh = uniforms.kcShape.w;
    if (index >= R * H) { return; }
    let r = index / H;
    let h = index - r * H;
    let D = H * dh;
    let qBase = r * 3 * D + h * dh;
    let kvBase = (r * H + h) * cap * dh;
    let last = max(0, i32(state[r * 8 + 6]) - 1);
    let scale = ${f32(Math.fround(1 / Math.sqrt(dh)))};
    var m = -3.4e38;
    for (var p = 0; p <= last; p++) {
      var s = 0.0;
      for (var d = 0; d < dh; d++) { s += (qkv[qBase + d] * scale) * kc[kvBase + p * dh + d]; }
      m = max(m, s);
    }
    var z = 0.0;
    for (var p = 0; p <= last; p++) {
      var s = 0.0;
      for (var d = 0; d < dh; d++) { s += (qkv[qBase + d] * scale) * kc[kvBase + p * dh + d]; }
      z += exp(s - m);
    }
    for (var d = 0; d < dh; d++) { result[r * D + h * dh + d] = 0.0; }
    for (var p = 0; p <= last; p++) {
      var s = 0.0;
      for (var d = 0; d < dh; d++) { s += (qkv[qBase + d] * scale) * kc[kvBase + p * dh + d]; }
      let a = exp(s - m) / z;
      for (var d = 0; d < dh; d++) { result[r * D + h * dh + d] += a * vc[kvBase + p * dh + d]; }
    }
  }`;
}

const attention: tf.KernelFunc = ({ inputs, backend }) => {
  const keys = inputs.keys as tf.TensorInfo;
  const [R, H, , dh] = keys.shape as [number, number, number, number];
  const program = flatProgram(
    `${DECODE_ATTENTION_KERNEL}_${dh}`,
    ['qkv', 'kc', 'vc', 'state'],
    [R, H * dh],
    attentionCode(dh),
    { threads: R * H },
  );
  return asWebgpuBackend(backend, DECODE_ATTENTION_KERNEL).runWebGPUProgram(
    program,
    [inputs.qkv as tf.TensorInfo, keys, inputs.values as tf.TensorInfo, inputs.state as tf.TensorInfo],
    'float32',
  );
};

export const decodeStepKernelConfigs: tf.KernelConfig[] = [
  { kernelName: ROW_LINEAR_KERNEL, backendName: 'webgpu', kernelFunc: rowLinear },
  { kernelName: KV_WRITE_KERNEL, backendName: 'webgpu', kernelFunc: kvWrite },
  { kernelName: DECODE_ATTENTION_KERNEL, backendName: 'webgpu', kernelFunc: attention },
];
