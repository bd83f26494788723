import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_CLASS_NAMES } from '../../../src/core/env/types';
import { entropyByClass, klFromInit, observationCE, readEntropyByClass } from '../../../src/engine/losses/evalMetrics';
import { caseTensors, makeCase, OBSERVATION, refEntropy, refMaskedMean, refRowKL, refTokenLogProbs } from './reference';
import { expectClose } from './assertions';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('evaluation metrics (METHODS §1, §6)', () => {
  const c = makeCase(51, 4, 8, 6);

  it('entropy per token class is the mean next-token entropy over the positions whose target has that class', async () => {
    const t = caseTensors(c);
    const z = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const res = entropyByClass(z, t.targetClasses);
    const byClass = await readEntropyByClass(res);
    const h = refEntropy(c.logits, c.V);
    TOKEN_CLASS_NAMES.forEach((name, k) => {
      const count = Array.from(c.classes).filter((x) => x === k).length;
      expect(byClass[name].count).toBe(count);
      expectClose([byClass[name].entropy], [count === 0 ? 0 : refMaskedMean(h, (i) => c.classes[i] === k)]);
    });
    expect(byClass.actionHead.count).toBeGreaterThan(0);
    tf.dispose([z, res.entropy, res.counts]);
    t.dispose();
  });

  it('KL(π_init ‖ π) on a probe set matches the float64 reference, is 0 for identical policies, and honours a mask', async () => {
    const t = caseTensors(c);
    const init = tf.tensor3d(Float32Array.from(c.teacherLogits), [c.B, c.T, c.V]);
    const now = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const kl = refRowKL(c.teacherLogits, c.logits, c.V);
    const all = klFromInit(init, now);
    expectClose([(await all.data())[0] ?? NaN], [kl.reduce((s, x) => s + x, 0) / kl.length]);
    const mask = tf.tensor2d(
      Float32Array.from(c.classes, (k) => (k === OBSERVATION ? 1 : 0)),
      [c.B, c.T],
    );
    const masked = klFromInit(init, now, mask);
    expectClose([(await masked.data())[0] ?? NaN], [refMaskedMean(kl, (i) => c.classes[i] === OBSERVATION)]);
    const same = klFromInit(now, now);
    expect(Math.abs((await same.data())[0] ?? NaN)).toBeLessThan(1e-6);
    tf.dispose([init, now, all, mask, masked, same]);
    t.dispose();
  });

  it('observation CE is the mean −log π over observation targets', async () => {
    const t = caseTensors(c);
    const z = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const ce = observationCE(z, t.targets, t.targetClasses);
    const lp = refTokenLogProbs(c.logits, c.targets, c.V);
    expectClose(
      [(await ce.data())[0] ?? NaN],
      [
        refMaskedMean(
          Float64Array.from(lp, (x) => -x),
          (i) => c.classes[i] === OBSERVATION,
        ),
      ],
    );
    tf.dispose([z, ce]);
    t.dispose();
  });

  it('leaves tf.memory().numTensors flat', async () => {
    const t = caseTensors(c);
    const z = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 5; i++) {
      const r = entropyByClass(z, t.targetClasses);
      await readEntropyByClass(r);
      tf.dispose([r.entropy, r.counts, klFromInit(z, z), observationCE(z, t.targets, t.targetClasses)]);
    }
    expect(tf.memory().numTensors).toBe(before);
    z.dispose();
    t.dispose();
  });
});
