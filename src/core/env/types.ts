// The contract between the agentic micro-environments (src/core/env) and the engine's rollouts (src/engine).
// Pure TypeScript. Every sequence the engine sees is made of token ids from the environment's own Vocabulary.
//
// Token stream of one episode (the STUDENT's view):
//   <bos> prompt-words… <act> head arg… <eoa> <obs> obs-words… <act> head arg… <eoa> <obs> obs-words… <eos>
//   - prompt-words (class prompt) are the task text; <bos> is special.
//   - after each <act> the POLICY writes an action: first token class actionHead, every later token up to and
//     including the terminating <eoa> class actionArg (the <eoa> is the policy's decision that the action is complete).
//   - the ENVIRONMENT then writes `<obs> obs-words…` (class observation, the <obs> marker included) followed by
//     <act> (special) when the episode continues, or <eos> (special) when it ends.
//   - the stream starts with task.promptTokens followed by one <act> (special), written by the environment; use
//     studentPrefix(task) / teacherPrefix(task) from ./stream. So the <act> that opens turn t+1 is the last token of
//     turn t's observation, and contextTokens counts one <act> per turn plus the final <eos>.
// The TEACHER's view prepends a fixed-length skill segment: `<skill> skill-words… <pad>…` (exactly
// `limits.skillTokens` tokens, class skill, <pad> fill included), then the student's stream unchanged. So a teacher
// position is always a student position + limits.skillTokens.

// environment and demonstrator names are declared in ../methodVocabulary.ts; re-exported for the env's many users
import type { Demonstrator, EnvName } from '../methodVocabulary';
export { ENV_NAMES } from '../methodVocabulary';
export type { Demonstrator, EnvName };

export type Split = 'train' | 'validation' | 'test';
export const SPLITS: readonly Split[] = ['train', 'validation', 'test'];

/** Token classes, as small integers so they can live in typed arrays and tensors. */
export const TokenClass = {
  prompt: 0,
  skill: 1,
  actionHead: 2,
  actionArg: 3,
  observation: 4,
  special: 5,
} as const;
export type TokenClass = (typeof TokenClass)[keyof typeof TokenClass];
export const TOKEN_CLASS_NAMES = ['prompt', 'skill', 'actionHead', 'actionArg', 'observation', 'special'] as const;

/** Reserved special tokens; every vocabulary has them at these ids. */
export const Special = {
  pad: 0,
  bos: 1,
  eos: 2,
  act: 3, // start of an action (written by the environment)
  eoa: 4, // end of an action (written by the policy)
  obs: 5, // start of an observation (written by the environment)
  skill: 6, // start of the teacher's skill segment
  unk: 7,
} as const;
export const SPECIAL_TOKENS = ['<pad>', '<bos>', '<eos>', '<act>', '<eoa>', '<obs>', '<skill>', '<unk>'] as const;

export interface Vocabulary {
  /** words[id]; ids 0..7 are SPECIAL_TOKENS in that order. size ≤ 128. */
  readonly words: readonly string[];
  readonly size: number;
  /** id of a word; throws (naming the word) when it is not in the vocabulary. */
  id(word: string): number;
  /** ids of a whitespace-separated text; unknown words → Special.unk. */
  encode(text: string): number[];
  decode(ids: ArrayLike<number>): string;
  /** ids that may start an action (command heads); used for the action-head class and for random policies. */
  readonly actionHeads: readonly number[];
}

export interface EnvLimits {
  maxTurns: number;
  /** policy tokens per action including <eoa>; an action that reaches it without <eoa> is cut and is invalid. */
  maxActionTokens: number;
  /** observation tokens per turn including the <obs> marker (longer outputs are truncated by the environment). */
  maxObsTokens: number;
  /** prompt tokens including <bos> */
  maxPromptTokens: number;
  /** length of the teacher's skill segment (fixed, padded). */
  skillTokens: number;
  /** upper bound of a whole student episode in tokens: maxPromptTokens + maxTurns·(1 + maxActionTokens + maxObsTokens) + 1 ≤ this ≤ 128 */
  contextTokens: number;
}

/** One task: what the student sees (prompt), what the teacher additionally sees (skill), and opaque env state. */
export interface Task {
  readonly env: EnvName;
  readonly split: Split;
  readonly index: number;
  /** human-readable goal, e.g. "find the password of nginx" */
  readonly goal: string;
  /** <bos> + goal words (class prompt except <bos>) */
  readonly promptTokens: readonly number[];
  /** exactly limits.skillTokens ids: <skill> + retrieved skill words + <pad> fill */
  readonly skillTokens: readonly number[];
  /** whether the retrieved skill is a deliberately misleading one (for calibration and analysis) */
  readonly skillMisleading: boolean;
  /** the retrieved skill's text (what skillTokens encode, without markers), for viewers and logs */
  readonly skill?: string;
}

export interface EnvOptions {
  /** seed of the task universe; the same seed gives the same tasks on every platform */
  seed: number;
  /** fraction of skills in the SkillBank that point the wrong way, in [0, 1] */
  misleadingSkillFraction: number;
  /** reward subtracted per invalid action (public RetireOPD runs: 0.1) */
  invalidActionPenalty: number;
  /** override of the environment's default turn limit (contextTokens must stay ≤ 128); undefined = default */
  maxTurns?: number;
  /**
   * every task draws its own facts (shell: where each file is; house: the object's room; shop: the listing word), so
   * there is nothing fixed for a student to internalise; the skill still tells the task's truth. The negative
   * control, and the universe the shipped teachers learn to read their skill in. undefined/false = facts fixed by
   * the seed
   */
  randomFacts?: boolean;
}

/**
 * Batched episodes. The engine calls reset once per rollout and step once per turn with every still-active
 * episode's action tokens (an empty array for finished episodes, which are skipped).
 * Buffers are reused: results are valid until the next call.
 */
export interface EpisodeBatch {
  readonly size: number;
  reset(tasks: readonly Task[]): void;
  /** actions[i] = the policy tokens of episode i this turn (ending with <eoa> unless cut); ignored when done[i] */
  step(actions: readonly (readonly number[])[]): void;
  /** per-episode state after the last step */
  readonly done: Uint8Array;
  readonly turns: Int32Array;
  readonly invalidActions: Int32Array;
  /** terminal reward in [0, 1] minus penalties (0 until done) */
  readonly reward: Float32Array;
  readonly success: Uint8Array;
  /** observation tokens returned for episode i by the last step (empty when it was already done) */
  observation(i: number): readonly number[];
}

export interface Trajectory {
  task: Task;
  /** the whole student stream, prompt included */
  tokens: number[];
  classes: TokenClass[];
  reward: number;
  success: boolean;
  turns: number;
  /** invalid actions taken (the environments' rollouts fill it) */
  invalidActions?: number;
}

export interface AgentEnv {
  readonly name: EnvName;
  readonly vocab: Vocabulary;
  readonly limits: EnvLimits;
  readonly options: EnvOptions;
  /** deterministic task i of a split; disjoint splits */
  task(split: Split, index: number): Task;
  /** a fresh batch of `size` episodes */
  createBatch(size: number): EpisodeBatch;
  /** the optimal scripted expert's full trajectory */
  expert(task: Task): Trajectory;
  /**
   * trajectories of a scripted demonstrator, one per task, in the student's view; `seed` drives the explorers'
   * choices (the same seed and tasks give the same trajectories)
   */
  demonstrate(tasks: readonly Task[], policy: Demonstrator, seed: number): Trajectory[];
  /** classes of the policy tokens of one action (head first, then args, <eoa> as arg) */
  actionClasses(action: readonly number[]): TokenClass[];
}
