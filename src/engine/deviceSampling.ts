// One turn decoded on the GPU (webgpu, top-p = 1, full KV cache): the host feeds what it knows (prefix, observation,
// last turn's final token) once, then every step samples on the device (kernels/webgpuSampling.ts) and feeds the
// sampled tokens straight back, and the turn's tokens, log-probs and entropies come back in ONE read at its end.
//
// The host does not know when every action has ended without reading, so a turn always runs
// S = min(maxTokens, the most room any acting row has) steps; rows that have ended feed nothing and sample nothing.
// The random stream is the host sampler's: the turn's uniforms are drawn up front from the same seeded generator
// (one upload) in the order the host would consume them (one per sampled token, rows in order, step by step), and
// afterwards exactly as many are consumed as tokens were sampled. So a webgpu rollout samples what the host sampler
// would from the same logits, except where a uniform falls within float32 rounding of a CDF boundary. With several
// streams (a MemberModel's members, whose rows are equal consecutive shares), each share draws from its own stream
// in that order: the uniforms are uploaded as [streams, M], M the largest share's draw.
import * as tf from '@tensorflow/tfjs';
import type { KVCache } from './kvCache';
import type { SamplingOptions, SeededRandom } from './sampling';
import { SAMPLE_STEP_KERNEL, STATE_COLUMNS, type SampleStepAttrs } from './kernels/webgpuSampling';

/** What one turn decoded on the device needs from the decoder (turnDecoder.ts), per context row r. */
export interface DeviceTurn {
  cache: KVCache;
  options: SamplingOptions;
  /** one random stream per equal consecutive share of the rows (one for a single model) */
  rngs: readonly SeededRandom[];
  /** [R] 1 for rows that sample an action this turn */
  rowActing: Int32Array;
  /** [R] tokens written per row at the turn's start (fed or not) */
  rowLength: Int32Array;
  capacity: number;
  maxTokens: number;
  stopToken: number;
  betweenDecodeSteps: (() => Promise<void>) | undefined;
  /** the turn's first step: feeds the host-known unfed tokens, returns logits [R, V] */
  firstStep(): tf.Tensor2D;
  /** row r's sampled tokens, their log-probs and entropies, and how many of them the device already fed */
  commit(
    r: number,
    tokens: ArrayLike<number>,
    logProbs: ArrayLike<number>,
    entropy: ArrayLike<number>,
    fed: number,
  ): void;
  /** counts one more decode step (the first is counted by firstStep) */
  countStep(): void;
}

/** Whether turns are decoded on the device for these sampling options on the active backend. */
export function deviceSamplingAvailable(o: SamplingOptions): boolean {
  return o.topP >= 1 && tf.getBackend() === 'webgpu' && tf.getKernel(SAMPLE_STEP_KERNEL, 'webgpu') !== undefined;
}

export async function decodeTurnOnDevice(t: DeviceTurn): Promise<void> {
  const R = t.rowActing.length;
  let acting = 0;
  let room = 0;
  for (let r = 0; r < R; r++) {
    if (!t.rowActing[r]) continue;
    acting++;
    room = Math.max(room, t.capacity - (t.rowLength[r] as number));
  }
  if (acting === 0) return;
  const S = Math.min(t.maxTokens, room);
  const streams = t.rngs.length;
  const rowsPerStream = R / streams;
  if (!Number.isInteger(rowsPerStream))
    throw new Error(`decodeTurnOnDevice: ${R} rows do not split into ${streams} streams' equal shares`);
  // stream s's draw, at most one uniform per acting row of its share and step: row s of [streams, M]
  const actingIn = (s: number) =>
    t.rowActing.subarray(s * rowsPerStream, (s + 1) * rowsPerStream).reduce((a, b) => a + b, 0);
  const M = Math.max(...t.rngs.map((_, s) => actingIn(s) * S));
  const drawn = new Float32Array(streams * M);
  t.rngs.forEach((rng, s) => drawn.set(rng.peekUniforms(actingIn(s) * S), s * M));
  // the initial state: columns 4–7 (acting, action length, row length, uniforms consumed); see webgpuSampling.ts
  const init = new Float32Array(R * STATE_COLUMNS);
  for (let r = 0; r < R; r++) {
    init[r * STATE_COLUMNS + 4] = t.rowActing[r] as number;
    init[r * STATE_COLUMNS + 6] = t.rowLength[r] as number;
  }
  const attrs: SampleStepAttrs = {
    temperature: t.options.temperature,
    stopToken: t.stopToken,
    maxTokens: t.maxTokens,
    capacity: t.capacity,
    rowsPerStream,
  };
  const states: tf.Tensor2D[] = [];
  const uniforms = tf.tensor1d(drawn);
  let state: tf.Tensor2D = tf.tensor2d(init, [R, STATE_COLUMNS]);
  let all: tf.Tensor | null = null;
  try {
    if (t.betweenDecodeSteps) await t.betweenDecodeSteps();
    let logits = t.firstStep();
    for (let s = 0; s < S; s++) {
      const prev = state;
      try {
        state = tf
          .engine()
          .runKernel(
            SAMPLE_STEP_KERNEL,
            { logits, uniforms, state: prev },
            attrs as unknown as tf.NamedAttrMap,
          ) as tf.Tensor2D;
      } finally {
        logits.dispose();
        if (s === 0) prev.dispose(); // the initial state; later ones are kept for the read
      }
      states.push(state);
      if (s === S - 1) break;
      if (t.betweenDecodeSteps) await t.betweenDecodeSteps();
      logits = t.cache.appendOnDevice(state);
      t.countStep();
    }
    all = tf.stack(states); // [S, R, 8]
    const v = (await all.data()) as Float32Array; // the turn's one read-back
    const fed = new Int32Array(R);
    const sampled = new Int32Array(streams);
    for (let r = 0; r < R; r++) {
      const toks: number[] = [];
      const lps: number[] = [];
      const ents: number[] = [];
      for (let s = 0; s < S; s++) {
        const o = (s * R + r) * STATE_COLUMNS;
        if (!(v[o + 3] as number)) continue;
        toks.push(v[o] as number);
        lps.push(v[o + 1] as number);
        ents.push(v[o + 2] as number);
        if (s < S - 1) fed[r] = (fed[r] as number) + 1; // fed by the next step's appendOnDevice
      }
      const s = Math.floor(r / rowsPerStream);
      sampled[s] = (sampled[s] as number) + toks.length;
      t.commit(r, toks, lps, ents, fed[r] as number);
    }
    t.cache.advanceLengths(fed);
    t.rngs.forEach((rng, s) => rng.skipUniforms(sampled[s] as number));
  } finally {
    tf.dispose([uniforms, ...states]);
    all?.dispose();
  }
}
