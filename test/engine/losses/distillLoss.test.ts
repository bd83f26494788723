// The distillation forms (docs/METHODS.md §3, distillation forms) against float64 references written from the formulas: value and
// gradient w.r.t. the student's logits, the gradient by central finite differences (h = 1e-5) of the float64
// reference; stated tolerance 1e-4 relative to the largest reference magnitude (assertions.ts), float32 tfjs on cpu.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { distillLoss, teacherSampledJsd, type DistillSpec } from '../../../src/engine/losses/distillLoss';
import { generalizedJsd } from '../../../src/engine/losses/generalizedJsd';
import { opdLoss } from '../../../src/engine/losses/opdLoss';
import { topKForwardKl } from '../../../src/engine/losses/topKForwardKl';
import { expectClose } from './assertions';
import { refActionMean, refGeneralizedJsdRows, refKlReward, refTopKForwardKlRows } from './distillReference';
import {
  caseTensors,
  isAction,
  makeCase,
  numericGrad,
  refMaskedMean,
  refRowKL,
  tfValueAndGrad,
  type Case,
} from './reference';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const spec = (form: DistillSpec['form'], o: Partial<DistillSpec> = {}): DistillSpec => ({
  form,
  estimator: 'k3',
  topK: 3,
  beta: 0.5,
  ...o,
});

function formFn(c: Case, s: DistillSpec) {
  const t = caseTensors(c);
  const inputs = (z: tf.Tensor) => ({
    logits: z,
    targets: t.targets,
    targetClasses: t.targetClasses,
    oldLogProbs: t.oldLogProbs,
    teacherLogProbs: t.teacherLogProbs,
    teacherLogits: t.teacherLogits,
  });
  return { fn: (z: tf.Tensor) => distillLoss(inputs(z), s).loss, inputs, t };
}

function checkAgainst(c: Case, s: DistillSpec, f: (x: Float64Array) => number): void {
  const { fn, t } = formFn(c, s);
  const { value, grad } = tfValueAndGrad(c, fn);
  expectClose([value], [f(c.logits)]);
  expectClose(grad, numericGrad(f, c.logits));
  // only action targets carry distillation loss
  grad.forEach((g, k) => {
    if (!isAction(c.classes[Math.floor(k / c.V)] ?? -1)) expect(Math.abs(g)).toBe(0);
  });
  t.dispose();
}

