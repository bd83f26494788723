// Float64 plain-JS references for the loss tests: seeded inputs, the formulas of METHODS §1–§3 written directly
// from the spec, and central finite differences (h = 1e-5 in float64, error ~1e-10) for reference gradients.
import * as tf from '@tensorflow/tfjs';

export const ACTION_HEAD = 2;
export const ACTION_ARG = 3;
export const OBSERVATION = 4;
export const isAction = (c: number): boolean => c === ACTION_HEAD || c === ACTION_ARG;

/** mulberry32: a small seeded PRNG in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function normal(r: () => number): number {
  const u = Math.max(r(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}

/** A random batch in the engine's target convention (last position of each row has no target). */
export interface Case {
  B: number;
  T: number;
  V: number;
  logits: Float64Array; // [B, T, V]
  targets: Int32Array; // [B, T]
  classes: Int32Array; // [B, T] class of the target, −1 = none
  old: Float64Array; // [B, T] log π_old(target)
  teacher: Float64Array; // [B, T] log πT(target)
  teacherLogits: Float64Array; // [B, T, V]
  ref: Float64Array; // [B, T] log π_ref(target)
  advantages: Float64Array; // [B]
}

export function makeCase(seed: number, B = 3, T = 7, V = 6, scale = 1.5): Case {
  const r = rng(seed);
  const n = B * T;
  // float32-representable inputs, so float32 tfjs and the float64 reference see the same numbers
  const f32 = (x: number) => Math.fround(x);
  const logits = Float64Array.from({ length: n * V }, () => f32(scale * normal(r)));
  const teacherLogits = Float64Array.from({ length: n * V }, () => f32(scale * normal(r)));
  const targets = Int32Array.from({ length: n }, () => Math.floor(r() * V));
  const classes = new Int32Array(n);
  const pool = [0, 1, 2, 3, 3, 4, 4, 4, 5];
  for (let i = 0; i < n; i++) classes[i] = (i + 1) % T === 0 ? -1 : (pool[Math.floor(r() * pool.length)] ?? 0);
  // every row gets at least one action and one observation target
  for (let b = 0; b < B; b++) {
    classes[b * T] = ACTION_HEAD;
    classes[b * T + 1] = OBSERVATION;
  }
  const lp = refTokenLogProbs(logits, targets, V);
  const old = Float64Array.from(lp, (x) => f32(x + 0.35 * normal(r)));
  const teacher = Float64Array.from(refTokenLogProbs(teacherLogits, targets, V), f32);
  const ref = Float64Array.from(lp, (x) => f32(x + 0.5 * normal(r)));
  const advantages = Float64Array.from({ length: B }, () => f32(normal(r)));
  return { B, T, V, logits, targets, classes, old, teacher, teacherLogits, ref, advantages };
}

export function logSoftmaxRows(logits: ArrayLike<number>, V: number): Float64Array {
  const out = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i += V) {
    let m = -Infinity;
    for (let v = 0; v < V; v++) m = Math.max(m, logits[i + v] ?? 0);
    let s = 0;
    for (let v = 0; v < V; v++) s += Math.exp((logits[i + v] ?? 0) - m);
    const lse = m + Math.log(s);
    for (let v = 0; v < V; v++) out[i + v] = (logits[i + v] ?? 0) - lse;
  }
  return out;
}

export function refTokenLogProbs(logits: ArrayLike<number>, targets: ArrayLike<number>, V: number): Float64Array {
  const ls = logSoftmaxRows(logits, V);
  return Float64Array.from({ length: targets.length }, (_, i) => ls[i * V + (targets[i] ?? 0)] ?? 0);
}

export function refEntropy(logits: ArrayLike<number>, V: number): Float64Array {
  const ls = logSoftmaxRows(logits, V);
  const n = logits.length / V;
  return Float64Array.from({ length: n }, (_, i) => {
    let h = 0;
    for (let v = 0; v < V; v++) h -= Math.exp(ls[i * V + v] ?? 0) * (ls[i * V + v] ?? 0);
    return h;
  });
}

/** KL(p ‖ q) per row from two logit arrays. */
export function refRowKL(pLogits: ArrayLike<number>, qLogits: ArrayLike<number>, V: number): Float64Array {
  const lp = logSoftmaxRows(pLogits, V);
  const lq = logSoftmaxRows(qLogits, V);
  const n = pLogits.length / V;
  return Float64Array.from({ length: n }, (_, i) => {
    let kl = 0;
    for (let v = 0; v < V; v++) kl += Math.exp(lp[i * V + v] ?? 0) * ((lp[i * V + v] ?? 0) - (lq[i * V + v] ?? 0));
    return kl;
  });
}

/** Σ x·mask / max(1, Σ mask) */
export function refMaskedMean(x: ArrayLike<number>, mask: (i: number) => boolean): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < x.length; i++) {
    if (mask(i)) {
      s += x[i] ?? 0;
      n++;
    }
  }
  return s / Math.max(1, n);
}

