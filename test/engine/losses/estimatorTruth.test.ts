// Estimator truth (METHODS §3): on a tiny fixed student/teacher over a 5-token vocabulary, sample actions on-policy
// and compare Monte-Carlo mean gradients with the exact reverse-KL gradient.
//   k3    : mean gradient must match ∇θ KL(πθ ‖ πT) (the 'full' estimator's gradient) within 4 standard errors;
//   naive : mean gradient must be zero within 4 standard errors — and the exact gradient must be far from zero,
//           so "naive is useless" is a finding of the test, not an artefact of a weak setup.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { opdLoss, type OpdEstimator } from '../../../src/engine/losses/opdLoss';
import { logSoftmaxRows, rng } from './reference';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const V = 5;
const STUDENT = [0.5, -0.3, 1.2, 0.0, -1.0];
const TEACHER = [1.0, 0.2, -0.5, 0.8, -0.2];
const N = 20000;

/** Per-sample gradients w.r.t. the student's logits: [N][V]. Each sample is one sequence [sampled action, (none)]. */
function perSampleGrads(estimator: OpdEstimator, samples: Int32Array, sampler: number[] = STUDENT): Float64Array[] {
  const n = samples.length;
  const lpS = logSoftmaxRows(sampler, V); // log π_old: the policy that sampled
  const lpT = logSoftmaxRows(TEACHER, V);
  const targets = new Int32Array(2 * n);
  const classes = new Int32Array(2 * n);
  const old = new Float32Array(2 * n);
  const teacher = new Float32Array(2 * n);
  samples.forEach((y, i) => {
    targets[2 * i] = y;
    classes[2 * i] = 2; // actionHead
    classes[2 * i + 1] = -1; // no target
    old[2 * i] = lpS[y] ?? 0; // π_old(y); on-policy when sampler = STUDENT
    teacher[2 * i] = lpT[y] ?? 0;
  });
  const grad = tf.tidy(() => {
    const logits = tf.tile(tf.tensor3d(STUDENT, [1, 1, V]), [n, 2, 1]); // [N, 2, V]
    const inputs = {
      targets: tf.tensor2d(targets, [n, 2], 'int32'),
      targetClasses: tf.tensor2d(classes, [n, 2], 'int32'),
      oldLogProbs: tf.tensor2d(old, [n, 2]),
      teacherLogProbs: tf.tensor2d(teacher, [n, 2]),
      teacherLogits: tf.tile(tf.tensor3d(TEACHER, [1, 1, V]), [n, 2, 1]),
    };
    return tf.grad((z: tf.Tensor) => opdLoss({ logits: z, ...inputs }, estimator).loss)(logits);
  });
  const g = grad.dataSync();
  grad.dispose();
  // the loss is a token mean over N actions: sample i's own gradient is N × its slice
  return Array.from({ length: n }, (_, i) => Float64Array.from(g.subarray(2 * i * V, 2 * i * V + V), (x) => x * n));
}

function meanAndSE(rows: Float64Array[]): { mean: number[]; se: number[] } {
  const n = rows.length;
  const mean = Array.from({ length: V }, (_, v) => rows.reduce((s, r) => s + (r[v] ?? 0), 0) / n);
  const se = mean.map((m, v) => Math.sqrt(rows.reduce((s, r) => s + ((r[v] ?? 0) - m) ** 2, 0) / (n - 1) / n));
  return { mean, se };
}

const fmt = (xs: number[]) => `[${xs.map((x) => x.toFixed(5)).join(', ')}]`;

/** N seeded samples from softmax(logits). */
function sample(logits: number[], seed: number): Int32Array {
  const probs = Array.from(logSoftmaxRows(logits, V), Math.exp);
  const r = rng(seed);
  return Int32Array.from({ length: N }, () => {
    let u = r();
    for (let v = 0; v < V; v++) {
      u -= probs[v] ?? 0;
      if (u < 0) return v;
    }
    return V - 1;
  });
}

describe('OPD estimator truth (5-token vocabulary)', () => {
  const p = Array.from(logSoftmaxRows(STUDENT, V), Math.exp);
  const samples = sample(STUDENT, 2026); // on-policy: y ~ πθ

  // exact ∇θ KL(πθ ‖ πT) = p ⊙ (log p − log q − KL), in float64
  const lp = logSoftmaxRows(STUDENT, V);
  const lq = logSoftmaxRows(TEACHER, V);
  const kl = p.reduce((s, pv, v) => s + pv * ((lp[v] ?? 0) - (lq[v] ?? 0)), 0);
  const exact = p.map((pv, v) => pv * ((lp[v] ?? 0) - (lq[v] ?? 0) - kl));

  it("'full' gives the exact reverse-KL gradient", () => {
    const full = perSampleGrads('full', samples.subarray(0, 4));
    for (const row of full)
      for (let v = 0; v < V; v++) expect(Math.abs((row[v] ?? 0) - (exact[v] ?? 0))).toBeLessThan(1e-6);
  });

  it('k3: the Monte-Carlo mean gradient matches the exact reverse-KL gradient within 4 standard errors', () => {
    const { mean, se } = meanAndSE(perSampleGrads('k3', samples));
    console.log(
      `k3 MC mean gradient (N=${N}) ${fmt(mean)}\n   exact reverse-KL gradient ${fmt(exact)}\n   standard error            ${fmt(se)}`,
    );
    for (let v = 0; v < V; v++)
      expect(Math.abs((mean[v] ?? 0) - (exact[v] ?? 0))).toBeLessThanOrEqual(4 * (se[v] ?? 0));
  });

  it('naive (seed 000, teaching ablation): the mean gradient is zero within 4 standard errors, far from the truth', () => {
    const { mean, se } = meanAndSE(perSampleGrads('naive', samples));
    console.log(
      `naive MC mean gradient (N=${N}) ${fmt(mean)}\n   standard error                ${fmt(se)}\n   exact reverse-KL gradient     ${fmt(exact)}`,
    );
    for (let v = 0; v < V; v++) expect(Math.abs(mean[v] ?? 0)).toBeLessThanOrEqual(4 * (se[v] ?? 0));
    // the truth is many standard errors away from zero: naive would be detected as wrong
    const far = exact.map((e, v) => Math.abs(e) / (se[v] ?? 1));
    expect(Math.max(...far)).toBeGreaterThan(20);
  });

  it('k3 off-policy (samples from a stale π_old): the gradient through ρ keeps the mean on the exact gradient', () => {
    const stale = [0.1, 0.4, 0.6, -0.2, -0.5];
    const { mean, se } = meanAndSE(perSampleGrads('k3', sample(stale, 7), stale));
    console.log(
      `k3 off-policy MC mean gradient ${fmt(mean)}\n   exact reverse-KL gradient     ${fmt(exact)}\n   standard error                ${fmt(se)}`,
    );
    for (let v = 0; v < V; v++)
      expect(Math.abs((mean[v] ?? 0) - (exact[v] ?? 0))).toBeLessThanOrEqual(4 * (se[v] ?? 0));
  });
});
