// Batched stepping: equality with one-at-a-time stepping, invalid actions, turn limits, buffer reuse.
import { describe, expect, it } from 'vitest';
import { ENV_NAMES, Special, createEnv, type EnvName } from '../../../src/core/env';
import type { MicroEnv } from '../../../src/core/env/microEnv';
import { createRng, type Rng } from '../../../src/core/rng';

/** a mix of valid actions, junk tokens, actions without <eoa> and actions holding markers */
function messyAction(env: MicroEnv<unknown>, valid: string[][], rng: Rng): number[] {
  const roll = rng.int(10);
  if (roll < 6 && valid.length > 0) return env.encodeAction(rng.pick(valid));
  const len = 1 + rng.int(env.limits.maxActionTokens);
  const junk = Array.from({ length: len }, () => rng.int(env.vocab.size));
  if (roll < 8) junk[len - 1] = Special.eoa;
  return junk;
}

/** the batch's valid actions without the shop's long search list (keeps the mix interesting) */
function someValid(env: MicroEnv<unknown>, all: string[][], rng: Rng): string[][] {
  const heads = [...new Set(all.map((a) => a[0]))];
  const head = heads.length > 0 ? rng.pick(heads) : undefined;
  return all.filter((a) => a[0] === head);
}

// shell: 3 turns since the redesign (two probes and an answer: too few to search 20 directories)
const MAX_TURNS: Record<EnvName, number> = { shell: 3, house: 6, shop: 4 };
const WRONG_ARITY: Record<EnvName, string[]> = {
  shell: ['ls', 'etc', 'var'],
  house: ['look', 'apple'],
  shop: ['buy', 'p1'],
};
/** a valid action that never ends the episode */
const IDLE: Record<EnvName, string[]> = { shell: ['ls'], house: ['look'], shop: ['search', 'red'] };

