// TensorBoard's smoothing of a metric curve, one implementation for every chart of the lab (the Train view's metric
// charts, the population chart, the compare view): an exponential moving average with weight w ∈ [0, 1), debiased
// so that its start is not pulled towards 0. Pure: points in, points out, x unchanged.

/** A point of a curve: x is the step, y the metric's value. */
export interface CurvePoint {
  x: number;
  y: number;
}

/** The largest weight used: w = 1 would never move off the first value (and 1 − wⁿ = 0). */
export const MAX_SMOOTHING = 0.999;

/**
 * The debiased EMA of `points`: s₀ = 0, sₙ = w·sₙ₋₁ + (1 − w)·yₙ, drawn as sₙ / (1 − wⁿ) (TensorBoard's
 * "debiased" smoothing; n counts the points seen so far). w ≤ 0 returns the points unchanged; w is capped at
 * MAX_SMOOTHING. Non-finite values are skipped (they neither move the average nor count in n) and keep their
 * place with y = NaN, so a chart leaves a gap there as it would for the raw curve.
 */
export function emaSmooth<P extends CurvePoint>(points: readonly P[], weight: number): CurvePoint[] {
  if (!(weight > 0)) return points.map((p) => ({ x: p.x, y: p.y }));
  const w = Math.min(weight, MAX_SMOOTHING);
  let last = 0;
  let n = 0;
  return points.map((p) => {
    if (!Number.isFinite(p.y)) return { x: p.x, y: Number.NaN };
    last = last * w + (1 - w) * p.y;
    n += 1;
    return { x: p.x, y: last / (1 - w ** n) };
  });
}
