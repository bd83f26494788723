// The fused webgpu kernels (src/engine/kernels) against the composed tfjs ops they replace: every value, statistic
// and gradient w.r.t. the logits (and the teacher logits for the full KL) of the token statistics and of the three
// losses, on random logits that include extreme rows (±80, one-hot-ish, all-equal, offset by +80), with the old /
// reference log-probs near the policy (clip boundaries matter) and far from it (the caps bind).
// Fused runs on webgpu in Node (Dawn on SwiftShader). Tolerances, norm-wise relative (max |a − b| / max |b| per
// output): ≤ 1e-5 against the composed ops on the same webgpu backend (fused kernels turned off), and ≤ 1e-4 against
// the composed ops on cpu (the webgpu parity tolerance of test/engine/losses: SwiftShader's exp/log differ from JS's
// by a few ulp, which the k3 terms amplify up to exp(20)). Skipped with the reason printed when no webgpu adapter exists.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../../../src/engine/backend';
import { countKernels } from '../../../src/engine/kernelCounter';
import { setFusedKernelsEnabled, useFusedKernels } from '../../../src/engine/kernels/registerWebgpuKernels';
import { weightedSftLoss } from '../../../src/engine/losses/actObsLoss';
import { grpoLoss, type TokenAggregation } from '../../../src/engine/losses/grpoLoss';
import type { LossOutput } from '../../../src/engine/losses/lossTypes';
import { fullReverseKL, opdLoss, type OpdEstimator } from '../../../src/engine/losses/opdLoss';
import {
  tokenEntropy,
  tokenLogProbs,
  tokenLogProbsAndEntropy,
  tokenLogProbsComposed,
} from '../../../src/engine/losses/tokenLogProbs';
import { parityErrors, type ParityOutputs } from '../losses/parityFixture';
import { makeCase, normal, numericGrad, refOpd, refTokenLogProbs, rng, type Case } from '../losses/reference';
import { BackendOrSkip } from '../helpers/webgpuOrSkip';

const TOLERANCE = 1e-5;
const CPU_TOLERANCE = 1e-4;
/** against float64 references: the tolerance of test/engine/losses (float32 inputs and arithmetic) */
const F64_TOLERANCE = 1e-4;

/** B = 4 sequences of T = 9 targets over V = 11 tokens; rows 0–5 of the flattened batch are extreme. */
function extremeCase(seed: number, oldNearPolicy: boolean): Case {
  const c = makeCase(seed, 4, 9, 11, 3);
  const r = rng(seed + 100);
  const { V } = c;
  const row = (i: number, f: (v: number) => number): void => {
    for (let v = 0; v < V; v++) c.logits[i * V + v] = Math.fround(f(v));
  };
  row(0, () => (r() < 0.5 ? -80 : 80)); // ±80
  row(1, (v) => (v === 3 ? 80 : -80)); // one-hot-ish, target elsewhere (log-prob −160)
  row(2, (v) => (v === (c.targets[2] ?? 0) ? 80 : -80)); // one-hot-ish on the target (log-prob 0)
  row(3, () => 5); // all equal
  row(4, () => 80 + normal(r)); // large common offset
  row(5, (v) => (v % 2 === 0 ? 80 : -80) + normal(r)); // two-level ±80
  row(10, (v) => (v === 0 ? 80 : -80));
  row(11, () => -80);
  c.teacherLogits[V + 3] = 80; // a teacher row with one huge logit
  c.teacherLogits[3 * V + 1] = -80;
  if (oldNearPolicy) {
    // old/ref near the current policy (ratios near 1: the clip boundaries matter); else they stay far (caps bind)
    const lp = refTokenLogProbs(c.logits, c.targets, V);
    lp.forEach((x, i) => {
      c.old[i] = Math.fround(x + 0.15 * normal(r));
      c.ref[i] = Math.fround(x + 0.3 * normal(r));
    });
  }
  return c;
}

interface Output {
  value: number[];
  grads: number[][];
  stats: Record<string, number>;
}

