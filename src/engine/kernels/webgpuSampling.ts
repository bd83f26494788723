// Decoding on the GPU (webgpu): a decode step samples every row's next token and builds the next step's input
// there, so a turn of several tokens needs no read-back until its end (deviceSampling.ts drives them).
//
// The packed decode state, float32 [R, 8] per row (token ids and lengths are exact in float32 below 2^24):
//   0 token sampled at this step (−1 when the row did not sample)   1 its log-prob at temperature 1
//   2 entropy (nats, temperature 1) of its distribution              3 1 when the row sampled at this step
//   4 1 when the row samples at the next step                        5 tokens of the row's action so far
//   6 tokens written to the row (fed or not)                         7 uniforms its stream consumed so far
//
// Streams: the rows are S equal consecutive shares of `rowsPerStream` rows (S = 1 for one model; a MemberModel's
// members, memberModel.ts), each with its own random stream — the uniforms are [S, M], stream s's in row s.
// Kernel 'RetireSampleStep' — inputs logits [R, V], uniforms [S·M], state [R, 8] (the previous step's, or the turn's
// initial one with columns 4–7 set); attrs temperature, stopToken, maxTokens, capacity, rowsPerStream (default R) →
// the new state [R, 8]. A sampling row r of stream s takes that stream's uniform number consumed + (sampling rows of
// s before r): the host sampler's order, one uniform per sampled token in row order. The rule is sampling.ts's inverse CDF at top-p 1, in float32: u·Σp, subtract p_v
// in vocabulary order, the first v that takes it below 0 (V − 1 when none does).
// Kernel 'RetireDecodeEmbed' — inputs state [R, 8], tokEmb [S·V, D], posEmb [S·P, D] (S stacked tables, S = R /
// rowsPerStream) → x0 [R, D]: the embedding of the token each sampling row feeds next (at position length − 1),
// from its stream's tables; other rows get token 0 at max(0, length − 1).
// Kernel 'RetireDecodeMask' — input state [R, 8]; attrs capacity, mode → 'mask': the additive mask [R, 1, 1, cap]
// (0 on slots 0 … the fed token's position, −1e9 after; a row that feeds nothing sees slots 0 … length − 1), or
// 'write': the 0/1 cache write matrix [R, 1, cap, 1] (1 at the fed token's slot of each sampling row).
// Every kernel runs one invocation per row (or per row and slot); the vocabularies are tens of tokens.
import * as tf from '@tensorflow/tfjs';
import { MASKED } from '../additiveMask';
import { asWebgpuBackend, f32, flatProgram } from './webgpuProgram';

export const SAMPLE_STEP_KERNEL = 'RetireSampleStep';
export const DECODE_EMBED_KERNEL = 'RetireDecodeEmbed';
export const DECODE_MASK_KERNEL = 'RetireDecodeMask';
/** columns of the packed decode state */
export const STATE_COLUMNS = 8;

export interface SampleStepAttrs {
  temperature: number;
  stopToken: number;
  maxTokens: number;
  capacity: number;
  /** rows per random stream (a divisor of R); default R, one stream */
  rowsPerStream?: number;
}

const sampleStepCode = `
  fn main(index : i32) {
    let R = uniforms.logitsShape.x;
    let V = uniforms.logitsShape.y;
    if (index >= R) { return; }
    let rps = uniforms.rowsPerStream;
    let first = (index / rps) * rps;
    let M = uniforms.uniformsInShape / (R / rps);
    let o = index * 8;
    let acting = state[o + 4] > 0.5;
    let actLen = i32(state[o + 5]);
    let len = i32(state[o + 6]);
    let consumed = i32(state[o + 7]);
    // sampling rows of this stream before this one, and in all
    var before = 0;
    var all = 0;
    for (var r = first; r < first + rps; r++) {
      let a = select(0, 1, state[r * 8 + 4] > 0.5);
      all += a;
      if (r < index) { before += a; }
    }
    var token = -1;
    var lp = 0.0;
    var ent = 0.0;
    var actingNext = 0.0;
    var actLenNext = actLen;
    var lenNext = len;
    if (acting) {
      let base = index * V;
      var m = logits[base];
      for (var v = 1; v < V; v++) { m = max(m, logits[base + v]); }
      var z = 0.0;
      for (var v = 0; v < V; v++) { z += exp(logits[base + v] - m); }
      let logZ = m + log(z);
      for (var v = 0; v < V; v++) {
        let l = logits[base + v] - logZ;
        ent -= exp(l) * l;
      }
      var zt = 0.0;
      for (var v = 0; v < V; v++) { zt += exp((logits[base + v] - m) / uniforms.temperature); }
      var u = uniformsIn[(index / rps) * M + consumed + before] * zt;
      token = V - 1;
      for (var v = 0; v < V; v++) {
        u -= exp((logits[base + v] - m) / uniforms.temperature);
        if (u < 0.0) { token = v; break; }
      }
      lp = logits[base + token] - logZ;
      actLenNext = actLen + 1;
      lenNext = len + 1;
      let stop = token == uniforms.stopToken || actLenNext >= uniforms.maxTokens || lenNext >= uniforms.capacity;
      actingNext = select(1.0, 0.0, stop);
    }
    result[o] = f32(token);
    result[o + 1] = lp;
    result[o + 2] = ent;
    result[o + 3] = select(0.0, 1.0, acting);
    result[o + 4] = actingNext;
    result[o + 5] = f32(actLenNext);
    result[o + 6] = f32(lenNext);
    result[o + 7] = f32(consumed + all);
  }`;

