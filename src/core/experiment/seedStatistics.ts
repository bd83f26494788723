// Statistics by seed: the seed is the unit of replication. A seed's episodes are averaged first (its test success
// rate is one number), and intervals are Student-t intervals over seeds (n − 1 degrees of freedom) — never over
// episodes, whose outcomes share a seed's model, tasks and teacher and so are not independent. Paired differences
// (RetireOPD − OPD throughout on the same seed: same SFT, same teacher, same tasks) take the difference per seed
// first. Pure float64 arithmetic; success rates are fractions in [0, 1] (the report prints points).

/** log Γ(x) for x > 0 (Lanczos, g = 7, n = 9: ~15 significant digits). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the incomplete beta function (modified Lentz), for x < (a + 1)/(a + b + 2). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b), x in [0, 1]. */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** P(T ≤ t) for Student's t with `df` > 0 degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/**
 * The p-quantile of Student's t with `df` > 0 degrees of freedom (e.g. p = 0.975, df = 9 → 2.2622), by bisection
 * on the CDF to ~1e-12 relative. Throws on p outside (0, 1) or df ≤ 0.
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTQuantile: p must be in (0, 1), got ${p}`);
  if (!(df > 0)) throw new RangeError(`studentTQuantile: df must be > 0, got ${df}`);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/** Mean over seeds with its Student-t interval. */
export interface SeedInterval {
  /** seeds (the replication count n) */
  n: number;
  mean: number;
  /** sample standard deviation over seeds (n − 1 denominator; NaN with one seed) */
  sd: number;
  /** half-width of the two-sided interval: t_{1−α/2, n−1} · sd / √n (NaN with fewer than two seeds) */
  halfWidth: number;
  lower: number;
  upper: number;
  /** the interval's level, e.g. 0.95 */
  level: number;
}

/** Mean and two-sided `level` t-interval of one value per seed (NaN entries are refused: a seed without a value is
 *  left out by the caller, not averaged in). */
export function seedInterval(values: readonly number[], level = 0.95): SeedInterval {
  if (values.some((v) => !Number.isFinite(v)))
    throw new RangeError(`seedInterval: every per-seed value must be finite, got ${values.join(', ')}`);
  const n = values.length;
  const mean = n ? values.reduce((a, b) => a + b, 0) / n : NaN;
  const sd = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) : NaN;
  const halfWidth = n > 1 ? (studentTQuantile(1 - (1 - level) / 2, n - 1) * sd) / Math.sqrt(n) : NaN;
  return { n, mean, sd, halfWidth, lower: mean - halfWidth, upper: mean + halfWidth, level };
}

/** One episode's outcome (e.g. success 0/1) and the seed whose run produced it. */
export interface SeedEpisode {
  seed: number;
  value: number;
}

/** Episodes → one mean per seed (seeds ascending): the step that turns correlated episodes into replications. */
export function perSeedMeans(episodes: readonly SeedEpisode[]): { seed: number; mean: number }[] {
  const sums = new Map<number, { sum: number; n: number }>();
  for (const e of episodes) {
    const s = sums.get(e.seed) ?? { sum: 0, n: 0 };
    s.sum += e.value;
    s.n += 1;
    sums.set(e.seed, s);
  }
  return [...sums.entries()].sort(([a], [b]) => a - b).map(([seed, s]) => ({ seed, mean: s.sum / s.n }));
}

/** A paired comparison over seeds: a − b per seed, its mean and t-interval, and how many seeds favour a. */
export interface PairedDifference extends SeedInterval {
  /** the seeds present in both arms, ascending */
  seeds: number[];
  /** a − b per seed, in `seeds` order */
  differences: number[];
  /** seeds where a − b > 0 */
  positive: number;
}

/** a − b on the seeds both arms ran (seed → value maps); seeds only one arm has are left out. */
export function pairedDifference(
  a: ReadonlyMap<number, number>,
  b: ReadonlyMap<number, number>,
  level = 0.95,
): PairedDifference {
  const seeds = [...a.keys()].filter((s) => b.has(s)).sort((x, y) => x - y);
  const differences = seeds.map((s) => (a.get(s) as number) - (b.get(s) as number));
  return {
    ...seedInterval(differences, level),
    seeds,
    differences,
    positive: differences.filter((d) => d > 0).length,
  };
}
