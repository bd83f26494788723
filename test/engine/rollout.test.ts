import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Special, TokenClass, type Task } from '../../src/core/env/types';
import { initBackend } from '../../src/engine/backend';
import { countKernels } from '../../src/engine/kernelCounter';
import { PolicyModel } from '../../src/engine/model';
import { makeModelConfig } from '../../src/engine/modelConfig';
import { PAD_CLASS, rollout, sequenceLogProbs, type RolloutBatch } from '../../src/engine/rollout';
import { makeFakeEnv } from './helpers/fakeEnv';
import { BackendOrSkip } from './helpers/webgpuOrSkip';

const env = makeFakeEnv();
const config = makeModelConfig('tiny', { vocabSize: 16, contextTokens: 40, width: 16, heads: 2, layers: 2, mlp: 32 });
const tasks: Task[] = [0, 1, 2].map((i) => env.task('train', i));
const opts = { groupSize: 4, temperature: 1, topP: 1, seed: 11 };

/** a model that ends actions with <eoa> a third of the time and prefers the 'look'/'done' heads */
function biasedModel(seed: number, name: string): PolicyModel {
  const m = new PolicyModel(config, seed, name);
  m.setWeights(
    m.getWeightsSync().map((r) => {
      if (r.name !== 'head/b') return r;
      const data = new Float32Array(r.data);
      data[Special.eoa] = 2.2;
      data[8] = 1.5;
      data[9] = 1.0;
      return { ...r, data };
    }),
  );
  return m;
}