describe('distillation forms (METHODS §3, distillation forms)', () => {
  const c = makeCase(57, 4, 8, 7);

  for (const k of [1, 3, 6]) {
    it(`topk-forward-kl with k = ${k} of V = 7: value and gradient match the float64 reference (1e-4 relative)`, () => {
      checkAgainst(c, spec('topk-forward-kl', { topK: k }), (x) =>
        refActionMean(c, refTopKForwardKlRows(x, c.teacherLogits, c.V, k)),
      );
    });
  }

  it('topk-forward-kl with k ≥ V is the exact forward KL(π_T ‖ πθ) (no bucket)', () => {
    const t = caseTensors(c);
    const x = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const rows = topKForwardKl(x, t.teacherLogits, 50);
    expectClose(rows.dataSync(), refRowKL(c.teacherLogits, c.logits, c.V));
    tf.dispose([x, rows]);
    t.dispose();
  });

  it("topk-forward-kl keeps the bucket's digits when the teacher's top k hold almost all the mass", () => {
    // a peaked teacher: log(1 − Σ_topk p) would cancel to 0 in float32, the log-sum-exp over the rest does not
    const peaked = makeCase(58, 2, 5, 7, 9);
    const t = caseTensors(peaked);
    const x = tf.tensor3d(Float32Array.from(peaked.logits), [peaked.B, peaked.T, peaked.V]);
    const rows = topKForwardKl(x, t.teacherLogits, 3);
    expectClose(rows.dataSync(), refTopKForwardKlRows(peaked.logits, peaked.teacherLogits, peaked.V, 3));
    tf.dispose([x, rows]);
    t.dispose();
  });

  for (const beta of [0, 0.1, 0.5, 0.9, 1]) {
    it(`gkd-jsd with β = ${beta}: value and gradient match TRL's generalized JSD in float64 (1e-4 relative)`, () => {
      checkAgainst(c, spec('gkd-jsd', { beta }), (x) =>
        refActionMean(c, refGeneralizedJsdRows(x, c.teacherLogits, c.V, beta)),
      );
    });
  }

  it('gkd-jsd at β = 0 is the forward KL(π_T ‖ πθ) and at β = 1 the reverse KL(πθ ‖ π_T) (TRL convention)', () => {
    const t = caseTensors(c);
    const x = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const fwd = generalizedJsd(x, t.teacherLogits, 0);
    const rev = generalizedJsd(x, t.teacherLogits, 1);
    expectClose(fwd.dataSync(), refRowKL(c.teacherLogits, c.logits, c.V));
    expectClose(rev.dataSync(), refRowKL(c.logits, c.teacherLogits, c.V));
    tf.dispose([x, fwd, rev]);
    t.dispose();
  });

  it('kl-reward: value and gradient match −r·(log π_T − log π_old) in float64 (1e-4 relative)', () => {
    checkAgainst(c, spec('kl-reward'), (x) => refKlReward(c, x));
  });

  it('reverse-kl and self-distill are the original OPD term bit for bit (value and gradient)', () => {
    for (const estimator of ['k3', 'full', 'naive'] as const) {
      for (const form of ['reverse-kl', 'self-distill'] as const) {
        const { fn, inputs, t } = formFn(c, spec(form, { estimator }));
        const a = tfValueAndGrad(c, fn);
        const b = tfValueAndGrad(c, (z) => opdLoss(inputs(z), estimator).loss);
        expect(a.value).toBe(b.value);
        expect(Array.from(a.grad)).toEqual(Array.from(b.grad));
        t.dispose();
      }
    }
  });

  it("every form reports the same gap g = mean(log π_T − log π_old): the gate's K̄ means the same across forms", () => {
    const expected = refMaskedMean(
      Float64Array.from(c.teacher, (x, i) => x - (c.old[i] ?? 0)),
      (i) => isAction(c.classes[i] ?? -1),
    );
    for (const form of ['reverse-kl', 'topk-forward-kl', 'kl-reward', 'gkd-jsd', 'self-distill'] as const) {
      const { inputs, t } = formFn(c, spec(form));
      const x = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
      const out = distillLoss(inputs(x), spec(form));
      expectClose([out.stats.gap.dataSync()[0] ?? NaN], [expected]);
      tf.dispose([x, out.loss, ...Object.values(out.stats)]);
      t.dispose();
    }
  });

  it('a form that reads the teacher distribution refuses inputs without teacher logits, naming them', () => {
    const t = caseTensors(c);
    const x = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const base = {
      logits: x,
      targets: t.targets,
      targetClasses: t.targetClasses,
      oldLogProbs: t.oldLogProbs,
      teacherLogProbs: t.teacherLogProbs,
    };
    expect(() => distillLoss(base, spec('gkd-jsd'))).toThrow(/gkd-jsd.*teacherLogits/);
    expect(() => distillLoss(base, spec('topk-forward-kl'))).toThrow(/topk-forward-kl.*teacherLogits/);
    x.dispose();
    t.dispose();
  });

  it('leaks no tensors: repeated value-and-gradient calls keep tf.memory().numTensors flat', () => {
    for (const form of ['topk-forward-kl', 'kl-reward', 'gkd-jsd'] as const) {
      const { fn, t } = formFn(c, spec(form));
      tfValueAndGrad(c, fn);
      const before = tf.memory().numTensors;
      for (let i = 0; i < 5; i++) tfValueAndGrad(c, fn);
      expect(tf.memory().numTensors, form).toBe(before);
      t.dispose();
    }
  });
});

describe("gkd-jsd on teacher-sampled tokens (GKD's λ < 1: teacherSampledJsd)", () => {
  // a case standing for a teacher-sampled batch: its targets are the teacher's tokens, its teacher logits the
  // teacher's own at those positions; the loss reads no π_old and no sampled-token log-probs
  const c = makeCase(63, 3, 9, 7);
  const jsdOn = (beta: number) => {
    const t = caseTensors(c);
    const fn = (z: tf.Tensor) =>
      teacherSampledJsd({ logits: z, teacherLogits: t.teacherLogits, targetClasses: t.targetClasses }, beta).loss;
    return { fn, t };
  };

  for (const beta of [0, 0.3, 1]) {
    it(`with β = ${beta}: value and gradient match the float64 JSD_β over the action tokens (1e-4 relative)`, () => {
      const { fn, t } = jsdOn(beta);
      const f = (x: Float64Array) => refActionMean(c, refGeneralizedJsdRows(x, c.teacherLogits, c.V, beta));
      const { value, grad } = tfValueAndGrad(c, fn);
      expectClose([value], [f(c.logits)]);
      expectClose(grad, numericGrad(f, c.logits));
      t.dispose();
    });
  }

  it('reports its JSD as the divergence and the action tokens it averaged over, and leaks no tensors', () => {
    const t = caseTensors(c);
    const x = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
    const run = () => {
      const o = teacherSampledJsd({ logits: x, teacherLogits: t.teacherLogits, targetClasses: t.targetClasses }, 0.3);
      const out = {
        loss: o.stats.loss.dataSync()[0]!,
        div: o.stats.divergence.dataSync()[0]!,
        n: o.stats.actionTokens.dataSync()[0]!,
      };
      tf.dispose(Object.values(o.stats));
      return out;
    };
    run();
    const before = tf.memory().numTensors;
    const o = run();
    expect(tf.memory().numTensors).toBe(before);
    expect(o.div).toBe(o.loss);
    expect(Object.keys(o)).toHaveLength(3);
    expect(o.n).toBe(Array.from(c.classes).filter(isAction).length);
    expectClose([o.loss], [refActionMean(c, refGeneralizedJsdRows(c.logits, c.teacherLogits, c.V, 0.3))]);
    x.dispose();
    t.dispose();
  });
});
