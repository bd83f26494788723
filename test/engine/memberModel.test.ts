// The member axis against K separate PolicyModels on the cpu backend (float32; tolerance 1e-5 absolute on logits
// and gradients of size ~1, which float32 rounding in a different order of sums stays far inside).
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { readbackCount } from '../../src/engine/kernelCounter';
import { tokenLogProbs } from '../../src/engine/losses/tokenLogProbs';
import { MemberModel } from '../../src/engine/memberModel';
import { PolicyModel } from '../../src/engine/model';
import { makeModelConfig, type ModelConfig } from '../../src/engine/modelConfig';

const tied = makeModelConfig('tiny', { vocabSize: 19, contextTokens: 24, width: 16, heads: 4, layers: 2, mlp: 24 });
const untied: ModelConfig = { ...tied, tiedHead: false };
const K = 3;
const B = 2;
const T = 9;

/** [K, B, T] int32 tokens, different per member */
function memberTokens(config: ModelConfig): tf.Tensor3D {
  const data = Int32Array.from({ length: K * B * T }, (_, i) => (i * 7 + Math.floor(i / 5)) % config.vocabSize);
  return tf.tensor3d(data, [K, B, T], 'int32');
}

function maxAbsDiff(a: tf.Tensor, b: tf.Tensor): number {
  return tf.tidy(() => tf.max(tf.abs(tf.sub(a, b))).dataSync()[0] as number);
}