describe('rollout over a fake environment', () => {
  let model: PolicyModel;
  let teacher: PolicyModel;
  let batch: RolloutBatch;
  beforeAll(async () => {
    await tf.setBackend('cpu');
    model = biasedModel(5, 'student');
    teacher = new PolicyModel({ ...config, contextTokens: 48 }, 9, 'teacher');
    batch = await rollout(model, env, tasks, opts);
  });
  afterAll(() => {
    model.dispose();
    teacher.dispose();
  });

  it('lays out G episodes per task with prefix, actions after <act>, observations and padding', () => {
    const { size: N, length: T } = batch;
    expect(N).toBe(12);
    expect(Array.from(batch.taskIndex)).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    let sawEoa = 0;
    let sawCut = 0;
    for (let b = 0; b < N; b++) {
      const len = batch.lengths[b] as number;
      const tok = Array.from(batch.tokens.subarray(b * T, b * T + T));
      const cls = Array.from(batch.classes.subarray(b * T, b * T + T));
      const task = tasks[batch.taskIndex[b] as number] as Task;
      expect(tok.slice(0, task.promptTokens.length + 1)).toEqual([...task.promptTokens, Special.act]);
      expect(cls[0]).toBe(TokenClass.special);
      expect(tok.slice(len)).toEqual(new Array(T - len).fill(Special.pad));
      expect(cls.slice(len)).toEqual(new Array(T - len).fill(PAD_CLASS));
      // walk the actions: each starts after an <act>, head first, ends at <eoa> or after maxActionTokens
      let t = task.promptTokens.length + 1;
      let actions = 0;
      while (t < len) {
        expect(tok[t - 1]).toBe(Special.act);
        let n = 0;
        while (t + n < len && (cls[t + n] === TokenClass.actionHead || cls[t + n] === TokenClass.actionArg)) n++;
        expect(n).toBeGreaterThan(0);
        expect(cls[t]).toBe(TokenClass.actionHead);
        expect(n).toBeLessThanOrEqual(env.limits.maxActionTokens);
        if (tok[t + n - 1] === Special.eoa) sawEoa++;
        else {
          expect(n).toBe(env.limits.maxActionTokens);
          sawCut++;
        }
        for (let j = 0; j < n; j++) expect(batch.oldLogProbs[b * T + t + j]).toBeLessThan(0);
        actions++;
        t += n;
        // observation: <obs> w… then <act> (continue) or <eos> (end)
        expect(tok[t]).toBe(Special.obs);
        while (cls[t] === TokenClass.observation) t++;
        expect([Special.act, Special.eos]).toContain(tok[t]);
        expect(cls[t]).toBe(TokenClass.special);
        t++;
      }
      expect(actions).toBe(batch.turns[b]);
      expect(batch.turns[b]).toBeLessThanOrEqual(env.limits.maxTurns);
      expect(tok[len - 1]).toBe(Special.eos);
      // non-policy positions carry no log-prob or entropy
      for (let j = 0; j < T; j++) {
        const policy = cls[j] === TokenClass.actionHead || cls[j] === TokenClass.actionArg;
        if (!policy) expect(batch.oldLogProbs[b * T + j]).toBe(0);
        if (!policy) expect(batch.entropy[b * T + j]).toBe(0);
      }
      expect(batch.reward[b]).toBeCloseTo((batch.success[b] as number) - 0.1 * (batch.invalid[b] as number), 6);
    }
    expect(sawEoa).toBeGreaterThan(3);
    expect(sawCut).toBeGreaterThan(0);
  });

  it('records old log-probs equal to those of a full forward pass (1e-5)', async () => {
    const full = await sequenceLogProbs(model, batch);
    let worst = 0;
    for (let i = 0; i < full.length; i++)
      worst = Math.max(worst, Math.abs((full[i] as number) - (batch.oldLogProbs[i] as number)));
    expect(batch.policyTokens).toBeGreaterThan(20);
    expect(worst).toBeLessThan(1e-5);
  });

  it('is reproducible from its seed and differs with another seed', async () => {
    const again = await rollout(model, env, tasks, opts);
    expect(Array.from(again.tokens)).toEqual(Array.from(batch.tokens));
    expect(Array.from(again.oldLogProbs)).toEqual(Array.from(batch.oldLogProbs));
    const other = await rollout(model, env, tasks, { ...opts, seed: 12 });
    expect(Array.from(other.tokens)).not.toEqual(Array.from(batch.tokens));
  });

  it('honours turn and context limits, marking engine-ended episodes truncated', async () => {
    const oneTurn = await rollout(model, env, tasks, { ...opts, maxTurns: 1 });
    for (let b = 0; b < oneTurn.size; b++) {
      expect(oneTurn.turns[b]).toBe(1);
      // the fake env only ends early on a valid 'done'; every other episode was cut by the engine
      expect(oneTurn.truncated[b]).toBe(oneTurn.success[b] ? 0 : 1);
      if (oneTurn.truncated[b]) expect(oneTurn.reward[b]).toBe(0);
    }
    const short = await rollout(model, env, tasks, { ...opts, contextTokens: 9 });
    expect(Math.max(...short.lengths)).toBeLessThanOrEqual(9);
    expect(short.truncated.some((v) => v === 1)).toBe(true);
  });

  it('keeps tf.memory().numTensors flat across repeated rollouts', async () => {
    await rollout(model, env, tasks, opts);
    const before = tf.memory().numTensors;
    for (let k = 0; k < 3; k++) await rollout(model, env, tasks, { ...opts, seed: k });
    await sequenceLogProbs(teacher, batch);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('samples with the teacher view when withSkill is set: skill segment first, log-probs still consistent', async () => {
    const b = await rollout(teacher, env, tasks, { ...opts, withSkill: true });
    const S = env.limits.skillTokens;
    expect(b.skillTokens).toBe(S);
    for (let r = 0; r < b.size; r++) {
      const task = tasks[b.taskIndex[r] as number] as Task;
      const row = Array.from(b.tokens.subarray(r * b.length, r * b.length + S + task.promptTokens.length + 1));
      expect(row).toEqual([...task.skillTokens, ...task.promptTokens, Special.act]);
      expect(Array.from(b.classes.subarray(r * b.length, r * b.length + S - 1))).toEqual(
        new Array(S - 1).fill(TokenClass.skill),
      );
      expect(b.lengths[r]).toBeLessThanOrEqual(env.limits.contextTokens + S);
    }
    const full = await sequenceLogProbs(teacher, b);
    let worst = 0;
    for (let i = 0; i < full.length; i++)
      worst = Math.max(worst, Math.abs((full[i] as number) - (b.oldLogProbs[i] as number)));
    expect(worst).toBeLessThan(1e-5);
  });
});

// webgpu (SwiftShader in Node): the token, its log-prob and entropy are sampled on the device by the host sampler's
// rule from the same seeded uniforms, so the batch equals the wasm backend's (tokens exactly for this seed; log-probs
// and entropies within 1e-4, float32 logits of two backends), with one read-back per turn. Skipped, with the reason
// printed, where no WebGPU adapter exists.
describe('rollout on webgpu', () => {
  const gpu = new BackendOrSkip();
  let wasm: RolloutBatch;
  beforeAll(async () => {
    await initBackend('wasm');
    const m = biasedModel(5, 'student_wasm');
    wasm = await rollout(m, env, tasks, opts);
    m.dispose();
    await gpu.init('webgpu');
  }, 120_000);

  it('samples what wasm samples, reading back once per turn, and leaks no tensor', async (ctx) => {
    gpu.skipIfMissing(ctx);
    expect(tf.getBackend()).toBe('webgpu');
    const m = biasedModel(5, 'student_gpu');
    try {
      await rollout(m, env, tasks, opts); // compiles the programs
      const before = tf.memory().numTensors;
      const { result: gpu, kernels } = await countKernels(() => rollout(m, env, tasks, opts));
      expect(tf.memory().numTensors).toBe(before);
      expect(kernels.readbacks).toBe(Math.max(...gpu.turns));
      expect(Array.from(gpu.tokens)).toEqual(Array.from(wasm.tokens));
      expect(Array.from(gpu.classes)).toEqual(Array.from(wasm.classes));
      expect(Array.from(gpu.reward)).toEqual(Array.from(wasm.reward));
      expect(gpu.policyTokens).toBe(wasm.policyTokens);
      let worst = 0;
      for (let i = 0; i < gpu.oldLogProbs.length; i++)
        worst = Math.max(
          worst,
          Math.abs((gpu.oldLogProbs[i] as number) - (wasm.oldLogProbs[i] as number)),
          Math.abs((gpu.entropy[i] as number) - (wasm.entropy[i] as number)),
        );
      expect(worst).toBeLessThan(1e-4);
      // and each sampled log-prob is the policy's own at that position (a full forward on webgpu)
      const full = await sequenceLogProbs(m, gpu);
      for (let i = 0; i < full.length; i++)
        expect(Math.abs((full[i] as number) - (gpu.oldLogProbs[i] as number))).toBeLessThan(1e-4);
    } finally {
      m.dispose();
    }
  }, 120_000);
});
