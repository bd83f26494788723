// Host-side seeded randomness and token sampling. Sampling runs on the host from logits read back once per decode
// step for the whole batch, so a rollout is reproducible from its seed on a given backend (backends differ in the
// last float bits, so two backends may still diverge after many tokens).

import { createRng, type Rng } from '../core/rng';

/**
 * Seeded randomness for initialisation and sampling: the project's sfc32 generator (src/core/rng.ts) plus
 * 53-bit uniforms and standard normals. Same sequence on every platform, no global state.
 */
export class SeededRandom {
  private readonly rng: Rng;
  private spareNormal: number | null = null;
  /** uniforms drawn ahead by peekUniforms and not yet consumed, in stream order */
  private ahead: number[] = [];

  /** seed: an integer in [0, 2^32) */
  constructor(seed: number) {
    this.rng = createRng(seed);
  }

  nextUint32(): number {
    return this.rng.int(4294967296);
  }

  /** uniform in [0, 1) with 53 random bits */
  next(): number {
    if (this.ahead.length > 0) return this.ahead.shift() as number;
    return this.draw();
  }

  /**
   * The next n uniforms of the stream without consuming them (device sampling uploads a turn's worth at once and
   * consumes only as many as it sampled tokens, with skipUniforms): next() returns them afterwards, in order.
   */
  peekUniforms(n: number): Float64Array {
    while (this.ahead.length < n) this.ahead.push(this.draw());
    return Float64Array.from(this.ahead.slice(0, n));
  }

  /** Consumes n uniforms, as n calls of next() would. */
  skipUniforms(n: number): void {
    if (n <= this.ahead.length) this.ahead.splice(0, n);
    else for (let k = 0; k < n; k++) this.next();
  }

  private draw(): number {
    const hi = this.nextUint32() >>> 5;
    const lo = this.nextUint32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** standard normal (Box–Muller, caching the second value) */
  normal(): number {
    if (this.spareNormal !== null) {
      const v = this.spareNormal;
      this.spareNormal = null;
      return v;
    }
    let u = 0;
    while (u <= 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }
}

export interface SamplingOptions {
  /** > 0; 1 samples the model's own distribution */
  temperature: number;
  /** nucleus mass in (0, 1]; 1 disables top-p */
  topP: number;
}

export function validateSamplingOptions(o: SamplingOptions): void {
  if (!(Number.isFinite(o.temperature) && o.temperature > 0)) {
    throw new Error(`sampling.temperature must be a finite number > 0, got ${o.temperature}`);
  }
  if (!(Number.isFinite(o.topP) && o.topP > 0 && o.topP <= 1)) {
    throw new Error(`sampling.topP must be in (0, 1], got ${o.topP}`);
  }
}

/** What one sampled token carries back: its id, and log-prob and entropy under the temperature-1 policy. */
export interface SampledToken {
  token: number;
  /** log π(token) at temperature 1 (the policy the trainer differentiates) */
  logProb: number;
  /** entropy of π at temperature 1, in nats */
  entropy: number;
}

/**
 * Samples one token from row `row` of `logits` ([rows, vocab], row-major) with temperature and top-p, in float64.
 * `scratch` (length ≥ vocab, two arrays) avoids allocation per token.
 */
export function sampleToken(
  logits: Float32Array,
  row: number,
  vocab: number,
  options: SamplingOptions,
  rng: SeededRandom,
  scratch: { p: Float64Array; order: Int32Array },
): SampledToken {
  const base = row * vocab;
  let max = -Infinity;
  for (let v = 0; v < vocab; v++) max = Math.max(max, logits[base + v] as number);
  // temperature-1 log-softmax and entropy
  let z = 0;
  for (let v = 0; v < vocab; v++) z += Math.exp((logits[base + v] as number) - max);
  const logZ = max + Math.log(z);
  let entropy = 0;
  for (let v = 0; v < vocab; v++) {
    const lp = (logits[base + v] as number) - logZ;
    entropy -= Math.exp(lp) * lp;
  }
  // sampling distribution at the requested temperature
  const p = scratch.p;
  let zt = 0;
  for (let v = 0; v < vocab; v++) {
    const e = Math.exp(((logits[base + v] as number) - max) / options.temperature);
    p[v] = e;
    zt += e;
  }
  let token = vocab - 1;
  if (options.topP >= 1) {
    let u = rng.next() * zt;
    for (let v = 0; v < vocab; v++) {
      u -= p[v] as number;
      if (u < 0) {
        token = v;
        break;
      }
    }
  } else {
    const order = scratch.order;
    for (let v = 0; v < vocab; v++) order[v] = v;
    const ord = order.subarray(0, vocab);
    // descending probability, ties by id so the order is deterministic
    ord.sort((x, y) => (p[y] as number) - (p[x] as number) || x - y);
    const keepMass = options.topP * zt;
    let kept = 0;
    let mass = 0;
    while (kept < vocab && mass < keepMass) mass += p[ord[kept++] as number] as number;
    let u = rng.next() * mass;
    token = ord[kept - 1] as number;
    for (let k = 0; k < kept; k++) {
      const v = ord[k] as number;
      u -= p[v] as number;
      if (u < 0) {
        token = v;
        break;
      }
    }
  }
  return { token, logProb: (logits[base + token] as number) - logZ, entropy };
}

export function makeSamplingScratch(vocab: number): { p: Float64Array; order: Int32Array } {
  return { p: new Float64Array(vocab), order: new Int32Array(vocab) };
}
