// The shape of a retirement-gate checkpoint (GateState in retirementGate.ts), for validating what is read back.
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
