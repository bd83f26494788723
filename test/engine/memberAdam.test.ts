// MemberAdam against K PolicyModels, each stepped as checkedUpdate.ts's host path steps one model (global-norm clip
// coefficient from gradClipCoefficient, then tfjs's Adam via createAdam), on the cpu backend. Tolerance 2e-6 on
// weights after three steps of lr 1e-3: the two compute β^t differently (a power here, a running float32 product in
// tfjs), which moves an update by float32 rounding (≈ 1e-10), far inside it; a wrong clip or a shared moment would
// move weights by ~1e-3.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenLogProbs } from '../../src/engine/losses/tokenLogProbs';
import { MemberAdam, MEMBER_STEP_KEYS } from '../../src/engine/memberAdam';
import { MemberModel } from '../../src/engine/memberModel';
import { PolicyModel } from '../../src/engine/model';
import { makeModelConfig } from '../../src/engine/modelConfig';
import { createAdam } from '../../src/engine/optimizer';
import { gradClipCoefficient } from '../../src/engine/trainer/checkedUpdate';
import { BackendOrSkip } from './helpers/webgpuOrSkip';

const config = makeModelConfig('tiny', { vocabSize: 19, contextTokens: 24, width: 16, heads: 4, layers: 2, mlp: 24 });
const K = 3;
const B = 2;
const T = 9;
const ADAM = { learningRate: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };

/** [K, B, T] tokens for step s, different per member and step */
function tokensAt(s: number): tf.Tensor3D {
  const data = Int32Array.from({ length: K * B * T }, (_, i) => (i * 5 + s * 3 + Math.floor(i / 4)) % config.vocabSize);
  return tf.tensor3d(data, [K, B, T], 'int32');
}

/** −mean log p(next token) of rows [B, T] under logits [B, T−1, V] */
function crossEntropy(logits: tf.Tensor, tokens: tf.Tensor): tf.Tensor {
  const [b, t] = tokens.shape as [number, number];
  return tf.neg(tf.mean(tokenLogProbs(logits, tf.slice(tokens, [0, 1], [b, t - 1])), -1));
}

/** members' losses [K]; `scale` multiplies member k's loss (NaN refuses that member's step) */
function memberLoss(members: MemberModel, tokens: tf.Tensor3D, scale: number[]): tf.Tensor1D {
  const inputs = tf.slice(tokens, [0, 0, 0], [K, B, T - 1]);
  const logits = tf.reshape(members.forward(inputs), [K * B, T - 1, config.vocabSize]);
  const perRow = crossEntropy(logits, tf.reshape(tokens, [K * B, T])); // [K·B]
  return tf.mul(tf.mean(tf.reshape(perRow, [K, B]), 1), tf.tensor1d(scale)) as tf.Tensor1D;
}

/**
 * Three clipped steps of K members against K single models; `tolerance` bounds |Δweight| (see the file's head),
 * `digits` the decimals the loss, the relative ‖∇‖² and the clip coefficient agree to.
 */
async function stepsAsSingleModels(tolerance: number, digits: number): Promise<void> {
  const models = Array.from({ length: K }, (_, k) => new PolicyModel(config, 50 + k, `a${k}`));
  const members = MemberModel.fromModels(models);
  const adam = new MemberAdam(members.trainableVariables, ADAM);
  const optimizers = models.map(() => createAdam(ADAM));
  // member losses scaled apart so that one member is clipped hard, one lightly and one not at all
  const scale = [4, 1, 0.05];
  const clip = 0.5;
  const coefs: number[][] = [];
  try {
    for (let s = 0; s < 3; s++) {
      const tokens = tokensAt(s);
      const { stats } = adam.step(() => memberLoss(members, tokens, scale), clip);
      const rows = (await stats.array()) as number[][];
      stats.dispose();
      coefs.push(rows.map((r) => r[MEMBER_STEP_KEYS.indexOf('clipCoef')]!));
      for (let k = 0; k < K; k++) {
        const model = models[k]!;
        const { value, grads } = tf.variableGrads(() => {
          const own = tf.reshape(tf.slice(tokens, k, 1), [B, T]);
          const logits = model.forward(tf.slice(own, [0, 0], [B, T - 1]) as tf.Tensor2D);
          return tf.mul(tf.mean(crossEntropy(logits, own)), scale[k]!) as tf.Scalar;
        }, model.trainableVariables);
        const normSqT = tf.tidy(() => tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g)))));
        const normSq = (await normSqT.data())[0]!;
        normSqT.dispose();
        const coef = gradClipCoefficient(Math.sqrt(normSq), clip);
        const row = rows[k]!;
        expect(row[MEMBER_STEP_KEYS.indexOf('loss')]).toBeCloseTo((await value.data())[0]!, digits);
        expect(row[MEMBER_STEP_KEYS.indexOf('gradNormSq')]! / normSq).toBeCloseTo(1, digits);
        expect(row[MEMBER_STEP_KEYS.indexOf('clipCoef')]).toBeCloseTo(coef, digits);
        expect(row[MEMBER_STEP_KEYS.indexOf('ok')]).toBe(1);
        const scaled = Object.fromEntries(Object.entries(grads).map(([n, g]) => [n, tf.mul(g, coef)]));
        optimizers[k]!.applyGradients(scaled as unknown as Record<string, tf.Variable>);
        tf.dispose([value, ...Object.values(grads), ...Object.values(scaled)]);
      }
      tokens.dispose();
    }
    // the clip acted on one member at every step and never on the last
    expect(coefs.every((c) => c[0]! < 0.99 && c[2] === 1)).toBe(true);
    for (let k = 0; k < K; k++) {
      const probe = new PolicyModel(config, 1, `probe${k}`);
      members.writeMember(k, probe);
      for (const key of probe.parameterKeys) {
        const d = tf.tidy(() => tf.max(tf.abs(tf.sub(probe.variable(key), models[k]!.variable(key)))));
        const diff = (await d.data())[0]!;
        d.dispose();
        expect(diff, `${key} of member ${k}`).toBeLessThan(tolerance);
      }
      probe.dispose();
    }
    expect(await adam.steps()).toEqual([3, 3, 3]);
  } finally {
    adam.dispose();
    optimizers.forEach((o) => o.dispose());
    members.dispose();
    models.forEach((m) => m.dispose());
  }
}

