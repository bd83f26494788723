// The one decode loop of the engine: rows of token streams that the model extends together, one action (a run of
// sampled tokens) per row per turn. rollout.ts drives it turn by turn between environment steps; generate.ts (the
// benchmark's W2) runs one long "action" without a stop token. The decoder owns the host token buffer: the caller
// appends what the environment says (observations) with `push`, and `decodeTurn` feeds every live row its unfed
// tokens and samples until each acting row ends its action.
//
// Two ways to sample, the same random stream (SeededRandom's uniforms, one per sampled token in row order):
// - host: the step's logits [R, V] are read back and sampled in float64 (sampling.ts) — cpu, wasm, and webgpu with
//   top-p < 1 or without the KV cache; a row's logits are bits of that row alone, so a rollout is reproducible.
// - device (webgpu, top-p = 1, cached): deviceSampling.ts samples on the GPU by the same inverse-CDF rule in float32
//   and builds the next step's input there; the turn's tokens are read back once, at its end.
//
// Members: with a MemberModel (memberModel.ts) the rows are K equal member-major shares, every decode step runs all
// members in one pass, and member k's rows sample from their own stream (options.memberSeeds[k]) in row order — the
// stream member k's own decoder, seeded so, would use — on the host, or on the device with one stream per member.
// Finished rows stay in the batch (fed nothing).
import type * as tf from '@tensorflow/tfjs';
import { Special } from '../core/env/types';
import { deviceSamplingAvailable, decodeTurnOnDevice, type DeviceTurn } from './deviceSampling';
import { KVCache } from './kvCache';
import type { MemberModel } from './memberModel';
import { PolicyModel } from './model';
import { makeSamplingScratch, sampleToken, SeededRandom, type SamplingOptions } from './sampling';
import { UncachedContext } from './uncachedContext';

/** no stop token: an action ends at maxTokens or when the row is full */
export const NO_STOP = -1;

export interface TurnDecoderOptions extends SamplingOptions {
  /** integer in [0, 2^32): seeds the sampling stream */
  seed: number;
  /** false: every step is a full forward over each row's whole prefix (the cache's reference) */
  useCache?: boolean;
  /** awaited before each decode step (see RolloutOptions.betweenDecodeSteps) */
  betweenDecodeSteps?: () => Promise<void>;
  /** false forces host sampling on every backend (default: on the device where deviceSampling.ts supports it) */
  deviceSampling?: boolean;
  /** with a MemberModel: one sampling seed per member (integers in [0, 2^32)); `seed` is then unused */
  memberSeeds?: readonly number[];
}

/** What a decode source does: KVCache.append's contract (feed counts[b] tokens to row b, logits at the last one). */
export interface DecodeContext {
  readonly batch: number;
  append(tokens: Int32Array, counts: Int32Array, chunk: number): tf.Tensor2D;
  keepRows(rows: readonly number[]): void;
  dispose(): void;
}

export class TurnDecoder {
  /** [rows, capacity] host token buffer (Special.pad past each row's length) */
  readonly tokens: Int32Array;
  /** [rows, capacity] temperature-1 log-prob of each sampled token (0 elsewhere) */
  readonly logProbs: Float32Array;
  /** [rows, capacity] entropy (nats, temperature 1) of the distribution each sampled token was drawn from */
  readonly entropy: Float32Array;
  /** [rows] tokens written per row */
  readonly lengths: Int32Array;
  /** [rows] tokens already fed to the model per row */
  private readonly fed: Int32Array;
  readonly rows: number;
  readonly capacity: number;
  /** model forward calls so far */
  decodeSteps = 0;
  /** tokens sampled so far */
  sampledTokens = 0;
  private readonly context: DecodeContext;
  /** one stream, or (members) one per member */
  private readonly rngs: SeededRandom[];
  /** rows per stream */
  private readonly rowsPerStream: number;
  private readonly scratch: { p: Float64Array; order: Int32Array };
  private readonly onDevice: boolean;
  /** live[r] is the row held in context row r; rowOf its inverse (−1 for rows that left) */
  private live: number[];
  private readonly rowOf: Int32Array;

