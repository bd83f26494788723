// One rollout for K members against K rollouts of the members' own models over the fake environment: every field
// equal (tokens, classes, outcomes, task indices, sampled-token counts), log-probs and entropies to 1e-5 (the
// members' logits are batched products, float32 rounding in another order; sampling is float64 on the host, and no
// uniform of these fixed seeds lands within 1e-5 of a CDF boundary), and fewer decode steps than the K rollouts.
// On webgpu both sides sample on the device (float32 inverse CDF, deviceSampling.ts) and the member rollout reads
// once per turn for all members, where the K rollouts read once per turn each; skipped, with the reason printed,
// where no WebGPU adapter exists.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Special, type Task } from '../../src/core/env/types';
import { readbackCount } from '../../src/engine/kernelCounter';
import { MemberModel } from '../../src/engine/memberModel';
import { memberRollout } from '../../src/engine/memberRollout';
import { PolicyModel } from '../../src/engine/model';
import { makeModelConfig } from '../../src/engine/modelConfig';
import { rollout, type RolloutBatch } from '../../src/engine/rollout';
import { makeFakeEnv } from './helpers/fakeEnv';
import { BackendOrSkip } from './helpers/webgpuOrSkip';

const env = makeFakeEnv();
const config = makeModelConfig('tiny', { vocabSize: 16, contextTokens: 40, width: 16, heads: 2, layers: 2, mlp: 32 });
const K = 3;
const SEEDS = [11, 12, 13];
const opts = { groupSize: 2, temperature: 1, topP: 1 };
/** member k's tasks: two each, overlapping between members */
const TASKS: Task[][] = Array.from({ length: K }, (_, k) => [k, k + 2].map((i) => env.task('train', i)));

/** a member that ends actions with <eoa> often and prefers some heads, differently per member */
function biasedModel(k: number): PolicyModel {
  const m = new PolicyModel(config, 30 + k, `r${k}`);
  m.setWeights(
    m.getWeightsSync().map((r) => {
      if (r.name !== 'head/b') return r;
      const data = new Float32Array(r.data);
      data[Special.eoa] = 2.2 - 0.4 * k;
      data[8 + k] = 1.5;
      return { ...r, data };
    }),
  );
  return m;
}

function expectSameBatch(made: RolloutBatch, own: RolloutBatch, label: string): void {
  const { oldLogProbs, entropy, decodeSteps: _steps, ...exact } = made;
  const { oldLogProbs: ownLp, entropy: ownEnt, decodeSteps: _ownSteps, ...ownExact } = own;
  expect(exact, label).toEqual(ownExact);
  for (let i = 0; i < ownLp.length; i++) {
    expect(Math.abs((oldLogProbs[i] as number) - (ownLp[i] as number)), `${label} log-prob ${i}`).toBeLessThan(1e-5);
    expect(Math.abs((entropy[i] as number) - (ownEnt[i] as number)), `${label} entropy ${i}`).toBeLessThan(1e-5);
  }
}

describe.each(['cpu', 'wasm', 'webgpu'] as const)('memberRollout on %s', (backend) => {
  const gpu = new BackendOrSkip();
  beforeAll(() => gpu.init(backend), 120_000);

  it("gives each member the batch its own model's rollout gives, in fewer decode steps", async (ctx) => {
    gpu.skipIfMissing(ctx);
    const models = Array.from({ length: K }, (_, k) => biasedModel(k));
    const members = MemberModel.fromModels(models);
    const before = tf.memory().numTensors;
    try {
      const reads = readbackCount();
      const made = await memberRollout(members, env, TASKS, { ...opts, seeds: SEEDS });
      const memberReads = readbackCount() - reads;
      expect(tf.memory().numTensors).toBe(before);
      expect(made).toHaveLength(K);
      let stepsAlone = 0;
      const readsAlone: number[] = [];
      for (let k = 0; k < K; k++) {
        const start = readbackCount();
        const own = await rollout(models[k]!, env, TASKS[k]!, { ...opts, seed: SEEDS[k]! });
        readsAlone.push(readbackCount() - start);
        expectSameBatch(made[k]!, own, `member ${k}`);
        expect(made[k]!.decodeSteps).toBeGreaterThanOrEqual(own.decodeSteps);
        stepsAlone += own.decodeSteps;
      }
      if (backend === 'webgpu') {
        // one read per turn: the members' turns run together, so as many as the member with the most turns
        expect(memberReads).toBe(Math.max(...readsAlone));
        expect(memberReads).toBeLessThan(readsAlone.reduce((a, b) => a + b, 0));
      }
      // the members' episodes differ (not one batch copied K times), and their steps are shared
      expect(new Set(made.map((b) => Array.from(b.tokens).join())).size).toBe(K);
      expect(made[0]!.decodeSteps).toBeLessThan(stepsAlone);
    } finally {
      members.dispose();
      models.forEach((m) => m.dispose());
    }
  });

  it('pads every member to padTo and refuses mismatched tasks, seeds and a padTo below an episode', async (ctx) => {
    gpu.skipIfMissing(ctx);
    const models = Array.from({ length: K }, (_, k) => biasedModel(k));
    const members = MemberModel.fromModels(models);
    try {
      const padded = await memberRollout(members, env, TASKS, { ...opts, seeds: SEEDS, padTo: 40 });
      for (let k = 0; k < K; k++) {
        const own = await rollout(models[k]!, env, TASKS[k]!, { ...opts, seed: SEEDS[k]!, padTo: 40 });
        expectSameBatch(padded[k]!, own, `member ${k} padded`);
      }
      await expect(memberRollout(members, env, TASKS.slice(1), { ...opts, seeds: SEEDS })).rejects.toThrow(
        /3 task lists/,
      );
      await expect(memberRollout(members, env, TASKS, { ...opts, seeds: [1] })).rejects.toThrow(/3 seeds/);
      const uneven = [TASKS[0]!, TASKS[1]!.slice(0, 1), TASKS[2]!];
      await expect(memberRollout(members, env, uneven, { ...opts, seeds: SEEDS })).rejects.toThrow(/must match/);
      await expect(memberRollout(members, env, TASKS, { ...opts, seeds: SEEDS, padTo: 3 })).rejects.toThrow(/padTo/);
    } finally {
      members.dispose();
      models.forEach((m) => m.dispose());
    }
  });
});