describe.each(ENV_NAMES)('%s episode batch', (name) => {
  const env = createEnv(name, { seed: 11 });

  it('steps a batch of 48 exactly as 48 batches of one, observation by observation', () => {
    const tasks = env.tasks('train', 48);
    const big = env.createBatch(tasks.length);
    const singles = tasks.map(() => env.createBatch(1));
    big.reset(tasks);
    singles.forEach((b, i) => b.reset([tasks[i]!]));
    const rngs = tasks.map((_, i) => createRng(100 + i));
    for (let turn = 0; turn < env.limits.maxTurns; turn++) {
      const actions = tasks.map((_, i) => {
        if (big.done[i]) return [];
        const valid = someValid(env, big.validActions(i), rngs[i]!);
        expect(singles[i]!.validActions(0)).toEqual(big.validActions(i));
        return messyAction(env, valid, rngs[i]!);
      });
      big.step(actions);
      singles.forEach((b, i) => b.step([actions[i]!]));
      singles.forEach((b, i) => {
        expect(b.observation(0)).toEqual(big.observation(i));
        expect(b.done[0]).toBe(big.done[i]);
      });
    }
    singles.forEach((b, i) => {
      expect(big.done[i]).toBe(1);
      expect(b.turns[0]).toBe(big.turns[i]);
      expect(b.invalidActions[0]).toBe(big.invalidActions[i]);
      expect(b.reward[0]).toBe(big.reward[i]);
      expect(b.success[0]).toBe(big.success[i]);
    });
    // the messy policy did produce invalid actions, so the comparison covered error paths
    expect(big.invalidActions.reduce((a, b) => a + b, 0)).toBeGreaterThan(10);
  });

  it('treats a cut action, an unknown head, a marker inside and a wrong arity as invalid turns with an error', () => {
    const task = env.task('validation', 0);
    const [head] = env.expertPlan(task.world)[0]!;
    const headId = env.vocab.id(head!);
    const argWord = env.vocab.words[env.vocab.size - 1]!;
    const bad: number[][] = [
      [headId, env.vocab.id(argWord)], // no <eoa>
      [env.vocab.id(argWord), Special.eoa], // not a command head
      [headId, Special.obs, Special.eoa], // a marker inside
      [headId, ...Array(env.limits.maxActionTokens).fill(env.vocab.id(argWord)), Special.eoa], // too long
      env.encodeAction(WRONG_ARITY[name]),
    ];
    const batch = env.createBatch(1);
    const badObs = [Special.obs, ...env.badActionTokens, Special.act];
    for (const action of bad) {
      batch.reset([task]);
      batch.step([env.encodeAction(IDLE[name])]);
      batch.step([action]);
      expect(batch.observation(0)).toEqual(badObs);
      expect(batch.turns[0]).toBe(2);
      expect(batch.invalidActions[0]).toBe(1);
      expect(batch.done[0]).toBe(0);
      expect(batch.reward[0]).toBe(0);
    }
  });

  it('subtracts the invalid-action penalty from the final reward (0.1 by default, configurable)', () => {
    for (const penalty of [0.1, 0.25]) {
      const e = createEnv(name, { seed: 11, invalidActionPenalty: penalty });
      const task = e.task('test', 3);
      const plan = e.expertPlan(task.world);
      const batch = e.createBatch(1);
      batch.reset([task]);
      const slack = e.limits.maxTurns - plan.length;
      for (let k = 0; k < slack; k++) batch.step([[Special.eoa]]);
      for (const a of plan) batch.step([e.encodeAction(a)]);
      expect(batch.done[0]).toBe(1);
      expect(batch.success[0]).toBe(1);
      expect(batch.invalidActions[0]).toBe(slack);
      expect(batch.reward[0]).toBeCloseTo(1 - penalty * slack, 6);
    }
  });

  it(`ends an episode at the turn limit (${MAX_TURNS[name]} turns) with <eos> and reward 0`, () => {
    expect(env.limits.maxTurns).toBe(MAX_TURNS[name]);
    const task = env.task('train', 5);
    const batch = env.createBatch(1);
    batch.reset([task]);
    // a valid action that never ends the episode: the first head that takes no state change (look/ls/search)
    const idle = IDLE[name];
    for (let turn = 1; turn <= env.limits.maxTurns; turn++) {
      batch.step([env.encodeAction(idle)]);
      const ob = batch.observation(0);
      expect(ob[0]).toBe(Special.obs);
      expect(ob.at(-1)).toBe(turn < env.limits.maxTurns ? Special.act : Special.eos);
      expect(batch.done[0]).toBe(turn < env.limits.maxTurns ? 0 : 1);
    }
    expect(batch.invalidActions[0]).toBe(0);
    expect(batch.reward[0]).toBe(0);
    expect(batch.success[0]).toBe(0);
    // a done episode ignores further actions and returns an empty observation
    batch.step([env.encodeAction(idle)]);
    expect(batch.observation(0)).toEqual([]);
    expect(batch.turns[0]).toBe(env.limits.maxTurns);
  });

  it('reuses its buffers across resets and marks slots beyond the tasks as done', () => {
    const tasks = env.tasks('train', 3);
    const batch = env.createBatch(4);
    batch.reset(tasks);
    expect([...batch.done]).toEqual([0, 0, 0, 1]);
    const ob0 = batch.observation(0);
    const first = env.rollout(
      tasks,
      tasks.map((t) => env.baseline('explorer', t, createRng(1))),
    );
    const again = env.rollout(
      tasks,
      tasks.map((t) => env.baseline('explorer', t, createRng(1))),
    );
    expect(again).toEqual(first);
    batch.step([env.encodeAction(IDLE[name]), [], [], []]);
    expect(batch.observation(0)).toBe(ob0); // same array object, refilled
    batch.reset(tasks);
    expect([...batch.turns]).toEqual([0, 0, 0, 0]);
    expect([...batch.invalidActions]).toEqual([0, 0, 0, 0]);
    expect(() => batch.step([[]])).toThrow(/1 actions for a batch of 4/);
    expect(() => batch.reset(env.tasks('train', 5))).toThrow(/5 tasks for a batch of 4/);
  });

  it('never truncates an observation of the scripted or random policies', () => {
    const tasks = env.tasks('validation', 200);
    for (const policy of ['expert', 'explorer', 'skillFollower', 'random'] as const) {
      const batch = env.createBatch(tasks.length);
      batch.reset(tasks);
      const pols = tasks.map((t) => env.baseline(policy, t, createRng(t.index)));
      const last: string[][] = tasks.map(() => []);
      for (let turn = 0; turn < env.limits.maxTurns; turn++) {
        const actions = tasks.map((_, i) =>
          batch.done[i] ? [] : env.encodeAction(pols[i]!.act(last[i]!, () => batch.validActions(i))),
        );
        batch.step(actions);
        tasks.forEach((_, i) => {
          const ob = batch.observation(i);
          last[i] = [...ob].slice(1, -1).map((id) => env.vocab.words[id]!);
        });
      }
      expect(batch.truncated.reduce((a, b) => a + b, 0)).toBe(0);
    }
  });
});
