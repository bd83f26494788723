// The ActObs temperature control (ActObs is docs/METHODS.md §1): find the sampling temperature T at which
// a policy's argument-token entropy equals a target (ActObs's), so success can be compared at equal entropy.
//
// H(T) = entropy of softmax(logits / T), averaged over a fixed set of positions, is non-decreasing in T (from the
// entropy of the argmax, 0 without ties, at T → 0 to log V at T → ∞), so the match is found by bisection. T is a
// scale, so the bisection is geometric: mid = √(lo·hi).
//
// Procedure: evaluate H at T = 1; bracket the target by doubling T upwards (up to maxTemperature) or halving it
// downwards (down to minTemperature); then bisect until |H(T) − target| ≤ tolerance (nats) or maxIterations bisection
// steps were taken. A target outside [H(minTemperature), H(maxTemperature)] cannot be matched: the nearest end is
// returned with converged = false. Pure TypeScript: the caller supplies H.

export interface TemperatureMatchOptions {
  /** |H(T) − target| at which the match counts as found (nats) */
  tolerance: number;
  /** bisection steps after bracketing (bracketing itself takes at most log2(max/min) evaluations) */
  maxIterations: number;
  minTemperature: number;
  maxTemperature: number;
}

export const DEFAULT_TEMPERATURE_MATCH: Readonly<TemperatureMatchOptions> = {
  tolerance: 1e-3,
  maxIterations: 30,
  minTemperature: 1 / 64,
  maxTemperature: 64,
};

export interface TemperatureMatch {
  target: number;
  /** the temperature found (the evaluated T whose entropy is nearest the target) */
  temperature: number;
  /** H at that temperature (nats) */
  entropy: number;
  /** |entropy − target| ≤ tolerance */
  converged: boolean;
  /** number of H evaluations (bracketing and bisection) */
  evaluations: number;
}

/** Find T with H(T) = target by bracketing from T = 1 and geometric bisection (see the file comment). */
export async function matchTemperature(
  entropyAt: (temperature: number) => number | Promise<number>,
  target: number,
  options: Partial<TemperatureMatchOptions> = {},
): Promise<TemperatureMatch> {
  const o = { ...DEFAULT_TEMPERATURE_MATCH, ...options };
  if (!Number.isFinite(target) || target < 0)
    throw new Error(`matchTemperature: the target entropy must be a finite number ≥ 0, got ${target}`);
  if (!(o.minTemperature > 0 && o.minTemperature <= 1 && o.maxTemperature >= 1 && o.tolerance > 0))
    throw new Error('matchTemperature: expected 0 < minTemperature ≤ 1 ≤ maxTemperature and tolerance > 0');
  let evaluations = 0;
  let best = { temperature: 1, entropy: NaN, gap: Infinity };
  const H = async (T: number): Promise<number> => {
    const h = await entropyAt(T);
    evaluations++;
    if (!Number.isFinite(h)) throw new Error(`matchTemperature: the entropy at T = ${T} is ${h}`);
    const gap = Math.abs(h - target);
    if (gap < best.gap) best = { temperature: T, entropy: h, gap };
    return h;
  };
  const done = (): TemperatureMatch => ({
    target,
    temperature: best.temperature,
    entropy: best.entropy,
    converged: best.gap <= o.tolerance,
    evaluations,
  });

  // bracket: lo ≤ T* ≤ hi with H(lo) ≤ target ≤ H(hi)
  let lo = 1;
  let hi = 1;
  const h1 = await H(1);
  if (Math.abs(h1 - target) <= o.tolerance) return done();
  if (h1 < target) {
    while ((await H(Math.min(hi * 2, o.maxTemperature))) < target) {
      lo = Math.min(hi * 2, o.maxTemperature);
      if (lo >= o.maxTemperature) return done();
      hi = lo;
    }
    hi = Math.min(hi * 2, o.maxTemperature);
  } else {
    while ((await H(Math.max(lo / 2, o.minTemperature))) > target) {
      hi = Math.max(lo / 2, o.minTemperature);
      if (hi <= o.minTemperature) return done();
      lo = hi;
    }
    lo = Math.max(lo / 2, o.minTemperature);
  }
  if (best.gap <= o.tolerance) return done();

  for (let i = 0; i < o.maxIterations; i++) {
    const mid = Math.sqrt(lo * hi);
    const h = await H(mid);
    if (Math.abs(h - target) <= o.tolerance) break;
    if (h < target) lo = mid;
    else hi = mid;
  }
  return done();
}
