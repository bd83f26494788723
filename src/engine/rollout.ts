// Batched rollouts of a policy through an AgentEnv: G episodes per task, decoded together with a KV cache, the
// environment stepped once per turn for the whole batch. The decoding itself is turnDecoder.ts's (sampling on the
// host from logits read back once per decode step, or on the GPU with one read per turn), with a seeded PRNG
// (reproducible on a given backend).
import * as tf from '@tensorflow/tfjs';
import { classifyStream, studentPrefix, teacherPrefix } from '../core/env/stream';
import { Special, TokenClass, type AgentEnv, type EpisodeBatch, type Task } from '../core/env/types';
import type { MemberModel } from './memberModel';
import type { PolicyModel } from './model';
import { validateSamplingOptions } from './sampling';
import { TurnDecoder } from './turnDecoder';

/** class value of padding positions in RolloutBatch.classes (not a TokenClass) */
export const PAD_CLASS = -1;

export interface RolloutOptions {
  /** episodes per task (G); episodes of task k are rows k·G … k·G+G−1 */
  groupSize: number;
  temperature: number;
  /** nucleus mass in (0, 1]; 1 = off */
  topP: number;
  /** integer in [0, 2^32): the same seed, model and backend give the same batch */
  seed: number;
  /** overrides env.limits.maxTurns (may only lower it) */
  maxTurns?: number;
  /** overrides env.limits.maxActionTokens (may only lower it) */
  maxActionTokens?: number;
  /** token budget per episode; default min(env.limits.contextTokens, model contextTokens) */
  contextTokens?: number;
  /** width of the returned arrays; default the longest episode. Must be ≥ it. */
  padTo?: number;
  /**
   * sample with the teacher's view: each stream starts with the task's fixed-length skill segment (class skill),
   * and the context budget grows by env.limits.skillTokens. RolloutBatch.skillTokens then says how many leading
   * positions hold the skill segment.
   */
  withSkill?: boolean;
  /**
   * awaited between decode steps (a pause may hold a long rollout there); it must not touch the model, the
   * environment or the sampling stream, so the batch is the same whether and however long it waits
   */
  betweenDecodeSteps?: () => Promise<void>;
  /** with a MemberModel (memberRollout.ts): one sampling seed per member; `seed` is then unused */
  memberSeeds?: readonly number[];
}

/**
 * A finished batch as host typed arrays, row-major [size, length]. Position t holds token t of an episode; the
 * per-token arrays describe the token AT t (so oldLogProbs[b, t] = log π_old(tokens[b,t] | tokens[b,<t]), which a
 * full forward reads from logits[b, t−1]).
 */
export interface RolloutBatch {
  readonly size: number;
  readonly length: number;
  readonly groupSize: number;
  readonly vocabSize: number;
  /** [N, T] int32, Special.pad past each length */
  readonly tokens: Int32Array;
  /** [N, T] TokenClass values; PAD_CLASS past each length */
  readonly classes: Int32Array;
  /** [N] tokens per episode */
  readonly lengths: Int32Array;
  /** [N, T] log-prob of each policy-written token under the sampling policy at temperature 1; 0 elsewhere */
  readonly oldLogProbs: Float32Array;
  /** [N, T] entropy (nats, temperature 1) of the distribution each policy token was drawn from; 0 elsewhere */
  readonly entropy: Float32Array;
  /** [N] environment reward (terminal reward minus penalties; 0 for an episode cut by a limit before done) */
  readonly reward: Float32Array;
  readonly success: Uint8Array;
  readonly turns: Int32Array;
  readonly invalid: Int32Array;
  /** [N] 1 when the engine ended the episode (turn or context limit) before the environment said done */
  readonly truncated: Uint8Array;
  /** [N] index into the tasks array passed to rollout() */
  readonly taskIndex: Int32Array;
  /** number of policy-written tokens in the batch */
  readonly policyTokens: number;
  /** model forward calls (decode steps) the rollout took */
  readonly decodeSteps: number;
  /** leading skill-segment positions per row (0 unless options.withSkill) */
  readonly skillTokens: number;
}

export function isPolicyClass(c: number): boolean {
  return c === TokenClass.actionHead || c === TokenClass.actionArg;
}

function checkLimit(name: string, value: number | undefined, envValue: number): number {
  if (value === undefined) return envValue;
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`rollout.${name} must be a positive integer, got ${value}`);
  return Math.min(value, envValue);
}

/**
 * Runs tasks.length × groupSize episodes to the end (environment done, or a turn/context limit).
 * `episodes` may be passed to reuse an EpisodeBatch of the right size.
 */
export async function rollout(
  model: PolicyModel,
  env: AgentEnv,
  tasks: readonly Task[],
  options: RolloutOptions,
  episodes?: EpisodeBatch,
): Promise<RolloutBatch> {
  return (await rolloutRows(model, env, tasks, options, episodes)).batch;
}

