// Dropping padding from a forward pass (src/engine/rowPacking.ts): the index maps, the two copies and their
// gradients, and the model's promise that on wasm a forward with `lengths` gives the same bits (logits at real
// positions, every gradient under a loss that ignores padding) as the padded forward, with no tensor left behind.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../../src/engine/backend';
import { PolicyModel } from '../../src/engine/model';
import { makeModelConfig } from '../../src/engine/modelConfig';
import { packRows, packsPadding, rowPacking, unpackRows } from '../../src/engine/rowPacking';
import { tokenLogProbs } from '../../src/engine/losses/tokenLogProbs';
import { SeededRandom } from '../../src/engine/sampling';

const config = makeModelConfig('small', { vocabSize: 23, contextTokens: 40 });

/** number of entries whose bits differ (Object.is: NaN equals NaN, +0 differs from −0) */
function bitDifferences(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let n = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) n++;
  return n;
}

/** a padded batch [B, T]: row b holds lengths[b] random tokens, then <pad> (id 0) */
function batchOf(lengths: number[], T: number, seed: number): Int32Array {
  const r = new SeededRandom(seed);
  const out = new Int32Array(lengths.length * T);
  lengths.forEach((n, b) => {
    for (let t = 0; t < n; t++) out[b * T + t] = 1 + Math.floor(r.next() * (config.vocabSize - 1));
  });
  return out;
}

describe('rowPacking', () => {
  beforeAll(async () => {
    await initBackend('cpu');
  });

  it('maps real rows to their padded rows and padding to the appended zero row', () => {
    const p = rowPacking([2, 3, 1], 3, 3);
    expect(p).not.toBeNull();
    expect(p!.rows).toBe(6);
    expect(p!.paddedRows).toBe(9);
    expect(Array.from(p!.packIndex.dataSync())).toEqual([0, 1, 3, 4, 5, 6]);
    expect(Array.from(p!.unpackIndex.dataSync())).toEqual([0, 1, 6, 2, 3, 4, 5, 6, 6]);
    tf.dispose([p!.packIndex, p!.unpackIndex]);
  });

  it('returns null when no row is padded, and names a length outside [1, T]', () => {
    expect(rowPacking([3, 3], 2, 3)).toBeNull();
    expect(() => rowPacking([3, 0], 2, 3)).toThrow(/lengths\[1\] = 0 is not an integer in \[1, 3\]/);
    expect(() => rowPacking([4, 1], 2, 3)).toThrow(/lengths\[0\] = 4/);
    expect(() => rowPacking([1], 2, 3)).toThrow(/1 lengths for a batch of 2/);
  });

  it('packs and unpacks by copying, and each is the other’s gradient', () => {
    const before = tf.memory().numTensors;
    tf.tidy(() => {
      const p = rowPacking([2, 1], 2, 3)!;
      const x = tf.tensor2d([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [6, 2]); // padded [B·T, F]
      expect(Array.from(packRows(x, p).dataSync())).toEqual([1, 2, 3, 4, 7, 8]);
      const y = tf.tensor2d([1, 2, 3, 4, 5, 6], [3, 2]); // packed [N, F]
      expect(Array.from(unpackRows(y, p).dataSync())).toEqual([1, 2, 3, 4, 0, 0, 5, 6, 0, 0, 0, 0]);
      const w = tf.tensor2d([1, 10, 100, 1000, 2, 20], [3, 2]);
      // d/dx Σ w ⊙ pack(x): w scattered to the real rows, zeros at padding
      const gPack = tf.grad((xi: tf.Tensor) => tf.sum(tf.mul(packRows(xi as tf.Tensor2D, p), w)))(x);
      expect(Array.from(gPack.dataSync())).toEqual([1, 10, 100, 1000, 0, 0, 2, 20, 0, 0, 0, 0]);
      // d/dy Σ v ⊙ unpack(y): the real rows of v (its padding rows are dropped)
      const v = tf.tensor2d([1, 2, 3, 4, 50, 60, 5, 6, 70, 80, 90, 99], [6, 2]);
      const gUnpack = tf.grad((yi: tf.Tensor) => tf.sum(tf.mul(unpackRows(yi as tf.Tensor2D, p), v)))(y);
      expect(Array.from(gUnpack.dataSync())).toEqual([1, 2, 3, 4, 5, 6]);
    });
    expect(tf.memory().numTensors).toBe(before);
  });

  it('is used on wasm only', async () => {
    expect(packsPadding()).toBe(false);
    await initBackend('wasm');
    expect(packsPadding()).toBe(true);
    await initBackend('cpu');
  });
});

describe('PolicyModel.forward with lengths on wasm', () => {
  const lengths = [17, 9, 30, 1, 24, 30];
  const T = 30;
  const B = lengths.length;
  let model: PolicyModel;
  beforeAll(async () => {
    await initBackend('wasm');
    model = new PolicyModel(config, 5, 'packed');
  });
  afterAll(async () => {
    model.dispose();
    await initBackend('cpu');
  });

  it('gives the padded forward’s logits, bit for bit, at every real position and zeros at padding', async () => {
    const before = tf.memory().numTensors;
    const tokens = tf.tensor2d(batchOf(lengths, T, 1), [B, T], 'int32');
    const padded = model.forward(tokens);
    const packed = model.forward(tokens, lengths);
    const [a, b] = [(await padded.data()) as Float32Array, (await packed.data()) as Float32Array];
    const V = config.vocabSize;
    const real: number[] = [];
    const pad: number[] = [];
    for (let r = 0; r < B; r++) for (let t = 0; t < T; t++) (t < lengths[r]! ? real : pad).push((r * T + t) * V);
    const pick = (x: Float32Array, rows: number[]) => rows.flatMap((o) => Array.from(x.subarray(o, o + V)));
    expect(bitDifferences(pick(b, real), pick(a, real))).toBe(0);
    expect(pick(b, pad).every((v) => v === 0)).toBe(true);
    tf.dispose([tokens, padded, packed]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('gives every parameter the padded forward’s gradient, bit for bit, under a loss that ignores padding', async () => {
    const before = tf.memory().numTensors;
    const tokens = tf.tensor2d(batchOf(lengths, T, 2), [B, T], 'int32');
    const targets = tf.tensor2d(batchOf(lengths, T, 3), [B, T], 'int32');
    const weight = new Float32Array(B * T);
    const r = new SeededRandom(4);
    lengths.forEach((n, b) => {
      for (let t = 0; t + 1 < n; t++) weight[b * T + t] = r.normal(); // position t predicts token t + 1
    });
    const w = tf.tensor2d(weight, [B, T]);
    const grads = (lens?: number[]) =>
      tf.variableGrads(() => tf.sum(tf.mul(tokenLogProbs(model.forward(tokens, lens), targets), w)) as tf.Scalar);
    const padded = grads();
    const packed = grads(lengths);
    expect(bitDifferences(await packed.value.data(), await padded.value.data())).toBe(0);
    const names = Object.keys(padded.grads);
    expect(names.length).toBe(model.trainableVariables.length);
    for (const name of names) {
      const diff = bitDifferences(await packed.grads[name]!.data(), await padded.grads[name]!.data());
      expect(diff, name).toBe(0);
    }
    tf.dispose([
      tokens,
      targets,
      w,
      padded.value,
      packed.value,
      ...Object.values(padded.grads),
      ...Object.values(packed.grads),
    ]);
    expect(tf.memory().numTensors).toBe(before);
  });
});
