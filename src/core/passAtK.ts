// The unbiased pass@k estimator (docs/METHODS.md §6): n attempts at a task, c of them successful.

function checkCounts(n: number, c: number, k: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`pass@k: n must be a positive integer, got ${n}`);
  if (!Number.isInteger(c) || c < 0 || c > n)
    throw new RangeError(`pass@k: c must be an integer in [0, ${n}], got ${c}`);
  if (!Number.isInteger(k) || k < 1 || k > n)
    throw new RangeError(`pass@k: k must be an integer in [1, ${n}], got ${k}`);
}

/**
 * pass@k = 1 − C(n−c, k) / C(n, k), computed as 1 − Π_{i=n−c+1}^{n} (1 − k/i): no binomials, so it stays exact-ish
 * for large n (C(n, k) overflows float64 near n = 1030). Equals 1 when n − c < k (every k-subset holds a success).
 */
export function passAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** Mean pass@k over tasks, each given as {n, c}; NaN for an empty list. */
export function meanPassAtK(tasks: readonly { readonly n: number; readonly c: number }[], k: number): number {
  if (tasks.length === 0) return Number.NaN;
  let sum = 0;
  for (const { n, c } of tasks) sum += passAtK(n, c, k);
  return sum / tasks.length;
}