type Fn = (logits: tf.Tensor, teacherLogits: tf.Tensor, t: CaseTensors) => LossOutput<string> | tf.Tensor;
interface CaseTensors {
  targets: tf.Tensor;
  targetClasses: tf.Tensor;
  oldLogProbs: tf.Tensor;
  teacherLogProbs: tf.Tensor;
  refLogProbs: tf.Tensor;
  advantages: Float32Array;
  probe: tf.Tensor;
}

/** value, statistics and gradients (w.r.t. logits, and teacher logits when `withTeacher`) on the active backend */
async function evaluate(c: Case, fn: Fn, withTeacher: boolean): Promise<Output> {
  const { B, T, V } = c;
  const r = rng(7);
  const t: CaseTensors = {
    targets: tf.tensor2d(c.targets, [B, T], 'int32'),
    targetClasses: tf.tensor2d(c.classes, [B, T], 'int32'),
    oldLogProbs: tf.tensor2d(Float32Array.from(c.old), [B, T]),
    teacherLogProbs: tf.tensor2d(Float32Array.from(c.teacher), [B, T]),
    refLogProbs: tf.tensor2d(Float32Array.from(c.ref), [B, T]),
    advantages: Float32Array.from(c.advantages),
    probe: tf.tensor2d(
      Float32Array.from({ length: B * T }, () => normal(r)),
      [B, T],
    ),
  };
  const logits = tf.tensor3d(Float32Array.from(c.logits), [B, T, V]);
  const teacher = tf.tensor3d(Float32Array.from(c.teacherLogits), [B, T, V]);
  let stats: Record<string, tf.Scalar> = {};
  const scalarOf = (out: LossOutput<string> | tf.Tensor): tf.Scalar => {
    if (out instanceof tf.Tensor) return tf.sum(tf.mul(out, t.probe)); // per-row outputs: Σ probe · output
    stats = out.stats;
    for (const s of Object.values(stats)) tf.keep(s);
    return out.loss;
  };
  const f = withTeacher
    ? (a: tf.Tensor, b: tf.Tensor) => scalarOf(fn(a, b, t))
    : (a: tf.Tensor) => scalarOf(fn(a, teacher, t));
  const { value, grads } = tf.valueAndGrads(f as (...x: tf.Tensor[]) => tf.Scalar)(
    withTeacher ? [logits, teacher] : [logits],
  );
  const out: Output = { value: Array.from(await value.data()), grads: [], stats: {} };
  for (const g of grads) out.grads.push(Array.from(await g.data()));
  for (const [k, s] of Object.entries(stats)) out.stats[k] = (await s.data())[0] as number;
  tf.dispose([value, ...grads, ...Object.values(stats), logits, teacher, t.targets, t.targetClasses]);
  tf.dispose([t.oldLogProbs, t.teacherLogProbs, t.refLogProbs, t.probe]);
  return out;
}

function flatten(o: Output): ParityOutputs {
  const p: ParityOutputs = { value: o.value };
  o.grads.forEach((g, i) => (p[`grad${i}`] = g));
  // NaN statistics (entropy when not computed) compare as equal NaN below, not through parityErrors
  for (const [k, v] of Object.entries(o.stats)) if (!Number.isNaN(v)) p[`stat:${k}`] = [v];
  return p;
}

interface FunctionCase {
  name: string;
  fn: Fn;
  teacher?: boolean;
  /** float64 reference of the loss value (checked with its central-difference gradient) */
  f64?: (c: Case, logits: Float64Array) => number;
  /**
   * the composed ops lose precision here (OPD k3's ρ'·k3 + ρ·k3' cancels to −ρ·(−ℓ) from two terms of size ρ·e^(−ℓ)):
   * the fused gradient is exact there, so the comparison with the composed ops uses CPU_TOLERANCE and the float64
   * reference decides
   */
  composedCancels?: boolean;
}