  constructor(
    readonly model: PolicyModel | MemberModel,
    rows: number,
    capacity: number,
    readonly options: TurnDecoderOptions,
  ) {
    if (!(model instanceof PolicyModel)) {
      const members = model.members;
      const seeds = options.memberSeeds;
      if (seeds?.length !== members)
        throw new Error(`TurnDecoder: ${model.name} has ${members} members; memberSeeds must give one seed each`);
      if (rows % members !== 0)
        throw new Error(`TurnDecoder: ${rows} rows do not split into ${model.name}'s ${members} members' equal shares`);
      if (options.useCache === false) throw new Error('TurnDecoder: members decode with the KV cache only');
    }
    this.rows = rows;
    this.capacity = capacity;
    this.tokens = new Int32Array(rows * capacity).fill(Special.pad);
    this.logProbs = new Float32Array(rows * capacity);
    this.entropy = new Float32Array(rows * capacity);
    this.lengths = new Int32Array(rows);
    this.fed = new Int32Array(rows);
    const single = model instanceof PolicyModel ? model : null;
    this.rngs = single ? [new SeededRandom(options.seed)] : options.memberSeeds!.map((s) => new SeededRandom(s));
    this.rowsPerStream = rows / this.rngs.length;
    this.scratch = makeSamplingScratch(model.config.vocabSize);
    const cached = options.useCache ?? true;
    this.onDevice = cached && options.deviceSampling !== false && deviceSamplingAvailable(options);
    this.context = single && !cached ? new UncachedContext(single, rows, capacity) : new KVCache(model, rows, capacity);
    this.live = Array.from({ length: rows }, (_, i) => i);
    this.rowOf = Int32Array.from(this.live);
  }

  /** Appends host-known tokens (a prompt, an observation) to row i; they are fed at the next decode step. */
  push(i: number, tokens: ArrayLike<number>): void {
    const at = i * this.capacity + (this.lengths[i] as number);
    if ((this.lengths[i] as number) + tokens.length > this.capacity)
      throw new Error(`TurnDecoder.push: row ${i} would hold more than ${this.capacity} tokens`);
    for (let j = 0; j < tokens.length; j++) this.tokens[at + j] = tokens[j] as number;
    this.lengths[i] = (this.lengths[i] as number) + tokens.length;
  }

  /** Rows whose flag is 1 leave the batch for good (finished episodes): later steps compute only the others. */
  retire(done: Uint8Array): void {
    if (!(this.model instanceof PolicyModel)) return; // member-major rows stay (fed nothing once done)
    if (!this.live.some((i) => done[i])) return;
    const kept = this.live.filter((i) => !done[i]);
    if (kept.length > 0) this.context.keepRows(kept.map((i) => this.rowOf[i] as number));
    this.live = kept;
    this.rowOf.fill(-1);
    this.live.forEach((i, r) => (this.rowOf[i] = r));
  }

