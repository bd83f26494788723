// Float64 references of the distillation forms (docs/METHODS.md §3, distillation forms), written from the formulas, on reference.ts's
// seeded cases: per-position top-k forward KL with an "other" bucket, TRL's generalized JSD, and the kl-reward
// surrogate. Token means over action targets, like the engine's losses.
import { isAction, logSoftmaxRows, refMaskedMean, refTokenLogProbs, type Case } from './reference';

const logSumExp = (xs: number[]): number => {
  const m = Math.max(...xs);
  return m === -Infinity ? -Infinity : m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
};

/** Per position: Σ_{v∈K} p_T(v)(log p_T − log p_θ) + p_T(O)(log p_T(O) − log p_θ(O)), K the teacher's top k. */
export function refTopKForwardKlRows(
  logits: ArrayLike<number>,
  teacherLogits: ArrayLike<number>,
  V: number,
  k: number,
) {
  const lpS = logSoftmaxRows(logits, V);
  const lpT = logSoftmaxRows(teacherLogits, V);
  const n = logits.length / V;
  return Float64Array.from({ length: n }, (_, i) => {
    const s = Array.from({ length: V }, (_, v) => lpS[i * V + v] ?? 0);
    const t = Array.from({ length: V }, (_, v) => lpT[i * V + v] ?? 0);
    const order = t.map((x, v) => [x, v] as const).sort((a, b) => b[0] - a[0]);
    const kept = new Set(order.slice(0, Math.min(k, V)).map(([, v]) => v));
    let out = 0;
    for (const v of kept) out += Math.exp(t[v] ?? 0) * ((t[v] ?? 0) - (s[v] ?? 0));
    const rest = Array.from({ length: V }, (_, v) => v).filter((v) => !kept.has(v));
    if (rest.length > 0) {
      const oT = logSumExp(rest.map((v) => t[v] ?? 0));
      const oS = logSumExp(rest.map((v) => s[v] ?? 0));
      out += Math.exp(oT) * (oT - oS);
    }
    return out;
  });
}

/** Per position, TRL's generalized_jsd_loss: β = 0 KL(T‖S), β = 1 KL(S‖T), else β·KL(T‖M) + (1−β)·KL(S‖M). */
export function refGeneralizedJsdRows(
  logits: ArrayLike<number>,
  teacherLogits: ArrayLike<number>,
  V: number,
  beta: number,
) {
  const lpS = logSoftmaxRows(logits, V);
  const lpT = logSoftmaxRows(teacherLogits, V);
  const n = logits.length / V;
  const kl = (a: number[], b: number[]) => a.reduce((acc, x, v) => acc + Math.exp(x) * (x - (b[v] ?? 0)), 0);
  return Float64Array.from({ length: n }, (_, i) => {
    const s = Array.from({ length: V }, (_, v) => lpS[i * V + v] ?? 0);
    const t = Array.from({ length: V }, (_, v) => lpT[i * V + v] ?? 0);
    if (beta === 0) return kl(t, s);
    if (beta === 1) return kl(s, t);
    const m = s.map((x, v) => Math.log(beta * Math.exp(t[v] ?? 0) + (1 - beta) * Math.exp(x)));
    return beta * kl(t, m) + (1 - beta) * kl(s, m);
  });
}

/** kl-reward: token mean of −r_t·c_t, r_t = exp(min(log πθ − log π_old, 10)), c_t = log π_T − log π_old. */
export function refKlReward(c: Case, logits: ArrayLike<number>): number {
  const lp = refTokenLogProbs(logits, c.targets, c.V);
  return refMaskedMean(
    Float64Array.from(lp, (x, i) => {
      const r = Math.exp(Math.min(x - (c.old[i] ?? 0), 10));
      return -r * ((c.teacher[i] ?? 0) - (c.old[i] ?? 0));
    }),
    (i) => isAction(c.classes[i] ?? -1),
  );
}

/** Token mean over action targets of per-position values. */
export const refActionMean = (c: Case, rows: ArrayLike<number>): number =>
  refMaskedMean(rows, (i) => isAction(c.classes[i] ?? -1));