const FUNCTIONS: FunctionCase[] = [
  { name: 'tokenLogProbs', fn: (z, _q, t) => tokenLogProbs(z, t.targets) },
  { name: 'tokenEntropy', fn: (z) => tokenEntropy(z) },
  {
    name: 'tokenLogProbsAndEntropy',
    fn: (z, _q, t) => {
      const { logProbs, entropy } = tokenLogProbsAndEntropy(z, t.targets);
      return tf.add(logProbs, tf.mul(entropy, 0.7));
    },
  },
  { name: 'fullReverseKL', fn: (z, q) => fullReverseKL(z, q), teacher: true },
  { name: 'actObsLoss λ=0.5', fn: (z, _q, t) => weightedSftLoss({ logits: z, ...t }, 1, 0.5) },
  { name: 'weightedSftLoss (0, 1)', fn: (z, _q, t) => weightedSftLoss({ logits: z, ...t }, 0, 1) },
  ...(['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum'] as TokenAggregation[]).map((aggregation) => ({
    name: `grpoLoss ${aggregation} + k3 KL`,
    fn: ((z, _q, t) => grpoLoss({ logits: z, ...t }, { aggregation, klCoef: 0.05, clipHigh: 0.28 })) as Fn,
  })),
  {
    // old far from the policy puts ratios beyond c on negative advantages: the dual bound binds
    name: 'grpoLoss dual clip c = 3 (verl clip_ratio_c)',
    fn: (z, _q, t) => grpoLoss({ logits: z, ...t }, { clipRatioC: 3, clipHigh: 0.28 }),
  },
  {
    name: 'grpoLoss without reference or entropy',
    fn: (z, _q, t) =>
      grpoLoss(
        {
          logits: z,
          targets: t.targets,
          targetClasses: t.targetClasses,
          oldLogProbs: t.oldLogProbs,
          advantages: t.advantages,
        },
        { computeEntropy: false },
      ),
  },
  ...(['k3', 'full', 'naive'] as OpdEstimator[]).map((estimator) => ({
    name: `opdLoss ${estimator}`,
    fn: ((z, q, t) => opdLoss({ logits: z, ...t, teacherLogits: q }, estimator)) as Fn,
    f64: (c: Case, logits: Float64Array) => refOpd(c, logits, estimator),
    composedCancels: estimator === 'k3',
  })),
];

const CASES = [
  { name: 'old near the policy', c: extremeCase(31, true) },
  { name: 'old far (caps bind)', c: extremeCase(32, false) },
];

const gpu = new BackendOrSkip();
const reference = new Map<string, Output>();

beforeAll(async () => {
  await initBackend('cpu');
  for (const { name: cn, c } of CASES) {
    for (const { name, fn, teacher } of FUNCTIONS) reference.set(`${cn}/${name}`, await evaluate(c, fn, !!teacher));
  }
  await gpu.init('webgpu');
}, 120_000);

afterAll(async () => {
  setFusedKernelsEnabled(true);
  await tf.setBackend('cpu');
});