  /**
   * Each row i with acting[i] = 1 (a live row) samples one action: tokens until `stopToken` (included), maxTokens,
   * or a full row. The sampled tokens are appended to the rows; actions[i] receives row i's action.
   */
  async decodeTurn(acting: Uint8Array, maxTokens: number, stopToken: number, actions: number[][]): Promise<void> {
    for (let i = 0; i < this.rows; i++) {
      actions[i] = [];
      if (acting[i] && this.rowOf[i] === -1) throw new Error(`TurnDecoder.decodeTurn: row ${i} has left the batch`);
    }
    if (this.onDevice) {
      await decodeTurnOnDevice(this.deviceTurn(acting, maxTokens, stopToken, actions));
      return;
    }
    const V = this.model.config.vocabSize;
    const cap = this.capacity;
    const still = Uint8Array.from(acting);
    while (still.some((a) => a === 1)) {
      if (this.options.betweenDecodeSteps) await this.options.betweenDecodeSteps();
      const logitsT = this.feedUnfed();
      let logits: Float32Array;
      try {
        logits = (await logitsT.data()) as Float32Array; // [R, V], one read-back per step
      } finally {
        logitsT.dispose();
      }
      for (let i = 0; i < this.rows; i++) {
        if (!still[i]) continue;
        const rng = this.rngs[Math.floor(i / this.rowsPerStream)] as SeededRandom;
        const s = sampleToken(logits, this.rowOf[i] as number, V, this.options, rng, this.scratch);
        const at = i * cap + (this.lengths[i] as number);
        this.tokens[at] = s.token;
        this.logProbs[at] = s.logProb;
        this.entropy[at] = s.entropy;
        this.lengths[i] = (this.lengths[i] as number) + 1;
        this.sampledTokens++;
        const act = actions[i] as number[];
        act.push(s.token);
        if (s.token === stopToken || act.length >= maxTokens || (this.lengths[i] as number) >= cap) still[i] = 0;
      }
    }
  }

  /**
   * One decode step's feed: every live row its unfed tokens (prefix / last observation / last sampled token),
   * padded to the longest; returns the logits [R, V] at each row's last fed token (the caller disposes them).
   */
  private feedUnfed(): tf.Tensor2D {
    const cap = this.capacity;
    const R = this.live.length;
    let C = 1;
    const counts = new Int32Array(R);
    this.live.forEach((i, r) => (C = Math.max(C, (counts[r] = (this.lengths[i] as number) - (this.fed[i] as number)))));
    const chunk = new Int32Array(R * C);
    this.live.forEach((i, r) => {
      const from = i * cap + (this.fed[i] as number);
      chunk.set(this.tokens.subarray(from, from + (counts[r] as number)), r * C);
    });
    return this.stepWith(() => this.context.append(chunk, counts, C), counts);
  }

  private stepWith(run: () => tf.Tensor2D, counts: Int32Array): tf.Tensor2D {
    const logits = run();
    this.decodeSteps++;
    this.live.forEach((i, r) => (this.fed[i] = (this.fed[i] as number) + (counts[r] as number)));
    return logits;
  }

  /** What deviceSampling.ts needs for one turn, with the callback that writes its results back into the rows. */
  private deviceTurn(acting: Uint8Array, maxTokens: number, stopToken: number, actions: number[][]): DeviceTurn {
    const R = this.live.length;
    const rowActing = new Int32Array(R);
    const rowLength = new Int32Array(R);
    this.live.forEach((i, r) => {
      rowActing[r] = acting[i] as number;
      rowLength[r] = this.lengths[i] as number;
    });
    return {
      cache: this.context as KVCache,
      options: this.options,
      rngs: this.rngs,
      rowActing,
      rowLength,
      capacity: this.capacity,
      maxTokens,
      stopToken,
      betweenDecodeSteps: this.options.betweenDecodeSteps,
      firstStep: (): tf.Tensor2D => this.feedUnfed(),
      commit: (r: number, toks: ArrayLike<number>, lps: ArrayLike<number>, ents: ArrayLike<number>, fed: number) => {
        const i = this.live[r] as number;
        const at = i * this.capacity + (this.lengths[i] as number);
        for (let j = 0; j < toks.length; j++) {
          this.tokens[at + j] = toks[j] as number;
          this.logProbs[at + j] = lps[j] as number;
          this.entropy[at + j] = ents[j] as number;
        }
        (actions[i] as number[]).push(...Array.from(toks));
        this.lengths[i] = (this.lengths[i] as number) + toks.length;
        this.fed[i] = (this.fed[i] as number) + fed;
        this.sampledTokens += toks.length;
      },
      countStep: () => this.decodeSteps++,
    };
  }

  dispose(): void {
    this.context.dispose();
  }
}
