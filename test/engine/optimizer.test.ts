import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAdam, getAdamState, resolveAdamConfig, setAdamState, type AdamState } from '../../src/engine/optimizer';

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

  /** `total` uninterrupted steps vs `cut` steps, save/restore into fresh objects, `total − cut` more steps. */
  async function straightVsResumed(
    cut: number,
    total: number,
    edit: (s: AdamState) => AdamState = (s) => s,
  ): Promise<{ straight: Float32Array[]; resumed: Float32Array[]; state: AdamState }> {
    const a = makeVars(`straight${cut}`);
    const optA = createAdam({ learningRate: 0.05 });
    for (let i = 0; i < total; i++) optA.minimize(lossOf(a), false, a);
    const straight = (await Promise.all(a.map((v) => v.data()))) as Float32Array[];
    const b = makeVars(`first${cut}`);
    const optB = createAdam({ learningRate: 0.05 });
    for (let i = 0; i < cut; i++) optB.minimize(lossOf(b), false, b);
    const state = await getAdamState(optB);
    const weights = await Promise.all(b.map((v) => v.data()));
    optB.dispose();
    tf.dispose(b);
    const c = makeVars(`resumed${cut}`);
    c.forEach((v, i) => tf.tidy(() => v.assign(tf.tensor(weights[i] as Float32Array, v.shape))));
    const optC = createAdam({ learningRate: 0.05 });
    try {
      await setAdamState(optC, edit(state));
      for (let i = cut; i < total; i++) optC.minimize(lossOf(c), false, c);
      const resumed = (await Promise.all(c.map((v) => v.data()))) as Float32Array[];
      return { straight, resumed, state };
    } finally {
      optA.dispose();
      optC.dispose();
      tf.dispose([...a, ...c]);
    }
  }

  it('saves the step count, the bias-correction powers as float32 running products, then the moments', async () => {
    const before = tf.memory().numTensors;
    const { state } = await straightVsResumed(5, 5);
    expect(Object.keys(state)).toEqual([
      'iter',
      'beta1_power',
      'beta2_power',
      'first5A/m',
      'first5B/m',
      'first5A/v',
      'first5B/v',
    ]);
    expect(Array.from(state.iter?.data ?? [])).toEqual([5]);
    // tfjs starts the accumulators at β and multiplies by β in float32 once per step: β^(t+1) after t steps.
    // After 5 steps with β2 = 0.999 this running product differs in the last bit from pow(β2, 6), which is what
    // tfjs's own setWeights would restore — the case that broke bit-exact resume (β1 = 0.9 first differs at t = 8).
    let p1 = Math.fround(0.9);
    let p2 = Math.fround(0.999);
    for (let t = 0; t < 5; t++) {
      p1 = Math.fround(p1 * Math.fround(0.9));
      p2 = Math.fround(p2 * Math.fround(0.999));
    }
    expect(p2).not.toBe(Math.fround(Math.pow(Math.fround(0.999), 6)));
    expect(state.beta1_power?.data[0]).toBe(p1);
    expect(state.beta2_power?.data[0]).toBe(p2);
    expect(tf.memory().numTensors).toBe(before);
  });

  it.each([3, 5, 8])(
    'a run restored after %i steps continues bit-identically to the uninterrupted run',
    async (cut) => {
      const before = tf.memory().numTensors;
      const { straight, resumed } = await straightVsResumed(cut, cut + 4);
      resumed.forEach((r, i) => expect(Array.from(r)).toEqual(Array.from(straight[i] ?? [])));
      expect(tf.memory().numTensors).toBe(before);
    },
  );

  it('reads the legacy layout (powers appended under adam-bias-correction/) and refuses a state without powers', async () => {
    const legacy = (s: AdamState): AdamState => {
      const { beta1_power, beta2_power, ...rest } = s;
      return {
        ...rest,
        'adam-bias-correction/accBeta1': beta1_power!,
        'adam-bias-correction/accBeta2': beta2_power!,
      };
    };
    const { straight, resumed } = await straightVsResumed(5, 8, legacy);
    resumed.forEach((r, i) => expect(Array.from(r)).toEqual(Array.from(straight[i] ?? [])));
    const without = (s: AdamState): AdamState => {
      const { beta1_power: _1, beta2_power: _2, ...rest } = s;
      return rest;
    };
    await expect(straightVsResumed(5, 8, without)).rejects.toThrow(/no valid "beta1_power".*cannot resume bit-exactly/);
  });

  it('rejects unknown keys and invalid values, naming the field', () => {
    expect(() => resolveAdamConfig({ eps: 1e-8 } as never)).toThrow(/unknown key "eps"/);
    expect(() => resolveAdamConfig({ epsilon: 0 })).toThrow(/epsilon/);
    expect(() => resolveAdamConfig({ beta2: 1 })).toThrow(/beta2/);
  });
});