/** METHODS §1, written from the formula. */
export function refActObs(c: Case, logits: ArrayLike<number>, lambda: number, actionWeight = 1): number {
  const lp = refTokenLogProbs(logits, c.targets, c.V);
  let total = 0;
  for (let b = 0; b < c.B; b++) {
    let num = 0;
    let den = 0;
    for (let t = 0; t < c.T; t++) {
      const i = b * c.T + t;
      const cls = c.classes[i] ?? -1;
      const w = isAction(cls) ? actionWeight : cls === OBSERVATION ? lambda : 0;
      num += w * (lp[i] ?? 0);
      den += w;
    }
    total += -num / Math.max(1, den);
  }
  return total / c.B;
}

export type Aggregation = 'token-mean' | 'seq-mean-token-mean' | 'seq-mean-token-sum';

export function refAggregate(c: Case, perToken: ArrayLike<number>, mode: Aggregation): number {
  if (mode === 'token-mean') return refMaskedMean(perToken, (i) => isAction(c.classes[i] ?? -1));
  let total = 0;
  for (let b = 0; b < c.B; b++) {
    let s = 0;
    let n = 0;
    for (let t = 0; t < c.T; t++) {
      const i = b * c.T + t;
      if (isAction(c.classes[i] ?? -1)) {
        s += perToken[i] ?? 0;
        n++;
      }
    }
    total += mode === 'seq-mean-token-sum' ? s : s / Math.max(1, n);
  }
  return total / c.B;
}

/** METHODS §2: clipped surrogate (+ β·k3 to the reference). */
export function refGrpo(
  c: Case,
  logits: ArrayLike<number>,
  o: { clipLow: number; clipHigh: number; aggregation: Aggregation; klCoef: number },
): number {
  const lp = refTokenLogProbs(logits, c.targets, c.V);
  const per = Float64Array.from(lp, (x, i) => {
    const b = Math.floor(i / c.T);
    const A = c.advantages[b] ?? 0;
    const r = Math.exp(x - (c.old[i] ?? 0));
    const clipped = Math.min(Math.max(r, 1 - o.clipLow), 1 + o.clipHigh);
    const d = (c.ref[i] ?? 0) - x;
    return -Math.min(r * A, clipped * A) + o.klCoef * (Math.exp(d) - d - 1);
  });
  return refAggregate(c, per, o.aggregation);
}

/** METHODS §3 estimators, token-mean over action targets. */
export function refOpd(c: Case, logits: ArrayLike<number>, estimator: 'k3' | 'full' | 'naive'): number {
  const lp = refTokenLogProbs(logits, c.targets, c.V);
  const mask = (i: number) => isAction(c.classes[i] ?? -1);
  if (estimator === 'full') return refMaskedMean(refRowKL(logits, c.teacherLogits, c.V), mask);
  if (estimator === 'naive')
    return refMaskedMean(
      Float64Array.from(lp, (x, i) => x - (c.teacher[i] ?? 0)),
      mask,
    );
  return refMaskedMean(
    Float64Array.from(lp, (x, i) => {
      const ell = x - (c.teacher[i] ?? 0);
      const negEll = Math.min(-ell, 20);
      const rho = Math.exp(Math.min(x - (c.old[i] ?? 0), 10));
      return rho * (Math.exp(negEll) - 1 - negEll);
    }),
    mask,
  );
}

/** Central finite-difference gradient of a float64 function. */
export function numericGrad(f: (x: Float64Array) => number, x0: ArrayLike<number>, h = 1e-5): Float64Array {
  const x = Float64Array.from(x0);
  const g = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i] ?? 0;
    x[i] = xi + h;
    const fp = f(x);
    x[i] = xi - h;
    const fm = f(x);
    x[i] = xi;
    g[i] = (fp - fm) / (2 * h);
  }
  return g;
}

/** tfjs value and gradient w.r.t. logits [B, T, V] of a scalar loss. */
export function tfValueAndGrad(
  c: Case,
  loss: (logits: tf.Tensor) => tf.Scalar,
  logits: ArrayLike<number> = c.logits,
): { value: number; grad: Float32Array } {
  const x = tf.tensor3d(Float32Array.from(logits), [c.B, c.T, c.V]);
  const { value, grad } = tf.valueAndGrad(loss)(x);
  const out = { value: value.dataSync()[0] ?? Number.NaN, grad: grad.dataSync() as Float32Array };
  tf.dispose([x, value, grad]);
  return out;
}

/** Tensors of a case's per-target inputs (caller disposes). */
export function caseTensors(c: Case): {
  targets: tf.Tensor2D;
  targetClasses: tf.Tensor2D;
  oldLogProbs: tf.Tensor2D;
  teacherLogProbs: tf.Tensor2D;
  teacherLogits: tf.Tensor3D;
  refLogProbs: tf.Tensor2D;
  dispose: () => void;
} {
  const t = {
    targets: tf.tensor2d(c.targets, [c.B, c.T], 'int32'),
    targetClasses: tf.tensor2d(c.classes, [c.B, c.T], 'int32'),
    oldLogProbs: tf.tensor2d(Float32Array.from(c.old), [c.B, c.T]),
    teacherLogProbs: tf.tensor2d(Float32Array.from(c.teacher), [c.B, c.T]),
    teacherLogits: tf.tensor3d(Float32Array.from(c.teacherLogits), [c.B, c.T, c.V]),
    refLogProbs: tf.tensor2d(Float32Array.from(c.ref), [c.B, c.T]),
  };
  return { ...t, dispose: () => tf.dispose(Object.values(t)) };
}
