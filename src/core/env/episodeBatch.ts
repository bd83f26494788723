// Batched episodes over preallocated buffers: one Int32Array holds every episode's mutable world state, typed arrays
// hold the per-episode outcome, and each slot reuses one observation array. No objects are allocated per step
// except by the environments' error paths (none on the expert's path).
// The batch knows its environment only through EnvDynamics (MicroEnv implements it), so this file imports no
// environment.
import { Special, type EnvLimits, type EnvOptions, type EpisodeBatch, type Task } from './types';

/** Flags returned by an environment transition (bit set: done | success | invalid). */
export const Outcome = { none: 0, done: 1, success: 2, invalid: 4 } as const;

/**
 * What an episode batch needs from an environment: its world per task, its transition function over a small
 * Int32Array state (`stateSize` slots per episode, episode i's at offset i·stateSize), its action parser and its
 * limits. Implemented by MicroEnv.
 */
export interface EnvDynamics<W> {
  /** Int32 slots of per-episode mutable state */
  readonly stateSize: number;
  readonly limits: Pick<EnvLimits, 'maxTurns' | 'maxObsTokens'>;
  readonly options: Pick<EnvOptions, 'invalidActionPenalty'>;
  /** observation word ids for an action parseAction rejects */
  readonly badActionTokens: readonly number[];
  /** the task with its world (throws for a task of another environment) */
  own(task: Task): { readonly world: W };
  /** write the initial state of an episode in `world` at s[o .. o + stateSize) (the slots are zero beforehand) */
  initState(world: W, s: Int32Array, o: number): void;
  /** number of argument tokens of a well-formed action, or -1 */
  parseAction(action: readonly number[]): number;
  /** apply a well-formed action; push the observation word ids (no markers) to `out`; return Outcome flags */
  apply(world: W, s: Int32Array, o: number, action: readonly number[], nArgs: number, out: number[]): number;
  /** terminal score in [0, 1] of an episode the environment ended */
  score(world: W, s: Int32Array, o: number): number;
  /** the actions the environment would accept without error in this state, as words */
  validActions(world: W, s: Int32Array, o: number): string[][];
}

export class EpisodeBatchImpl<W> implements EpisodeBatch {
  readonly size: number;
  readonly done: Uint8Array;
  readonly turns: Int32Array;
  readonly invalidActions: Int32Array;
  readonly reward: Float32Array;
  readonly success: Uint8Array;
  /** observations cut to maxObsTokens so far (a diagnostic: the environments are sized so this stays 0) */
  readonly truncated: Int32Array;
  /** per-episode world state, stateSize Int32 slots each */
  readonly state: Int32Array;
  private readonly env: EnvDynamics<W>;
  private readonly worlds: (W | undefined)[];
  private readonly obs: number[][];
  private readonly scratch: number[] = [];

  constructor(env: EnvDynamics<W>, size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new Error(`createBatch: size must be a positive integer, got ${size}`);
    this.env = env;
    this.size = size;
    this.done = new Uint8Array(size);
    this.turns = new Int32Array(size);
    this.invalidActions = new Int32Array(size);
    this.reward = new Float32Array(size);
    this.success = new Uint8Array(size);
    this.truncated = new Int32Array(size);
    this.state = new Int32Array(size * env.stateSize);
    this.worlds = new Array<W | undefined>(size).fill(undefined);
    this.obs = Array.from({ length: size }, () => []);
  }

  /** Start one episode per task; slots beyond tasks.length are marked done. */
  reset(tasks: readonly Task[]): void {
    if (tasks.length > this.size) {
      throw new Error(`EpisodeBatch.reset: ${tasks.length} tasks for a batch of ${this.size}`);
    }
    const stateSize = this.env.stateSize;
    for (let i = 0; i < this.size; i++) {
      const task = tasks[i];
      this.turns[i] = 0;
      this.invalidActions[i] = 0;
      this.reward[i] = 0;
      this.success[i] = 0;
      this.truncated[i] = 0;
      (this.obs[i] as number[]).length = 0;
      if (task === undefined) {
        this.worlds[i] = undefined;
        this.done[i] = 1;
        continue;
      }
      const world = this.env.own(task).world;
      this.worlds[i] = world;
      this.done[i] = 0;
      this.state.fill(0, i * stateSize, (i + 1) * stateSize);
      this.env.initState(world, this.state, i * stateSize);
    }
  }

  step(actions: readonly (readonly number[])[]): void {
    if (actions.length !== this.size) {
      throw new Error(
        `EpisodeBatch.step: ${actions.length} actions for a batch of ${this.size} (pass [] for done ones)`,
      );
    }
    const env = this.env;
    const { maxTurns, maxObsTokens } = env.limits;
    const out = this.scratch;
    for (let i = 0; i < this.size; i++) {
      const ob = this.obs[i] as number[];
      ob.length = 0;
      if (this.done[i]) continue;
      const world = this.worlds[i] as W;
      const action = actions[i] as readonly number[];
      const o = i * env.stateSize;
      out.length = 0;
      const nArgs = env.parseAction(action);
      let flags: number;
      if (nArgs < 0) {
        for (const t of env.badActionTokens) out.push(t);
        flags = Outcome.invalid;
      } else {
        flags = env.apply(world, this.state, o, action, nArgs, out);
      }
      this.turns[i] = (this.turns[i] as number) + 1;
      if (flags & Outcome.invalid) this.invalidActions[i] = (this.invalidActions[i] as number) + 1;
      const ended = (flags & Outcome.done) !== 0;
      const done = ended || (this.turns[i] as number) >= maxTurns;
      ob.push(Special.obs);
      for (let k = 0; k < out.length && ob.length < maxObsTokens; k++) ob.push(out[k] as number);
      if (out.length + 1 > maxObsTokens) this.truncated[i] = (this.truncated[i] as number) + 1;
      ob.push(done ? Special.eos : Special.act);
      if (done) {
        this.done[i] = 1;
        const success = ended && (flags & Outcome.success) !== 0;
        this.success[i] = success ? 1 : 0;
        const score = ended ? env.score(world, this.state, o) : 0;
        this.reward[i] = score - env.options.invalidActionPenalty * (this.invalidActions[i] as number);
      }
    }
  }

  observation(i: number): readonly number[] {
    const ob = this.obs[i];
    if (ob === undefined) throw new Error(`EpisodeBatch.observation: index ${i} outside [0, ${this.size})`);
    return ob;
  }

  /** the actions episode i could take now without an error (words); for the random baseline */
  validActions(i: number): string[][] {
    const world = this.worlds[i];
    if (world === undefined || this.done[i]) return [];
    return this.env.validActions(world, this.state, i * this.env.stateSize);
  }
}
