import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { grpoAdvantages } from '../../../src/core/grpoAdvantages';
import { grpoLoss, resolveGrpoLossConfig, type GrpoLossConfig } from '../../../src/engine/losses/grpoLoss';
import { NO_TARGET, readStats } from '../../../src/engine/losses/lossTypes';
import { TokenClass } from '../../../src/core/env/types';
import {
  caseTensors,
  isAction,
  makeCase,
  numericGrad,
  refEntropy,
  refGrpo,
  refMaskedMean,
  refTokenLogProbs,
  tfValueAndGrad,
  type Aggregation,
  type Case,
} from './reference';
import { expectClose } from './assertions';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function grpoFn(c: Case, config: Partial<GrpoLossConfig>, advantages = Float32Array.from(c.advantages)) {
  const t = caseTensors(c);
  const fn = (z: tf.Tensor) =>
    grpoLoss(
      {
        logits: z,
        targets: t.targets,
        targetClasses: t.targetClasses,
        oldLogProbs: t.oldLogProbs,
        advantages,
        refLogProbs: t.refLogProbs,
      },
      config,
    ).loss;
  return { fn, t };
}

describe('grpoLoss (METHODS §2)', () => {
  const c = makeCase(31, 4, 9, 6);
  const aggregations: Aggregation[] = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum'];

  for (const aggregation of aggregations) {
    for (const klCoef of [0, 0.1]) {
      it(`${aggregation}, β = ${klCoef}: value and gradient match the float64 reference (1e-4 relative)`, () => {
        const config = { clipLow: 0.2, clipHigh: 0.28, aggregation, klCoef };
        const { fn, t } = grpoFn(c, config);
        const { value, grad } = tfValueAndGrad(c, fn);
        const f = (x: Float64Array) => refGrpo(c, x, config);
        expectClose([value], [f(c.logits)]);
        expectClose(grad, numericGrad(f, c.logits));
        t.dispose();
      });
    }
  }

  it('the inputs exercise both clips (some ratios fall outside [1 − ε_low, 1 + ε_high])', async () => {
    const t = caseTensors(c);
    const z = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const cfg = { clipLow: 0.2, clipHigh: 0.28 };
    const out = grpoLoss(
      {
        logits: z,
        targets: t.targets,
        targetClasses: t.targetClasses,
        oldLogProbs: t.oldLogProbs,
        advantages: Float32Array.from(c.advantages),
        refLogProbs: t.refLogProbs,
      },
      cfg,
    );
    const s = await readStats(out.stats);
    const lp = refTokenLogProbs(c.logits, c.targets, c.V);
    const act = (i: number) => isAction(c.classes[i] ?? -1);
    const adv = (i: number) => c.advantages[Math.floor(i / c.T)] ?? 0;
    const r = Float64Array.from(lp, (x, i) => Math.exp(x - (c.old[i] ?? 0)));
    const low = refMaskedMean(
      Float64Array.from(r, (x, i) => (x < 1 - cfg.clipLow && adv(i) < 0 ? 1 : 0)),
      act,
    );
    const high = refMaskedMean(
      Float64Array.from(r, (x, i) => (x > 1 + cfg.clipHigh && adv(i) > 0 ? 1 : 0)),
      act,
    );
    expectClose([s.clipFracLow, s.clipFracHigh], [low, high], 1e-6);
    expect(low + high).toBeGreaterThan(0);
    expectClose([s.ratioMean], [refMaskedMean(r, act)]);
    expectClose([s.entropy], [refMaskedMean(refEntropy(c.logits, c.V), act)]);
    const k3 = Float64Array.from(lp, (x, i) => {
      const d = (c.ref[i] ?? 0) - x;
      return Math.exp(d) - d - 1;
    });
    expectClose([s.kl], [refMaskedMean(k3, act)]);
    expect(s.actionTokens).toBe(Array.from(c.classes).filter(isAction).length);
    tf.dispose([z, out.loss, ...Object.values(out.stats)]);
    t.dispose();
  });

  it('gives exactly zero gradient when every reward of a group is equal (zero advantages)', () => {
    // two groups of G = 2: rewards equal within each group → group-std advantages are all exactly 0
    const { advantages, fracRewardZeroStd } = grpoAdvantages(
      [
        [1, 1],
        [0.3, 0.3],
      ],
      { scaling: 'group-std' },
    );
    expect(fracRewardZeroStd).toBe(1);
    const { fn, t } = grpoFn(c, { aggregation: 'token-mean' }, Float32Array.from(advantages.flat()));
    const { value, grad } = tfValueAndGrad(c, fn);
    expect(Math.abs(value)).toBe(0);
    expect(grad.every((g) => g === 0)).toBe(true);
    t.dispose();
    // …while unequal rewards do move the policy (the check above can fail)
    const moving = grpoAdvantages(
      [
        [1, 0],
        [0.3, 0.3],
      ],
      { scaling: 'group-std' },
    );
    const m = grpoFn(c, { aggregation: 'token-mean' }, Float32Array.from(moving.advantages.flat()));
    expect(tfValueAndGrad(c, m.fn).grad.some((g) => g !== 0)).toBe(true);
    m.t.dispose();
  });

  it('observation, prompt and special targets never carry loss (their logits get exactly zero gradient)', () => {
    const { fn, t } = grpoFn(c, { aggregation: 'seq-mean-token-sum', klCoef: 0.1 });
    const { grad } = tfValueAndGrad(c, fn);
    grad.forEach((g, k) => {
      if (!isAction(c.classes[Math.floor(k / c.V)] ?? -1)) expect(Math.abs(g)).toBe(0);
    });
    t.dispose();
  });

  it('rejects unknown config keys and out-of-range values, naming the field', () => {
    expect(() => resolveGrpoLossConfig({ clipLo: 0.2 } as unknown as Partial<GrpoLossConfig>)).toThrow(
      /unknown key "clipLo"/,
    );
    expect(() => resolveGrpoLossConfig({ clipLow: 1.5 })).toThrow(/clipLow/);
    expect(() => resolveGrpoLossConfig({ aggregation: 'sum' as Aggregation })).toThrow(/aggregation/);
    expect(() => resolveGrpoLossConfig({ klCoef: -1 })).toThrow(/klCoef/);
  });

  it('leaves tf.memory().numTensors flat', () => {
    const { fn, t } = grpoFn(c, { klCoef: 0.1 });
    tfValueAndGrad(c, fn);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 20; i++) tfValueAndGrad(c, fn);
    expect(tf.memory().numTensors).toBe(before);
    t.dispose();
  });
});