describe('MemberModel', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });

  for (const [label, config] of [
    ['a tied head', tied],
    ['a separate head', untied],
  ] as const) {
    it(`gives each member the logits its own PolicyModel gives, with ${label}`, () => {
      const models = Array.from({ length: K }, (_, k) => new PolicyModel(config, 10 + k, `m${k}`));
      const members = MemberModel.fromModels(models);
      const tokens = memberTokens(config);
      try {
        const stacked = members.forward(tokens);
        expect(stacked.shape).toEqual([K, B, T, config.vocabSize]);
        for (let k = 0; k < K; k++) {
          const own = tf.tidy(() => models[k]!.forward(tf.reshape(tf.slice(tokens, k, 1), [B, T]) as tf.Tensor2D));
          const mine = tf.tidy(() => tf.reshape(tf.slice(stacked, k, 1), own.shape));
          expect(maxAbsDiff(mine, own)).toBeLessThan(1e-5);
          // and the members differ: member k's weights, not member 0's
          if (k > 0) expect(maxAbsDiff(mine, tf.reshape(tf.slice(stacked, 0, 1), own.shape))).toBeGreaterThan(1e-3);
          tf.dispose([own, mine]);
        }
        stacked.dispose();
      } finally {
        tf.dispose([tokens]);
        members.dispose();
        models.forEach((m) => m.dispose());
      }
    });
  }

  it("differentiates the members' summed loss into each member's own gradient", () => {
    const models = Array.from({ length: K }, (_, k) => new PolicyModel(untied, 20 + k, `g${k}`));
    const members = MemberModel.fromModels(models);
    const tokens = memberTokens(untied);
    const inputs = tf.slice(tokens, [0, 0, 0], [K, B, T - 1]);
    const targets = tf.slice(tokens, [0, 0, 1], [K, B, T - 1]);
    try {
      const stacked = tf.variableGrads(
        () =>
          tf.neg(
            tf.sum(
              tf.mean(
                tf.reshape(
                  tokenLogProbs(
                    tf.reshape(members.forward(inputs), [K * B, T - 1, untied.vocabSize]),
                    tf.reshape(targets, [K * B, T - 1]),
                  ),
                  [K, -1],
                ),
                1,
              ),
            ),
          ) as tf.Scalar,
        members.trainableVariables,
      );
      for (let k = 0; k < K; k++) {
        const own = tf.variableGrads(
          () =>
            tf.neg(
              tf.mean(
                tokenLogProbs(
                  models[k]!.forward(tf.reshape(tf.slice(inputs, k, 1), [B, T - 1]) as tf.Tensor2D),
                  tf.reshape(tf.slice(targets, k, 1), [B, T - 1]),
                ),
              ),
            ) as tf.Scalar,
          models[k]!.trainableVariables,
        );
        for (const key of models[k]!.parameterKeys) {
          const mine = tf.tidy(() => {
            const g = stacked.grads[members.variable(key).name]!;
            return tf.reshape(tf.slice(g, k, 1), g.shape.slice(1));
          });
          expect(maxAbsDiff(mine, own.grads[models[k]!.variable(key).name]!), `${key} of member ${k}`).toBeLessThan(
            1e-5,
          );
          mine.dispose();
        }
        tf.dispose([own.value, ...Object.values(own.grads)]);
      }
      tf.dispose([stacked.value, ...Object.values(stacked.grads)]);
    } finally {
      tf.dispose([tokens, inputs, targets]);
      members.dispose();
      models.forEach((m) => m.dispose());
    }
  });

  it('writes a member back into a PolicyModel bit for bit, frozen or not, and refuses another config or member', async () => {
    const models = Array.from({ length: K }, (_, k) => new PolicyModel(tied, 30 + k, `w${k}`));
    const members = MemberModel.fromModels(models);
    const target = new PolicyModel(tied, 99, 'target');
    const other = new PolicyModel(untied, 1, 'other');
    try {
      // a frozen target answers getWeights from its host copy: writing a member must drop that copy
      target.freeze();
      await target.getWeights();
      const tensors = tf.memory().numTensors;
      members.writeMember(2, target);
      expect(tf.memory().numTensors).toBe(tensors);
      const a = await target.getWeights();
      const b = models[2]!.getWeightsSync();
      a.forEach((r, i) => expect(Array.from(r.data), r.name).toEqual(Array.from(b[i]!.data)));
      expect(() => members.writeMember(3, target)).toThrow(/member 3 is not in 0…2/);
      expect(() => members.writeMember(0, other)).toThrow(/another model config/);
      expect(() => MemberModel.fromModels([models[0]!, other])).toThrow(/member 1 \(other\) has another model config/);
      expect(() => MemberModel.fromModels([])).toThrow(/at least one member/);
    } finally {
      members.dispose();
      [...models, target, other].forEach((m) => m.dispose());
    }
  });

  it("reads every member's checkpointable weights in one read-back, each equal to its own model's, tied head or not", async () => {
    for (const config of [tied, untied]) {
      const models = Array.from({ length: K }, (_, k) => new PolicyModel(config, 50 + k, `c${k}`));
      const members = MemberModel.fromModels(models);
      const loaded = new PolicyModel(config, 98, 'loaded');
      try {
        const tensors = tf.memory().numTensors;
        const reads = readbackCount();
        const all = await members.getMemberWeights();
        expect(readbackCount() - reads).toBe(1);
        expect(tf.memory().numTensors).toBe(tensors);
        expect(all).toHaveLength(K);
        for (let k = 0; k < K; k++) {
          const own = await models[k]!.getWeights();
          expect(all[k]!.map((r) => [r.name, r.shape])).toEqual(own.map((r) => [r.name, r.shape]));
          all[k]!.forEach((r, i) =>
            expect(Array.from(r.data), `member ${k} ${r.name}`).toEqual(Array.from(own[i]!.data)),
          );
        }
        // the records are a checkpoint a PolicyModel loads
        loaded.setWeights(all[1]!);
        const back = loaded.getWeightsSync();
        back.forEach((r, i) => expect(Array.from(r.data), r.name).toEqual(Array.from(all[1]![i]!.data)));
      } finally {
        members.dispose();
        [...models, loaded].forEach((m) => m.dispose());
      }
    }
  });

  it('leaves no tensors behind after a forward pass', () => {
    const models = Array.from({ length: K }, (_, k) => new PolicyModel(tied, 40 + k, `n${k}`));
    const members = MemberModel.fromModels(models);
    const tokens = memberTokens(tied);
    try {
      members.forward(tokens).dispose();
      const before = tf.memory().numTensors;
      for (let i = 0; i < 3; i++) members.forward(tokens).dispose();
      expect(tf.memory().numTensors).toBe(before);
      expect(() => members.forward(tf.zeros([K + 1, B, T], 'int32') as tf.Tensor3D)).toThrow(/4 members, the model 3/);
    } finally {
      tokens.dispose();
      members.dispose();
      models.forEach((m) => m.dispose());
    }
  });
});