describe('fused webgpu kernels equal the composed tfjs ops', () => {
  for (const { name: cn, c } of CASES) {
    for (const { name, fn, teacher, f64, composedCancels } of FUNCTIONS) {
      it(`${name} (${cn}): values, statistics and gradients equal the composed ops (${TOLERANCE} webgpu, ${CPU_TOLERANCE} cpu)`, async (ctx) => {
        gpu.skipIfMissing(ctx);
        await tf.setBackend('webgpu');
        expect(useFusedKernels()).toBe(true);
        const before = tf.memory().numTensors;
        const { result: got, kernels } = await countKernels(() => evaluate(c, fn, !!teacher));
        expect(tf.memory().numTensors).toBe(before);
        // the fused kernels really ran (the names are those registered by src/engine/kernels)
        expect(Object.keys(kernels.byName).some((k) => k.startsWith('RetireRowStats'))).toBe(true);
        expect(kernels.gpuPrograms).toBeGreaterThan(0);
        setFusedKernelsEnabled(false);
        let composed: Output;
        try {
          composed = await evaluate(c, fn, !!teacher);
        } finally {
          setFusedKernelsEnabled(true);
        }
        const cpu = reference.get(`${cn}/${name}`) as Output;
        for (const [ref, tol, what] of [
          [composed, composedCancels === true ? CPU_TOLERANCE : TOLERANCE, 'composed webgpu'],
          [cpu, CPU_TOLERANCE, 'composed cpu'],
        ] as const) {
          const errs = parityErrors(flatten(got), flatten(ref));
          expect(Object.keys(errs).length).toBe(Object.keys(flatten(ref)).length);
          for (const [k, err] of Object.entries(errs)) expect(err, `${name} ${k} vs ${what}`).toBeLessThanOrEqual(tol);
          for (const [k, v] of Object.entries(ref.stats)) {
            if (Number.isNaN(v)) expect(got.stats[k], `${name} stat ${k}`).toBeNaN();
          }
        }
        if (f64 !== undefined) {
          const value = f64(c, c.logits);
          const grad = numericGrad((x) => f64(c, x), c.logits);
          const truth = { value: [value], grad: [...grad] };
          const errs = parityErrors({ value: got.value, grad: got.grads[0] ?? [] }, truth);
          for (const [k, err] of Object.entries(errs)) {
            expect(err, `${name} ${k} vs float64`).toBeLessThanOrEqual(F64_TOLERANCE);
          }
          if (composedCancels === true) {
            // the fused gradient is at least as close to float64 as the composed one
            const composedErr = parityErrors({ grad: composed.grads[0] ?? [] }, { grad: truth.grad }).grad as number;
            console.log(
              `${name} (${cn}) gradient vs float64: fused ${errs.grad?.toExponential(2)}, composed ${composedErr.toExponential(2)}`,
            );
            expect(errs.grad as number).toBeLessThanOrEqual(composedErr * 1.01);
          }
        }
      });
    }
  }

  it('the composed path is still used on webgpu when the fused kernels are turned off', async (ctx) => {
    gpu.skipIfMissing(ctx);
    await tf.setBackend('webgpu');
    setFusedKernelsEnabled(false);
    try {
      const c = CASES[0]?.c as Case;
      const { result, kernels } = await countKernels(() => evaluate(c, FUNCTIONS[0]?.fn as Fn, false));
      expect(Object.keys(kernels.byName).some((k) => k.startsWith('Retire'))).toBe(false);
      const errs = parityErrors(flatten(result), flatten(reference.get(`${CASES[0]?.name}/tokenLogProbs`) as Output));
      for (const err of Object.values(errs)) expect(err).toBeLessThanOrEqual(1e-4);
    } finally {
      setFusedKernelsEnabled(true);
    }
  });

  it('a target outside the vocabulary has log-prob 0 and no gradient, as plain autodiff of the one-hot product', async (ctx) => {
    gpu.skipIfMissing(ctx);
    const z = [1, 2, 3, -1, 0.5, 4];
    const run = async (f: typeof tokenLogProbs): Promise<number[]> => {
      const logits = tf.tensor3d(z, [1, 2, 3]);
      const targets = tf.tensor2d([5, 1], [1, 2], 'int32'); // 5 ≥ V = 3
      const { value, grad } = tf.valueAndGrad((x: tf.Tensor) => tf.sum(f(x, targets)))(logits);
      const lp = tf.tidy(() => f(logits, targets));
      const out = [...(await lp.data()), ...(await grad.data())];
      tf.dispose([logits, targets, value, grad, lp]);
      return out;
    };
    await tf.setBackend('cpu');
    const expected = await run(tokenLogProbsComposed);
    await tf.setBackend('webgpu');
    const got = await run(tokenLogProbs);
    expect(got[0]).toBe(0);
    expect(got.slice(2, 5).every((g) => g === 0)).toBe(true); // ±0
    got.forEach((g, i) => expect(g).toBeCloseTo(expected[i] as number, 6));
  });
});
