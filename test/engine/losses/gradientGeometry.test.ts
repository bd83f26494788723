import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actObsGradientGeometry, gradientGeometry } from '../../../src/engine/losses/gradientGeometry';
import { makeCase, numericGrad, refActObs, rng, type Case } from './reference';
import { expectClose } from './assertions';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// A tiny "model": logits[b, t] = E[tokens[b, t]] · W + bias, with parameters E [V, H], W [H, V], bias [V].
const V = 6;
const H = 4;
const r = rng(77);
const init = {
  E: Float64Array.from({ length: V * H }, () => Math.fround(r() * 2 - 1)),
  W: Float64Array.from({ length: H * V }, () => Math.fround(r() * 2 - 1)),
  bias: Float64Array.from({ length: V }, () => Math.fround(r() - 0.5)),
};
const c: Case = makeCase(61, 3, 9, V);
const inputTokens = Int32Array.from({ length: c.B * c.T }, () => Math.floor(r() * V));

function refLogits(theta: Float64Array): Float64Array {
  const E = theta.subarray(0, V * H);
  const W = theta.subarray(V * H, 2 * V * H);
  const bias = theta.subarray(2 * V * H);
  const out = new Float64Array(c.B * c.T * V);
  inputTokens.forEach((tok, i) => {
    for (let v = 0; v < V; v++) {
      let s = bias[v] ?? 0;
      for (let h = 0; h < H; h++) s += (E[tok * H + h] ?? 0) * (W[h * V + v] ?? 0);
      out[i * V + v] = s;
    }
  });
  return out;
}

describe('gradient geometry of ActObs (METHODS §1)', () => {
  const E = tf.variable(tf.tensor2d(Float32Array.from(init.E), [V, H]), true, 'geomE');
  const W = tf.variable(tf.tensor2d(Float32Array.from(init.W), [H, V]), true, 'geomW');
  const bias = tf.variable(tf.tensor1d(Float32Array.from(init.bias)), true, 'geomBias');
  const vars = [E, W, bias];
  const tokens = tf.tensor2d(inputTokens, [c.B, c.T], 'int32');
  const targets = tf.tensor2d(c.targets, [c.B, c.T], 'int32');
  const classes = tf.tensor2d(c.classes, [c.B, c.T], 'int32');
  const forward = () =>
    tf.add(tf.reshape(tf.matMul(tf.reshape(tf.gather(E, tokens), [-1, H]), W), [c.B, c.T, V]), bias);
  afterAll(() => tf.dispose([E, W, bias, tokens, targets, classes]));

  it('cos(g_act, g_obs) and ‖g_obs‖/‖g_act‖ over all parameters match float64 finite differences (1e-4)', async () => {
    const theta0 = Float64Array.from([...init.E, ...init.W, ...init.bias]);
    const gAct = numericGrad((th) => refActObs(c, refLogits(th), 0, 1), theta0);
    const gObs = numericGrad((th) => refActObs(c, refLogits(th), 1, 0), theta0);
    const dot = gAct.reduce((s, a, i) => s + a * (gObs[i] ?? 0), 0);
    const na = Math.hypot(...gAct);
    const no = Math.hypot(...gObs);
    const before = tf.memory().numTensors;
    const geo = await actObsGradientGeometry(forward, targets, classes, vars);
    expect(tf.memory().numTensors).toBe(before);
    console.log(
      `gradient geometry: cos ${geo.cosine.toFixed(5)} (ref ${(dot / (na * no)).toFixed(5)}), ‖g_obs‖/‖g_act‖ ${geo.normRatio.toFixed(5)} (ref ${(no / na).toFixed(5)})`,
    );
    expectClose(
      [geo.cosine, geo.normRatio, geo.actionGradNorm, geo.observationGradNorm],
      [dot / (na * no), no / na, na, no],
    );
  });

  it('the cosine of a gradient with itself is 1 and with its negation is −1', async () => {
    const loss = () => tf.sum(tf.square(forward())) as tf.Scalar;
    const same = await gradientGeometry(loss, loss, vars);
    expectClose([same.cosine, same.normRatio], [1, 1], 1e-5);
    const opposite = await gradientGeometry(loss, () => tf.neg(loss()) as tf.Scalar, vars);
    expectClose([opposite.cosine], [-1], 1e-5);
  });
});