const sampleStepKernel: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const a = attrs as unknown as SampleStepAttrs;
  const logits = inputs.logits as tf.TensorInfo;
  const rows = logits.shape[0] as number;
  const program = flatProgram(
    SAMPLE_STEP_KERNEL,
    ['logits', 'uniformsIn', 'state'],
    [rows, STATE_COLUMNS],
    sampleStepCode,
    {
      threads: rows,
      uniforms: 'temperature : f32, stopToken : i32, maxTokens : i32, capacity : i32, rowsPerStream : i32,',
    },
  );
  return asWebgpuBackend(backend, SAMPLE_STEP_KERNEL).runWebGPUProgram(
    program,
    [logits, inputs.uniforms as tf.TensorInfo, inputs.state as tf.TensorInfo],
    'float32',
    [
      { type: 'float32', data: [a.temperature] },
      { type: 'int32', data: [a.stopToken] },
      { type: 'int32', data: [a.maxTokens] },
      { type: 'int32', data: [a.capacity] },
      { type: 'int32', data: [streamRows(a.rowsPerStream, rows, SAMPLE_STEP_KERNEL)] },
    ],
  );
};

const embedCode = `
  fn main(index : i32) {
    let D = uniforms.tokEmbShape.y;
    let R = uniforms.stateShape.x;
    if (index >= R * D) { return; }
    let r = index / D;
    let d = index - r * D;
    let streams = R / uniforms.rowsPerStream;
    let s = r / uniforms.rowsPerStream;
    let fed = state[r * 8 + 3] > 0.5;
    let len = i32(state[r * 8 + 6]);
    let tok = s * (uniforms.tokEmbShape.x / streams) + select(0, i32(state[r * 8]), fed);
    let pos = s * (uniforms.posEmbShape.x / streams) + max(0, len - 1);
    result[index] = tokEmb[tok * D + d] + posEmb[pos * D + d];
  }`;

/** rows per stream: a divisor of the rows (default: all of them, one stream) */
function streamRows(rowsPerStream: number | undefined, rows: number, kernel: string): number {
  const rps = rowsPerStream ?? rows;
  if (!Number.isInteger(rps) || rps <= 0 || rows % rps !== 0)
    throw new Error(`${kernel}: rowsPerStream ${rps} does not divide the ${rows} rows`);
  return rps;
}

const embedKernel: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const state = inputs.state as tf.TensorInfo;
  const tokEmb = inputs.tokEmb as tf.TensorInfo;
  const rows = state.shape[0] as number;
  const D = tokEmb.shape[1] as number;
  const rps = streamRows((attrs as { rowsPerStream?: number } | undefined)?.rowsPerStream, rows, DECODE_EMBED_KERNEL);
  const program = flatProgram(DECODE_EMBED_KERNEL, ['state', 'tokEmb', 'posEmb'], [rows, D], embedCode, {
    uniforms: 'rowsPerStream : i32,',
  });
  return asWebgpuBackend(backend, DECODE_EMBED_KERNEL).runWebGPUProgram(
    program,
    [state, tokEmb, inputs.posEmb as tf.TensorInfo],
    'float32',
    [{ type: 'int32', data: [rps] }],
  );
};

function maskCode(mode: 'mask' | 'write'): string {
  return `
  fn main(index : i32) {
    let R = uniforms.stateShape.x;
    let cap = uniforms.capacity;
    if (index >= R * cap) { return; }
    let r = index / cap;
    let p = index - r * cap;
    let fed = state[r * 8 + 3] > 0.5;
    let last = max(0, i32(state[r * 8 + 6]) - 1);
    ${
      mode === 'mask'
        ? `result[index] = select(${f32(MASKED)}, 0.0, p <= last);`
        : 'result[index] = select(0.0, 1.0, fed && p == last);'
    }
  }`;
}

const maskKernel: tf.KernelFunc = ({ inputs, backend, attrs }) => {
  const { capacity, mode } = attrs as unknown as { capacity: number; mode: 'mask' | 'write' };
  const state = inputs.state as tf.TensorInfo;
  const rows = state.shape[0] as number;
  const shape = mode === 'mask' ? [rows, 1, 1, capacity] : [rows, 1, capacity, 1];
  const program = flatProgram(`${DECODE_MASK_KERNEL}_${mode}`, ['state'], shape, maskCode(mode), {
    uniforms: 'capacity : i32,',
  });
  return asWebgpuBackend(backend, DECODE_MASK_KERNEL).runWebGPUProgram(program, [state], 'float32', [
    { type: 'int32', data: [capacity] },
  ]);
};

export const samplingKernelConfigs: tf.KernelConfig[] = [
  { kernelName: SAMPLE_STEP_KERNEL, backendName: 'webgpu', kernelFunc: sampleStepKernel },
  { kernelName: DECODE_EMBED_KERNEL, backendName: 'webgpu', kernelFunc: embedKernel },
  { kernelName: DECODE_MASK_KERNEL, backendName: 'webgpu', kernelFunc: maskKernel },
];
