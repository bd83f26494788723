import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAdam, getAdamState, resolveAdamConfig, setAdamState } from '../../src/engine/optimizer';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function makeVars(prefix: string): tf.Variable[] {
  return tf.tidy(() => [
    tf.variable(tf.tensor1d([0.5, -1.5, 2.0]), true, `${prefix}A`),
    tf.variable(
      tf.tensor2d([
        [1, 2],
        [3, -4],
      ]),
      true,
      `${prefix}B`,
    ),
  ]);
}
const lossOf = (vars: tf.Variable[]) => () =>
  tf.tidy(() => tf.addN(vars.map((v, i) => tf.sum(tf.mul(tf.square(tf.sub(v, 0.3 * i)), tf.sin(v))))) as tf.Scalar);

describe('Adam with explicit epsilon and checkpointable state', () => {
  it('uses the epsilon it is given (not the backend default) and matches a float64 Adam step', async () => {
    const v = tf.variable(tf.tensor1d([1e-3, -2e-3]), true, 'optEps');
    const adam = createAdam({ learningRate: 0.1, epsilon: 1e-8 });
    adam.minimize(() => tf.sum(tf.mul(v, tf.tensor1d([1e-4, -3e-4]))) as tf.Scalar, false, [v]);
    // first step of Adam: Δ = −lr · g / (|g| + ε) ≈ −lr · sign(g) when ε ≪ |g| (with ε = 1e-4, Δ would halve)
    const got = Array.from(await v.data());
    const g = [1e-4, -3e-4];
    const expected = [1e-3, -2e-3].map((x, i) => x - (0.1 * (g[i] ?? 0)) / (Math.abs(g[i] ?? 0) + 1e-8));
    got.forEach((x, i) => expect(Math.abs(x - (expected[i] ?? NaN))).toBeLessThan(1e-6));
    adam.dispose();
    v.dispose();
  });

  it('a run restored from a saved state continues exactly like the uninterrupted run', async () => {
    const before = tf.memory().numTensors;
    // uninterrupted: 6 steps
    const a = makeVars('straight');
    const optA = createAdam({ learningRate: 0.05 });
    for (let i = 0; i < 6; i++) optA.minimize(lossOf(a), false, a);
    const straight = await Promise.all(a.map((v) => v.data()));
    // interrupted after 3 steps: save weights + optimizer state, restore both into fresh objects, 3 more steps
    const b = makeVars('first');
    const optB = createAdam({ learningRate: 0.05 });
    for (let i = 0; i < 3; i++) optB.minimize(lossOf(b), false, b);
    const state = await getAdamState(optB);
    expect(Object.keys(state)).toEqual(['iter', 'firstA/m', 'firstB/m', 'firstA/v', 'firstB/v']);
    expect(Array.from(state.iter?.data ?? [])).toEqual([3]);
    const weights = await Promise.all(b.map((v) => v.data()));
    optB.dispose();
    tf.dispose(b);
    const c = makeVars('resumed');
    c.forEach((v, i) => tf.tidy(() => v.assign(tf.tensor(weights[i] as Float32Array, v.shape))));
    const optC = createAdam({ learningRate: 0.05 });
    await setAdamState(optC, state);
    for (let i = 0; i < 3; i++) optC.minimize(lossOf(c), false, c);
    const resumed = await Promise.all(c.map((v) => v.data()));
    resumed.forEach((r, i) => expect(Array.from(r)).toEqual(Array.from(straight[i] ?? [])));
    optA.dispose();
    optC.dispose();
    tf.dispose([...a, ...c]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('rejects unknown keys and invalid values, naming the field', () => {
    expect(() => resolveAdamConfig({ eps: 1e-8 } as never)).toThrow(/unknown key "eps"/);
    expect(() => resolveAdamConfig({ epsilon: 0 })).toThrow(/epsilon/);
    expect(() => resolveAdamConfig({ beta2: 1 })).toThrow(/beta2/);
  });
});
