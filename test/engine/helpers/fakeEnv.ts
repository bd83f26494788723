// A tiny deterministic AgentEnv for engine tests (the real environments live in src/core/env).
// Vocabulary: the 8 specials, then words w8…w15; heads are w8 ('look') and w9 ('done').
// An action is valid when it starts with a head and ends with <eoa>. 'done' ends the episode with reward 1 when
// the action is valid; any episode also ends after maxTurns. Observations: `<obs> w13 <act>` or `<obs> w14 <eos>`.
import {
  SPECIAL_TOKENS,
  Special,
  TokenClass,
  type AgentEnv,
  type EnvLimits,
  type EpisodeBatch,
  type Task,
  type Trajectory,
  type Vocabulary,
} from '../../../src/core/env/types';

const WORDS = [...SPECIAL_TOKENS, 'look', 'done', 'w10', 'w11', 'w12', 'w13', 'w14', 'w15'];
const LOOK = 8;
const DONE = 9;

export const fakeVocab: Vocabulary = {
  words: WORDS,
  size: WORDS.length,
  id(word: string): number {
    const i = WORDS.indexOf(word);
    if (i < 0) throw new Error(`unknown word ${word}`);
    return i;
  },
  encode: (text) =>
    text
      .split(/\s+/)
      .filter(Boolean)
      .map((w) => Math.max(WORDS.indexOf(w), Special.unk)),
  decode: (ids) => Array.from(ids, (i) => WORDS[i] ?? '<unk>').join(' '),
  actionHeads: [LOOK, DONE],
};

export function makeFakeEnv(limits: Partial<EnvLimits> = {}): AgentEnv {
  const lim: EnvLimits = {
    maxTurns: 3,
    maxActionTokens: 4,
    maxObsTokens: 3,
    maxPromptTokens: 4,
    skillTokens: 3,
    contextTokens: 29,
    ...limits,
  };
  const task = (split: Task['split'], index: number): Task => ({
    env: 'shell',
    split,
    index,
    goal: `goal ${index}`,
    promptTokens: index % 2 === 0 ? [Special.bos, 10 + (index % 3), 11] : [Special.bos, 12, 10, 11],
    skillTokens: [Special.skill, 12 + (index % 2), Special.pad],
    skillMisleading: false,
    skill: 'w12',
  });
  const expert = (t: Task): Trajectory => {
    const tokens = [...t.promptTokens, Special.act, DONE, Special.eoa, Special.obs, 14, Special.eos];
    return { task: t, tokens, classes: [], reward: 1, success: true, turns: 1 };
  };
  const actionClasses = (a: readonly number[]): TokenClass[] =>
    a.map((_, j) => (j === 0 ? TokenClass.actionHead : TokenClass.actionArg));
  return {
    name: 'shell',
    vocab: fakeVocab,
    limits: lim,
    options: { seed: 0, misleadingSkillFraction: 0, invalidActionPenalty: 0.1 },
    task,
    actionClasses,
    expert,
    demonstrate: (tasks: readonly Task[]) => tasks.map(expert),
    createBatch(size: number): EpisodeBatch {
      const done = new Uint8Array(size);
      const turns = new Int32Array(size);
      const invalidActions = new Int32Array(size);
      const reward = new Float32Array(size);
      const success = new Uint8Array(size);
      let obs: number[][] = [];
      return {
        size,
        done,
        turns,
        invalidActions,
        reward,
        success,
        reset(tasks: readonly Task[]): void {
          if (tasks.length !== size) throw new Error(`fake env: reset with ${tasks.length} tasks, batch size ${size}`);
          done.fill(0);
          turns.fill(0);
          invalidActions.fill(0);
          reward.fill(0);
          success.fill(0);
          obs = Array.from({ length: size }, () => []);
        },
        step(actions: readonly (readonly number[])[]): void {
          for (let i = 0; i < size; i++) {
            if (done[i]) {
              obs[i] = [];
              continue;
            }
            const a = actions[i] ?? [];
            const valid = a.length >= 2 && (a[0] === LOOK || a[0] === DONE) && a[a.length - 1] === Special.eoa;
            if (!valid) invalidActions[i] = (invalidActions[i] as number) + 1;
            turns[i] = (turns[i] as number) + 1;
            const finished = (valid && a[0] === DONE) || (turns[i] as number) >= lim.maxTurns;
            if (finished) {
              done[i] = 1;
              success[i] = valid && a[0] === DONE ? 1 : 0;
              reward[i] = (success[i] as number) - 0.1 * (invalidActions[i] as number);
              obs[i] = [Special.obs, 14, Special.eos];
            } else obs[i] = [Special.obs, 13, Special.act];
          }
        },
        observation: (i: number) => obs[i] ?? [],
      };
    },
  };
}
