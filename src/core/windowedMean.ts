// Means over windows of a scalar series: the gate's non-overlapping windows and the charts' trailing smoothing.

/** Arithmetic mean, summed left to right (the same float result as Python's `sum(xs) / len(xs)`); NaN if empty. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

function checkWindow(window: number): void {
  if (!Number.isInteger(window) || window <= 0) {
    throw new RangeError(`window must be a positive integer, got ${window}`);
  }
}

/**
 * Means of consecutive non-overlapping windows [0, W), [W, 2W), …; a trailing partial window is dropped unless
 * `keepPartial` (then its mean is over the values it has).
 */
export function windowedMeans(values: readonly number[], window: number, keepPartial = false): number[] {
  checkWindow(window);
  const out: number[] = [];
  for (let start = 0; start < values.length; start += window) {
    const chunk = values.slice(start, start + window);
    if (chunk.length === window || keepPartial) out.push(mean(chunk));
  }
  return out;
}

/**
 * Trailing mean: out[i] = mean(values[max(0, i−W+1) .. i]) (the first W−1 outputs average fewer values).
 * Recomputed per window rather than by a running sum, so no drift accumulates over long series.
 */
export function trailingMeans(values: readonly number[], window: number): number[] {
  checkWindow(window);
  return values.map((_, i) => mean(values.slice(Math.max(0, i - window + 1), i + 1)));
}