/**
 * rollout() for one model or for a MemberModel's K members at once (memberRollout.ts splits the rows), with the
 * tokens each row sampled ([N]; the batch's policyTokens is their sum).
 */
export async function rolloutRows(
  model: PolicyModel | MemberModel,
  env: AgentEnv,
  tasks: readonly Task[],
  options: RolloutOptions,
  episodes?: EpisodeBatch,
): Promise<{ batch: RolloutBatch; sampled: Int32Array }> {
  validateSamplingOptions(options);
  const G = options.groupSize;
  if (!Number.isInteger(G) || G <= 0) throw new Error(`rollout.groupSize must be a positive integer, got ${G}`);
  if (tasks.length === 0) throw new Error('rollout: no tasks');
  const V = model.config.vocabSize;
  if (env.vocab.size > V)
    throw new Error(`rollout: env '${env.name}' vocabulary has ${env.vocab.size} tokens, model vocabSize is ${V}`);
  const maxTurns = checkLimit('maxTurns', options.maxTurns, env.limits.maxTurns);
  const maxAction = checkLimit('maxActionTokens', options.maxActionTokens, env.limits.maxActionTokens);
  const skillLen = options.withSkill === true ? env.limits.skillTokens : 0;
  const cap = checkLimit(
    'contextTokens',
    options.contextTokens,
    Math.min(env.limits.contextTokens + skillLen, model.config.contextTokens),
  );
  const N = tasks.length * G;
  const batch = episodes ?? env.createBatch(N);
  if (batch.size !== N)
    throw new Error(`rollout: episode batch has size ${batch.size}, expected tasks·groupSize = ${N}`);
  const rowTasks: Task[] = [];
  for (const t of tasks) for (let g = 0; g < G; g++) rowTasks.push(t);
  batch.reset(rowTasks);

  const decoder = new TurnDecoder(model, N, cap, {
    temperature: options.temperature,
    topP: options.topP,
    seed: options.seed,
    ...(options.betweenDecodeSteps ? { betweenDecodeSteps: options.betweenDecodeSteps } : {}),
    ...(options.memberSeeds ? { memberSeeds: options.memberSeeds } : {}),
  });
  const sampled = new Int32Array(N);
  // per-token classes at full capacity (the decoder holds tokens, log-probs and entropies); trimmed at the end
  const classes = new Int32Array(N * cap).fill(PAD_CLASS);
  const len = decoder.lengths; // tokens written per row
  const done = new Uint8Array(N);
  const truncated = new Uint8Array(N);
  const turns = new Int32Array(N);
  const taskIndex = new Int32Array(N);
  const actions: number[][] = Array.from({ length: N }, () => []);
  const acting = new Uint8Array(N);
  try {
    for (let i = 0; i < N; i++) {
      taskIndex[i] = Math.floor(i / G);
      const task = rowTasks[i] as Task;
      if (skillLen > 0 && task.skillTokens.length !== skillLen) {
        throw new Error(
          `rollout: task ${task.index} has ${task.skillTokens.length} skill tokens, env.limits.skillTokens is ${skillLen}`,
        );
      }
      const prefix = skillLen > 0 ? teacherPrefix(task) : studentPrefix(task);
      if (prefix.length >= cap)
        throw new Error(
          `rollout: task ${(rowTasks[i] as Task).index} prompt (${prefix.length} tokens) leaves no room in a context of ${cap}`,
        );
      classes.set(classifyStream(prefix), i * cap);
      decoder.push(i, prefix);
    }
    while (done.some((d) => d === 0)) {
      // finished episodes leave the cache (the others' logits are the same bits: rows never mix)
      decoder.retire(done);
      // ---- action phase: every live row writes one action, decoded together
      for (let i = 0; i < N; i++) acting[i] = done[i] ? 0 : 1;
      await decoder.decodeTurn(acting, maxAction, Special.eoa, actions);
      // classes of the finished actions, as the environment defines them
      for (let i = 0; i < N; i++) {
        if (done[i]) continue;
        const act = actions[i] as number[];
        sampled[i] = (sampled[i] as number) + act.length;
        const cls = env.actionClasses(act);
        const start = (len[i] as number) - act.length;
        for (let j = 0; j < act.length; j++) classes[i * cap + start + j] = (cls[j] ?? TokenClass.actionArg) as number;
      }
      // ---- environment phase: one batched step
      batch.step(actions.map((a, i) => (done[i] ? [] : a)));
      for (let i = 0; i < N; i++) {
        if (done[i]) continue;
        turns[i] = (turns[i] as number) + 1;
        const obs = batch.observation(i);
        const room = cap - (len[i] as number);
        const n = Math.min(obs.length, room);
        const at = i * cap + (len[i] as number);
        for (let j = 0; j < n; j++) {
          const t = obs[j] as number;
          // `<obs> words…` are observation; the closing <act>/<eos> is special
          classes[at + j] =
            j === obs.length - 1 && (t === Special.act || t === Special.eos)
              ? TokenClass.special
              : TokenClass.observation;
        }
        decoder.push(i, obs.slice(0, n));
        if (batch.done[i]) {
          done[i] = 1;
        } else if (n < obs.length || (len[i] as number) >= cap || (turns[i] as number) >= maxTurns) {
          done[i] = 1;
          truncated[i] = 1;
        }
      }
    }
  } finally {
    decoder.dispose();
  }
  const { tokens, logProbs: oldLp, entropy: ent, sampledTokens: policyTokens, decodeSteps } = decoder;

  const T = batchWidth(len, options.padTo);
  const trim = <A extends Int32Array | Float32Array>(src: A, make: (n: number) => A, fill: number): A =>
    copyRows(src, cap, 0, N, T, make, fill);
  const reward = new Float32Array(N);
  const success = new Uint8Array(N);
  const invalid = new Int32Array(N);
  for (let i = 0; i < N; i++) {
    reward[i] = truncated[i] && !batch.done[i] ? 0 : (batch.reward[i] as number);
    success[i] = truncated[i] && !batch.done[i] ? 0 : (batch.success[i] as number);
    invalid[i] = batch.invalidActions[i] as number;
  }
  const out: RolloutBatch = {
    size: N,
    length: T,
    groupSize: G,
    vocabSize: V,
    tokens: trim(tokens, (n) => new Int32Array(n), Special.pad),
    classes: trim(classes, (n) => new Int32Array(n), PAD_CLASS),
    lengths: len,
    oldLogProbs: trim(oldLp, (n) => new Float32Array(n), 0),
    entropy: trim(ent, (n) => new Float32Array(n), 0),
    reward,
    success,
    turns,
    invalid,
    truncated,
    taskIndex,
    policyTokens,
    decodeSteps,
    skillTokens: skillLen,
  };
  return { batch: out, sampled };
}

