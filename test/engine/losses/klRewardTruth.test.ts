// kl-reward's truth (docs/METHODS.md §3, distillation forms): the per-token reward c_t = −(log π_old − log π_T) in the
// policy gradient has, on-policy, the expected gradient of the reverse KL, ∇θ KL(πθ ‖ π_T) — the same target as k3,
// reached through the advantage. On a fixed student/teacher over a 5-token vocabulary, the Monte-Carlo mean of N
// per-sample gradients must match the exact gradient p ⊙ (log p − log q − KL) within 4 standard errors, and a
// reward of the wrong sign must be detected (its mean far from the truth).
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { distillLoss } from '../../../src/engine/losses/distillLoss';
import { logSoftmaxRows, rng } from './reference';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const V = 5;
const STUDENT = [0.5, -0.3, 1.2, 0.0, -1.0];
const TEACHER = [1.0, 0.2, -0.5, 0.8, -0.2];
const N = 20000;

/** Per-sample gradients w.r.t. the student's logits, each sample one action token: [N][V]. */
function perSampleGrads(samples: Int32Array, teacherSign = 1): Float64Array[] {
  const n = samples.length;
  const lpS = logSoftmaxRows(STUDENT, V);
  const lpT = logSoftmaxRows(TEACHER, V);
  const targets = new Int32Array(2 * n);
  const classes = new Int32Array(2 * n);
  const old = new Float32Array(2 * n);
  const teacher = new Float32Array(2 * n);
  samples.forEach((y, i) => {
    targets[2 * i] = y;
    classes[2 * i] = 2; // actionHead
    classes[2 * i + 1] = -1; // no target
    old[2 * i] = lpS[y] ?? 0; // on-policy: π_old = πθ
    // teacherSign −1 flips the reward's sign (c_t = +(log π_old − log π_T)): the mutant the test must catch
    teacher[2 * i] = teacherSign > 0 ? (lpT[y] ?? 0) : 2 * (lpS[y] ?? 0) - (lpT[y] ?? 0);
  });
  const grad = tf.tidy(() => {
    const logits = tf.tile(tf.tensor3d(STUDENT, [1, 1, V]), [n, 2, 1]);
    const inputs = {
      targets: tf.tensor2d(targets, [n, 2], 'int32'),
      targetClasses: tf.tensor2d(classes, [n, 2], 'int32'),
      oldLogProbs: tf.tensor2d(old, [n, 2]),
      teacherLogProbs: tf.tensor2d(teacher, [n, 2]),
    };
    const spec = { form: 'kl-reward', estimator: 'k3', topK: 1, beta: 0 } as const;
    return tf.grad((z: tf.Tensor) => distillLoss({ logits: z, ...inputs }, spec).loss)(logits);
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

describe('kl-reward truth (5-token vocabulary)', () => {
  const lp = logSoftmaxRows(STUDENT, V);
  const lq = logSoftmaxRows(TEACHER, V);
  const p = Array.from(lp, Math.exp);
  const r = rng(2027);
  const samples = Int32Array.from({ length: N }, () => {
    let u = r();
    for (let v = 0; v < V; v++) {
      u -= p[v] ?? 0;
      if (u < 0) return v;
    }
    return V - 1;
  });
  const kl = p.reduce((s, pv, v) => s + pv * ((lp[v] ?? 0) - (lq[v] ?? 0)), 0);
  const exact = p.map((pv, v) => pv * ((lp[v] ?? 0) - (lq[v] ?? 0) - kl));

  it('on-policy, the Monte-Carlo mean gradient is the exact reverse-KL gradient within 4 standard errors', () => {
    const { mean, se } = meanAndSE(perSampleGrads(samples));
    for (let v = 0; v < V; v++)
      expect(Math.abs((mean[v] ?? 0) - (exact[v] ?? 0))).toBeLessThanOrEqual(4 * (se[v] ?? 0));
  });

  it('a reward of the wrong sign is detected: its mean gradient is many standard errors from the truth', () => {
    const { mean, se } = meanAndSE(perSampleGrads(samples, -1));
    const off = exact.map((e, v) => Math.abs((mean[v] ?? 0) - e) / (se[v] ?? 1));
    expect(Math.max(...off)).toBeGreaterThan(20);
  });
});