describe("dual-clip PPO (verl's clip_ratio_c, docs/METHODS.md §2)", () => {
  // one action token per sequence, V = 2 and equal logits, so log πθ(y) = log ½ and old = log ½ − log r sets r
  const cases: { r: number; A: number; what: string }[] = [
    { r: 1.1, A: 1, what: 'inside the clip, Â > 0' },
    { r: 1.5, A: 1, what: 'above 1 + ε_high, Â > 0 (clipped)' },
    { r: 0.5, A: 1, what: 'below 1 − ε_low, Â > 0 (unclipped: min picks r·Â)' },
    { r: 0.5, A: -1, what: 'below 1 − ε_low, Â < 0 (clipped)' },
    { r: 1.0, A: -2, what: 'inside the clip, Â < 0' },
    { r: 2.0, A: -1, what: 'above the clip, below c, Â < 0 (r·Â, no bound)' },
    { r: 5.0, A: -1, what: 'beyond c, Â < 0 (dual bound −c·Â)' },
    { r: 10.0, A: -0.5, what: 'beyond c, Â < 0 (dual bound −c·Â)' },
  ];
  const [eLow, eHigh, cDual] = [0.2, 0.28, 3];
  /** float64 reference, verl's compute_policy_loss per token: loss and d loss / d r */
  const ref = (r: number, A: number, dual: boolean): { loss: number; dr: number } => {
    const l1 = -A * r;
    const l2 = -A * Math.min(Math.max(r, 1 - eLow), 1 + eHigh);
    const clip1 = Math.max(l1, l2);
    const dr1 = l1 >= l2 ? -A : 0;
    if (!dual || A >= 0) return { loss: clip1, dr: dr1 };
    const l3 = -A * cDual;
    return l3 < clip1 ? { loss: l3, dr: 0 } : { loss: clip1, dr: dr1 };
  };

  for (const dual of [true, false]) {
    it(`${dual ? 'with c = 3' : 'without c'}: value, gradient and statistics equal the float64 reference on hand-made ratios (1e-5 relative)`, async () => {
      const B = cases.length;
      const lpHalf = Math.log(0.5);
      const logits = tf.zeros([B, 2, 2]);
      const targets = tf.zeros([B, 2], 'int32');
      const targetClasses = tf.tensor2d(
        cases.flatMap(() => [TokenClass.actionHead, NO_TARGET]),
        [B, 2],
        'int32',
      );
      const old = tf.tensor2d(
        cases.flatMap((k) => [lpHalf - Math.log(k.r), 0]),
        [B, 2],
      );
      const advantages = Float32Array.from(cases.map((k) => k.A));
      const config = { clipLow: eLow, clipHigh: eHigh, clipRatioC: dual ? cDual : null, klCoef: 0 };
      const run = (z: tf.Tensor) =>
        grpoLoss({ logits: z, targets, targetClasses, oldLogProbs: old, advantages }, config);
      const grad = tf.grad((z: tf.Tensor) => run(z).loss)(logits);
      const out = run(logits);
      const stats = await readStats(out.stats);
      const g = await grad.data();
      const refs = cases.map((k) => ref(k.r, k.A, dual));
      const want = refs.reduce((s, x) => s + x.loss, 0) / B;
      expect(Math.abs(stats.loss - want)).toBeLessThan(1e-5 * Math.abs(want));
      cases.forEach((k, b) => {
        // d loss / d z[b, 0, 0] = (1/B) · dL/dr · r · (1 − p(y)) with p(y) = ½; z[b, 0, 1] gets the negative
        const dz = ((refs[b]!.dr * k.r) / B) * 0.5;
        expect(g[b * 4]!, `${k.what}: gradient`).toBeCloseTo(dz, 5);
        expect(g[b * 4 + 1]!, `${k.what}: gradient`).toBeCloseTo(-dz, 5);
      });
      expect(stats.clipFracDual).toBeCloseTo(dual ? 2 / B : 0, 6);
      expect(stats.clipFracLow).toBeCloseTo(1 / B, 6);
      expect(stats.clipFracHigh).toBeCloseTo(1 / B, 6);
      const devSq = cases.reduce((s, k) => s + (k.r - 1) ** 2, 0) / B;
      expect(Math.abs(stats.ratioDevSq - devSq)).toBeLessThan(1e-5 * devSq);
      tf.dispose([logits, targets, targetClasses, old, grad, out.loss, ...Object.values(out.stats)]);
    });
  }

  it('clipRatioC must exceed 1 (the error names the field)', () => {
    expect(() => resolveGrpoLossConfig({ clipRatioC: 1 })).toThrow(/clipRatioC/);
  });
});
