import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { actObsLoss } from '../../../src/engine/losses/actObsLoss';
import { actionMask, classMask, readStats } from '../../../src/engine/losses/lossTypes';
import { tokenLogProbs } from '../../../src/engine/losses/tokenLogProbs';
import {
  caseTensors,
  isAction,
  makeCase,
  numericGrad,
  OBSERVATION,
  refActObs,
  refMaskedMean,
  refTokenLogProbs,
  tfValueAndGrad,
  type Case,
} from './reference';
import { expectClose } from './assertions';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function lossOf(c: Case, lambda: number) {
  const t = caseTensors(c);
  const fn = (z: tf.Tensor) =>
    actObsLoss({ logits: z, targets: t.targets, targetClasses: t.targetClasses }, lambda).loss;
  return { fn, dispose: t.dispose };
}

describe('actObsLoss (METHODS §1)', () => {
  const c = makeCase(21, 4, 8, 6);

  for (const lambda of [0, 0.3, 1, 2.5]) {
    it(`λ = ${lambda}: value and gradient match the float64 reference (1e-4 relative)`, () => {
      const { fn, dispose } = lossOf(c, lambda);
      const { value, grad } = tfValueAndGrad(c, fn);
      const f = (x: Float64Array) => refActObs(c, x, lambda);
      expectClose([value], [f(c.logits)]);
      expectClose(grad, numericGrad(f, c.logits));
      dispose();
    });
  }

  it('logs action CE and observation CE as token means over each stream, with token counts', async () => {
    const t = caseTensors(c);
    const z = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const out = actObsLoss({ logits: z, targets: t.targets, targetClasses: t.targetClasses }, 0.5);
    const s = await readStats(out.stats);
    const nlp = Float64Array.from(refTokenLogProbs(c.logits, c.targets, c.V), (x) => -x);
    expectClose([s.actionCE], [refMaskedMean(nlp, (i) => isAction(c.classes[i] ?? -1))]);
    expectClose([s.observationCE], [refMaskedMean(nlp, (i) => c.classes[i] === OBSERVATION)]);
    expect(s.actionTokens).toBe(Array.from(c.classes).filter(isAction).length);
    expect(s.observationTokens).toBe(Array.from(c.classes).filter((k) => k === OBSERVATION).length);
    expectClose([s.loss], [refActObs(c, c.logits, 0.5)]);
    tf.dispose([z, out.loss, ...Object.values(out.stats)]);
    t.dispose();
  });

  it('λ = 0 is exactly action-only CE: observation logits do not change the value and get exactly zero gradient', () => {
    const { fn, dispose } = lossOf(c, 0);
    const a = tfValueAndGrad(c, fn);
    // scramble every non-action position's logits
    const scrambled = Float64Array.from(c.logits, (x, k) =>
      isAction(c.classes[Math.floor(k / c.V)] ?? -1) ? x : Math.fround(-3 * x + 1),
    );
    const b = tfValueAndGrad(c, fn, scrambled);
    expect(b.value).toBe(a.value);
    a.grad.forEach((g, k) => {
      if (!isAction(c.classes[Math.floor(k / c.V)] ?? -1)) expect(Math.abs(g)).toBe(0);
    });
    expectClose([a.value], [refActObs(c, c.logits, 0, 1)]);
    dispose();
  });

  it('mean over sequences: duplicating the batch leaves the loss and the per-row gradient scale unchanged', () => {
    const twice = <A extends Float64Array | Int32Array>(a: A, ctor: { from(x: number[]): A }) =>
      ctor.from([...a, ...a]);
    const d: Case = {
      ...c,
      B: 2 * c.B,
      logits: twice(c.logits, Float64Array),
      teacherLogits: twice(c.teacherLogits, Float64Array),
      targets: twice(c.targets, Int32Array),
      classes: twice(c.classes, Int32Array),
      old: twice(c.old, Float64Array),
      teacher: twice(c.teacher, Float64Array),
      ref: twice(c.ref, Float64Array),
      advantages: twice(c.advantages, Float64Array),
    };
    const one = lossOf(c, 1);
    const two = lossOf(d, 1);
    const a = tfValueAndGrad(c, one.fn);
    const b = tfValueAndGrad(d, two.fn);
    expectClose([b.value], [a.value], 1e-6);
    // each copy gets half the gradient of the single batch (the loss is a mean over twice as many sequences)
    expectClose(
      Array.from(b.grad.subarray(0, a.grad.length), (x) => 2 * x),
      a.grad,
      1e-5,
    );
    one.dispose();
    two.dispose();
  });

  it('the per-sequence denominator keeps the gradient scale independent of λ and of observation length', () => {
    // With uniform logits every target has loss log V and ‖∂(−log p)/∂z‖₁ = 2(1 − 1/V) at its position, so the
    // total gradient mass Σ‖∂L/∂z_i‖₁ equals 2(1 − 1/V) · (mean over sequences of the weights' sum) = 2(1 − 1/V)
    // exactly when each sequence's weights sum to 1 — for every λ > 0 and observation length.
    const V = 5;
    const T = 12;
    const rows = [
      [2, 3, 4, -1, -1, -1, -1, -1, -1, -1, -1, -1], // 2 actions, 1 observation
      [2, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, -1], // 4 actions, 7 observations
      [0, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4, -1], // 1 action, 9 observations
    ];
    const B = rows.length;
    const base: Case = {
      ...makeCase(1, B, T, V),
      logits: new Float64Array(B * T * V),
      classes: Int32Array.from(rows.flat()),
    };
    const mass = (g: Float32Array) => g.reduce((s, x) => s + Math.abs(x), 0);
    const expected = 2 * (1 - 1 / V);
    for (const lambda of [0, 0.25, 1, 4]) {
      const { fn, dispose } = lossOf(base, lambda);
      const { value, grad } = tfValueAndGrad(base, fn);
      expectClose([value], [Math.log(V)], 1e-6);
      expectClose([mass(grad)], [expected], 1e-5);
      dispose();
    }
    // without the denominator (a per-sequence token SUM) the mass grows with λ and observation length: the
    // property above is a real constraint, not a tautology of the measurement
    const t = caseTensors(base);
    const sumLoss = (z: tf.Tensor) =>
      tf.tidy(() => {
        const w = tf.add(actionMask(t.targetClasses), classMask(t.targetClasses, OBSERVATION));
        return tf.div(tf.neg(tf.sum(tf.mul(w, tokenLogProbs(z, t.targets)))), B) as tf.Scalar;
      });
    expect(mass(tfValueAndGrad(base, sumLoss).grad)).toBeGreaterThan(3 * expected);
    t.dispose();
  });

  it('rejects a negative or non-finite λ', () => {
    const t = caseTensors(c);
    const z = tf.zeros([c.B, c.T, c.V]);
    expect(() => actObsLoss({ logits: z, targets: t.targets, targetClasses: t.targetClasses }, -1)).toThrow(
      /λ must be/,
    );
    expect(() => actObsLoss({ logits: z, targets: t.targets, targetClasses: t.targetClasses }, NaN)).toThrow(
      /λ must be/,
    );
    z.dispose();
    t.dispose();
  });

  it('leaves tf.memory().numTensors flat', () => {
    const { fn, dispose } = lossOf(c, 1);
    tfValueAndGrad(c, fn);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 20; i++) tfValueAndGrad(c, fn);
    expect(tf.memory().numTensors).toBe(before);
    dispose();
  });
});
