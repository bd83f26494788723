// The y range a chart draws a metric on, so that the axis fits the data: a rate (a success rate, a fraction) on
// [0, 1] whatever its values; a ratio read against a threshold (η against γ) around the threshold and the data; any
// other metric over its data with a margin — and a constant series around its value, never recharts' [0, 4] for a
// line of zeros.

/** Metric names that are fractions in [0, 1]. */
const RATE = /success_rate$|(^|\/)frac_|_frac$|_rate$|^pass@|\/pass@/;

export const isRateMetric = (name: string): boolean => RATE.test(name);

/** A round tick step for about five ticks over `span`: 1, 2 or 5 × 10^k. */
export function niceStep(span: number): number {
  const raw = span / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
}

/**
 * [lo, hi] over the finite values (and `reference`, when given), widened by `margin` of the span on each side and
 * then out to round numbers (the axis's end ticks read 0.75 and 1.05, not 0.784 and 1.016).
 */
export function fitRange(values: readonly number[], reference?: number, margin = 0.08): [number, number] {
  const finite = values.filter(Number.isFinite);
  if (reference !== undefined && Number.isFinite(reference)) finite.push(reference);
  if (finite.length === 0) return [0, 1];
  const lo = Math.min(...finite);
  const hi = Math.max(...finite);
  // a constant series: ±10 % of its value (±0.5 around zero)
  const span = hi > lo ? hi - lo : lo === 0 ? 10 : Math.abs(lo) * 2;
  const pad = hi > lo ? span * margin : span / 20;
  const step = niceStep(hi + pad - (lo - pad));
  const round = (x: number) => Number(x.toPrecision(10));
  return [round(Math.floor(round((lo - pad) / step)) * step), round(Math.ceil(round((hi + pad) / step)) * step)];
}

/** The y range for `metric`: [0, 1] for a rate, else fitted to the values and the reference (a threshold). */
export function metricAxisRange(metric: string, values: readonly number[], reference?: number): [number, number] {
  return isRateMetric(metric) ? [0, 1] : fitRange(values, reference);
}