describe('MemberAdam', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });

  it("steps each member as its own clipped Adam step would, with each member's own clip coefficient", async () => {
    await stepsAsSingleModels(2e-6, 5);
  });

  it('leaves a member whose loss is not finite as it was, steps the others, and leaks no tensors', async () => {
    const models = Array.from({ length: K }, (_, k) => new PolicyModel(config, 60 + k, `f${k}`));
    const members = MemberModel.fromModels(models);
    const beforeOptimizer = tf.memory().numTensors;
    new MemberAdam(members.trainableVariables, ADAM).dispose();
    expect(tf.memory().numTensors, 'an optimizer made and disposed').toBe(beforeOptimizer);
    const adam = new MemberAdam(members.trainableVariables, ADAM);
    const tokens = tokensAt(0);
    try {
      adam.step(() => memberLoss(members, tokens, [1, 1, 1]), 1).stats.dispose();
      const before = members.trainableVariables.map((v) => v.dataSync().slice());
      const tensors = tf.memory().numTensors;
      const { stats } = adam.step(() => memberLoss(members, tokens, [1, NaN, 1]), 1);
      const rows = (await stats.array()) as number[][];
      stats.dispose();
      expect(rows.map((r) => r[MEMBER_STEP_KEYS.indexOf('ok')])).toEqual([1, 0, 1]);
      expect(tf.memory().numTensors).toBe(tensors);
      expect(await adam.steps()).toEqual([2, 1, 2]);
      const per = (flat: ArrayLike<number>, k: number) => {
        const n = flat.length / K;
        return Array.from(flat).slice(k * n, (k + 1) * n);
      };
      members.trainableVariables.forEach((v, i) => {
        const after = v.dataSync();
        expect(per(after, 1), `${v.name} member 1`).toEqual(per(before[i]!, 1));
        if (v.name.endsWith('tok_emb')) expect(per(after, 0)).not.toEqual(per(before[i]!, 0));
      });
      expect(() => adam.step(() => tf.zeros([2]) as tf.Tensor1D, 1)).toThrow(
        /must be \[3\] \(one per member\), got \[2\]/,
      );
    } finally {
      tokens.dispose();
      adam.dispose();
      members.dispose();
      models.forEach((m) => m.dispose());
    }
  });
});

// webgpu (SwiftShader in Node), where the member axis is meant to run: the single models take the fused WGSL kernels
// (layer norm, GELU, log-probs, Adam), the members the composed ops, so they agree to float32 rounding of two
// different orders of sums (‖∇‖² to ~1e-5 relative); 2e-5 bounds the weights after three steps (a wrong clip or moment moves weights by ~1e-3).
// Skipped, with the reason printed, where no WebGPU adapter exists.
describe('MemberAdam on webgpu', () => {
  const gpu = new BackendOrSkip();
  beforeAll(() => gpu.init('webgpu'), 120_000);
  afterAll(async () => {
    await tf.setBackend('cpu');
  });

  it("steps each member as its own model's fused-kernel step would", async (ctx) => {
    gpu.skipIfMissing(ctx);
    await stepsAsSingleModels(2e-5, 4);
  }, 300_000);
});