/** A batch's row width: its longest episode in `lengths`, or `padTo`, which must be an integer ≥ that. */
export function batchWidth(lengths: ArrayLike<number>, padTo: number | undefined): number {
  let width = 0;
  for (let i = 0; i < lengths.length; i++) width = Math.max(width, lengths[i] as number);
  if (padTo === undefined) return width;
  if (!Number.isInteger(padTo) || padTo < width)
    throw new Error(`rollout.padTo (${padTo}) must be an integer ≥ the longest episode (${width})`);
  return padTo;
}

/**
 * Rows [first, first + n) of a row-major [*, srcWidth] array as a new [n, width] array: each row's first
 * min(srcWidth, width) entries, `fill` after them.
 */
export function copyRows<A extends Int32Array | Float32Array>(
  src: A,
  srcWidth: number,
  first: number,
  n: number,
  width: number,
  make: (size: number) => A,
  fill: number,
): A {
  const out = make(n * width);
  if (fill !== 0) out.fill(fill);
  for (let i = 0; i < n; i++) {
    const at = (first + i) * srcWidth;
    out.set(src.subarray(at, at + Math.min(srcWidth, width)), i * width);
  }
  return out;
}

/**
 * Per-position log-probs of a batch's own tokens under `model`: out[b, t] = log p(tokens[b,t] | tokens[b,<t]) for
 * t ≥ 1, in one batched forward (no gradient). Entries where `keep(class)` is false are 0. (The teacher's scoring of
 * a student stream, with its skill in front, is teacherView.ts's.)
 */
export async function sequenceLogProbs(
  model: PolicyModel,
  batch: RolloutBatch,
  keep: (cls: number) => boolean = isPolicyClass,
): Promise<Float32Array> {
  const N = batch.size;
  const T = batch.length;
  if (T > model.config.contextTokens) {
    throw new Error(`${model.name}: sequence of ${T} tokens exceeds its contextTokens ${model.config.contextTokens}`);
  }
  const lpT = tf.tidy(() => {
    const logits = model.forward(tf.tensor2d(batch.tokens, [N, T], 'int32')); // [N, T, V]
    const pred = tf.slice(logits, [0, 0, 0], [N, T - 1, model.config.vocabSize]); // predicts tokens 1..T−1
    const targets = tf.tensor2d(batch.tokens, [N, T], 'int32').slice([0, 1], [N, T - 1]);
    return tf.sum(tf.mul(tf.logSoftmax(pred), tf.cast(tf.oneHot(targets, model.config.vocabSize), 'float32')), -1); // [N, T−1]
  });
  let lp: Float32Array;
  try {
    lp = (await lpT.data()) as Float32Array;
  } finally {
    lpT.dispose();
  }
  const out = new Float32Array(N * T);
  for (let b = 0; b < N; b++) {
    const n = batch.lengths[b] as number;
    for (let t = 1; t < n; t++)
      if (keep(batch.classes[b * T + t] as number)) out[b * T + t] = lp[b * (T - 1) + t - 1] as number;
  }
  return out;
}
