// The arithmetic mean used for the retirement gate's window means (retirementGate.ts, docs/METHODS.md §4) and for
// GRPO's group baselines (grpoAdvantages.ts, docs/METHODS.md §2). One definition, so both sum in the same order.

/** Arithmetic mean, summed left to right (the same float result as Python's `sum(xs) / len(xs)`); NaN if empty. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}
