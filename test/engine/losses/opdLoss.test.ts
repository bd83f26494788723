import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { grpoLoss } from '../../../src/engine/losses/grpoLoss';
import { readStats } from '../../../src/engine/losses/lossTypes';
import { tokenStats } from '../../../src/engine/losses/tokenLogProbs';
import { opdGap, opdGapHost, opdLoss, type OpdEstimator } from '../../../src/engine/losses/opdLoss';
import {
  caseTensors,
  isAction,
  makeCase,
  numericGrad,
  refMaskedMean,
  refOpd,
  tfValueAndGrad,
  type Case,
} from './reference';
import { expectClose } from './assertions';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function opdFn(c: Case, estimator: OpdEstimator) {
  const t = caseTensors(c);
  const fn = (z: tf.Tensor) =>
    opdLoss(
      {
        logits: z,
        targets: t.targets,
        targetClasses: t.targetClasses,
        oldLogProbs: t.oldLogProbs,
        teacherLogProbs: t.teacherLogProbs,
        teacherLogits: t.teacherLogits,
      },
      estimator,
    ).loss;
  return { fn, t };
}

describe('opdLoss (METHODS §3)', () => {
  const c = makeCase(41, 4, 8, 6);

  for (const estimator of ['k3', 'full', 'naive'] as const) {
    it(`${estimator}: value and gradient match the float64 reference (1e-4 relative)`, () => {
      const { fn, t } = opdFn(c, estimator);
      const { value, grad } = tfValueAndGrad(c, fn);
      const f = (x: Float64Array) => refOpd(c, x, estimator);
      expectClose([value], [f(c.logits)]);
      expectClose(grad, numericGrad(f, c.logits));
      // only action targets carry OPD loss
      grad.forEach((g, k) => {
        if (!isAction(c.classes[Math.floor(k / c.V)] ?? -1)) expect(Math.abs(g)).toBe(0);
      });
      t.dispose();
    });
  }

  it('the gap statistic g_k is the token mean of log πT − log π_old over action targets (tensor and host agree)', async () => {
    const t = caseTensors(c);
    const expected = refMaskedMean(
      Float64Array.from(c.teacher, (x, i) => x - (c.old[i] ?? 0)),
      (i) => isAction(c.classes[i] ?? -1),
    );
    const g = opdGap(t.teacherLogProbs, t.oldLogProbs, t.targetClasses);
    expectClose([(await g.data())[0] ?? NaN], [expected]);
    expectClose([opdGapHost(c.teacher, c.old, c.classes)], [expected], 1e-12);
    expect(opdGapHost([0.1], [0.2], [4])).toBeNaN();
    const z = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const out = opdLoss({
      logits: z,
      targets: t.targets,
      targetClasses: t.targetClasses,
      oldLogProbs: t.oldLogProbs,
      teacherLogProbs: t.teacherLogProbs,
    });
    const s = await readStats(out.stats);
    expectClose([s.gap], [expected]);
    expect(s.actionTokens).toBe(Array.from(c.classes).filter(isAction).length);
    tf.dispose([g, z, out.loss, ...Object.values(out.stats)]);
    t.dispose();
  });

  it('k3 stays finite when the teacher is far more confident than the student (−ℓ clamped at 20)', async () => {
    const t = caseTensors(c);
    const z = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const teacher = tf.fill([c.B, c.T], 0); // log πT = 0 on every target
    const student = tf.fill([c.B, c.T, c.V], 0);
    const veryWrong = tf.add(student, tf.mul(tf.oneHot(t.targets, c.V), -60)); // log πθ(target) ≈ −60 → −ℓ ≈ 60
    const { value, grad } = tf.valueAndGrad(
      (x: tf.Tensor) =>
        opdLoss({
          logits: x,
          targets: t.targets,
          targetClasses: t.targetClasses,
          oldLogProbs: tf.zeros([c.B, c.T]),
          teacherLogProbs: teacher,
        }).loss,
    )(veryWrong);
    const v = (await value.data())[0] ?? NaN;
    expect(Number.isFinite(v)).toBe(true);
    expect(v).toBeGreaterThan(0);
    expect((await grad.data()).every(Number.isFinite)).toBe(true);
    tf.dispose([z, teacher, student, veryWrong, value, grad]);
    t.dispose();
  });

  it("'full' without teacher logits and an unknown estimator are rejected with a clear message", () => {
    const t = caseTensors(c);
    const z = tf.zeros([c.B, c.T, c.V]);
    const base = {
      logits: z,
      targets: t.targets,
      targetClasses: t.targetClasses,
      oldLogProbs: t.oldLogProbs,
      teacherLogProbs: t.teacherLogProbs,
    };
    expect(() => opdLoss(base, 'full')).toThrow(/needs teacherLogits/);
    expect(() => opdLoss(base, 'k2' as OpdEstimator)).toThrow(/estimator must be one of k3, full, naive/);
    z.dispose();
    t.dispose();
  });

  it('GRPO and OPD given one tokenStats of other logits or targets are rejected, naming the loss', () => {
    const t = caseTensors(c);
    const z = tf.zeros([c.B, c.T, c.V]);
    const other = tf.zeros([c.B, c.T, c.V]);
    const otherTargets = tf.zerosLike(t.targets);
    const common = { logits: z, targets: t.targets, targetClasses: t.targetClasses, oldLogProbs: t.oldLogProbs };
    const opdInputs = { ...common, teacherLogProbs: t.teacherLogProbs };
    const grpoInputs = { ...common, advantages: new Float32Array(c.B) };
    tf.tidy(() => {
      for (const stats of [tokenStats(other, t.targets), tokenStats(z, otherTargets)]) {
        expect(() => opdLoss({ ...opdInputs, tokenStats: stats }, 'k3')).toThrow(
          /opdLoss: tokenStats was made from other/,
        );
        expect(() => grpoLoss({ ...grpoInputs, tokenStats: stats })).toThrow(
          /grpoLoss: tokenStats was made from other/,
        );
      }
    });
    // made from these very tensors, it is taken, and gives the value of the loss without it
    const alone = tf.tidy(() => opdLoss(opdInputs, 'k3').loss.dataSync()[0]);
    const shared = tf.tidy(
      () => opdLoss({ ...opdInputs, tokenStats: tokenStats(z, t.targets) }, 'k3').loss.dataSync()[0],
    );
    expect(shared).toBe(alone);
    tf.dispose([z, other, otherTargets]);
    t.dispose();
  });

  it('leaves tf.memory().numTensors flat', () => {
    const { fn, t } = opdFn(c, 'k3');
    tfValueAndGrad(c, fn);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 20; i++) tfValueAndGrad(c, fn);
    expect(tf.memory().numTensors).toBe(before);
    t.dispose();
  });
});
