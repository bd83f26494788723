// The shape of a retirement-gate checkpoint (GateState in retirementGate.ts), for validating what is read back, and
// the invariants the gate's own output always satisfies (so a hand-edited state whose manifest was recomputed is
// refused instead of being resumed into an impossible run). The keys are the public RetireOPD code's (snake_case,
// the config's too: publicGateConfig.ts maps them to the lab's names), the on-disk format of a checkpoint.
import { z } from 'zod';

const finite = z.number();
const finiteOrNull = finite.nullable();

export const gateStateSchema = z.strictObject({
  version: z.literal(1),
  rule: z.enum(['alignment-and-competence', 'alignment-only', 'competence-only', 'observe-only']),
  config: z.strictObject({
    opd_coef: finite,
    teacher_performance: finite,
    window_size: z.number().int(),
    alignment_threshold: finite,
    competence_threshold: finite,
    denominator_epsilon: finite,
  }),
  opd_coef: finite.min(0),
  pending_k_values: z.array(finite),
  completed_windows: z.array(z.strictObject({ end_step: z.number().int(), mean: finite })),
  num_evaluated_windows: z.number().int().min(0),
  previous_window_mean: finiteOrNull,
  previous_performance: finiteOrNull,
  retired: z.boolean(),
  trigger_step: z.number().int().nullable(),
  teacher_forward_skipped: z.number().int().min(0),
  last: z.strictObject({
    k_step: finiteOrNull,
    student_performance: finiteOrNull,
    alignment_progress: finiteOrNull,
    competence_ratio: finiteOrNull,
    criterion_valid: z.boolean(),
  }),
});

/** The fields of a gate state (GateState in retirementGate.ts) the invariants read. */
interface GateStateFields {
  readonly rule: string;
  readonly config: { readonly window_size: number; readonly opd_coef: number };
  readonly opd_coef: number;
  readonly pending_k_values: readonly number[];
  readonly completed_windows: readonly { readonly end_step: number }[];
  readonly num_evaluated_windows: number;
  readonly retired: boolean;
  readonly trigger_step: number | null;
}

/**
 * What is impossible in a well-shaped gate state, in words, or null. A window holds W gaps of distinct steps ≥ 1, so
 * window j (1-based) ends at step ≥ j·W, later than window j − 1; the gate retires only at a validation that
 * evaluates its second window or a later one (P needs the previous window), so a trigger step lies at or after the
 * end of the second window (≥ 2W); retired ⇔ a trigger step; a retired gate's λ is 0, an active one's the config's.
 */
export function gateStateProblem(s: GateStateFields): string | null {
  const w = s.config.window_size;
  if (s.num_evaluated_windows > s.completed_windows.length) {
    return `${s.num_evaluated_windows} windows evaluated but only ${s.completed_windows.length} completed`;
  }
  if (s.pending_k_values.length >= w) return `${s.pending_k_values.length} pending gaps, a full window is W = ${w}`;
  let previous = 0;
  for (const [i, window] of s.completed_windows.entries()) {
    if (window.end_step < (i + 1) * w || window.end_step <= previous) {
      return `window ${i + 1} ends at step ${window.end_step}, before it can hold ${w} gaps of its own (W = ${w})`;
    }
    previous = window.end_step;
  }
  if (s.retired !== (s.trigger_step !== null)) {
    return s.retired ? 'retired without a trigger step' : `a trigger step (${s.trigger_step}) without being retired`;
  }
  if (s.trigger_step !== null) {
    const second = s.completed_windows[1];
    if (s.rule === 'observe-only') return 'an observe-only gate never retires, yet this one did';
    if (s.num_evaluated_windows < 2 || second === undefined) {
      return `retired after ${s.num_evaluated_windows} evaluated window(s): the criterion needs two`;
    }
    if (s.trigger_step < second.end_step) {
      return (
        `trigger step ${s.trigger_step} is before the earliest step the gate can retire at ` +
        `(${second.end_step}: the end of its second window; W = ${w})`
      );
    }
    if (s.opd_coef !== 0) return `retired, yet λ_opd is ${s.opd_coef} (0 after retirement)`;
  } else if (s.opd_coef !== s.config.opd_coef) {
    return `active, yet λ_opd is ${s.opd_coef} (the config's ${s.config.opd_coef} until retirement)`;
  }
  return null;
}
