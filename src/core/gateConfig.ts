// Configuration of the RetireOPD retirement gate (docs/METHODS.md §4), validated with zod.
// Field names are the public code's (`RetireOPDConfig`) so that a checkpoint written by either side reads the same.
import { z } from 'zod';

export interface GateConfig {
  /** λ_opd while the teacher is active (≥ 0); becomes 0 at retirement. */
  readonly opd_coef: number;
  /** S_T: the teacher's validation score on the same split and metric as the student's (> 0). */
  readonly teacher_performance: number;
  /** W: training steps per non-overlapping window of K values (positive integer). */
  readonly window_size: number;
  /** δ: retire only when the alignment progress ρ ≤ δ (the gap stopped shrinking). */
  readonly alignment_threshold: number;
  /** γ: retire only when the competence ratio η ≥ γ (≥ 0). */
  readonly competence_threshold: number;
  /** ε: ρ is computed only when |previous window mean| > ε (≥ 0). */
  readonly denominator_epsilon: number;
}

/** Input accepted by `parseGateConfig`: `teacher_performance` and `opd_coef` have no default, the rest do. */
export type GateConfigInput = Pick<GateConfig, 'opd_coef' | 'teacher_performance'> &
  Partial<Omit<GateConfig, 'opd_coef' | 'teacher_performance'>>;

export const GATE_DEFAULTS = {
  window_size: 5,
  alignment_threshold: 0,
  competence_threshold: 0.9,
  denominator_epsilon: 1e-8,
} as const satisfies Partial<GateConfig>;

export const GATE_CONFIG_FIELDS = [
  'opd_coef',
  'teacher_performance',
  'window_size',
  'alignment_threshold',
  'competence_threshold',
  'denominator_epsilon',
] as const satisfies readonly (keyof GateConfig)[];

export type GateConfigField = (typeof GATE_CONFIG_FIELDS)[number];

/** A user-actionable configuration error; `field` names the offending key. */
export class GateConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'GateConfigError';
  }
}

// Each field: what a valid value is, in words used verbatim in the error message.
const finite = (what: string) => z.number({ error: `must be ${what}` });
const schema = z.strictObject({
  opd_coef: finite('a finite number ≥ 0').min(0, { error: 'must be a finite number ≥ 0' }),
  teacher_performance: finite('a finite number > 0').gt(0, { error: 'must be a finite number > 0' }),
  window_size: finite('a positive integer')
    .int({ error: 'must be a positive integer' })
    .min(1, { error: 'must be a positive integer' })
    .default(GATE_DEFAULTS.window_size),
  alignment_threshold: finite('a finite number').default(GATE_DEFAULTS.alignment_threshold),
  competence_threshold: finite('a finite number ≥ 0')
    .min(0, { error: 'must be a finite number ≥ 0' })
    .default(GATE_DEFAULTS.competence_threshold),
  denominator_epsilon: finite('a finite number ≥ 0')
    .min(0, { error: 'must be a finite number ≥ 0' })
    .default(GATE_DEFAULTS.denominator_epsilon),
});

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value === undefined) return 'nothing';
  return JSON.stringify(value) ?? String(value);
}

/**
 * Validate a gate configuration and fill in the defaults. Throws a GateConfigError naming the first bad field:
 * non-finite numbers, S_T ≤ 0, non-integer or non-positive W, γ < 0, opd_coef < 0, ε < 0, or an unknown key.
 */
export function parseGateConfig(input: unknown): GateConfig {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue === undefined) throw new GateConfigError('config', 'gate config is invalid');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '?';
    throw new GateConfigError(
      key,
      `gate config: unknown key "${key}" (expected one of ${GATE_CONFIG_FIELDS.join(', ')})`,
    );
  }
  const field = issue.path[0];
  if (field === undefined) throw new GateConfigError('config', `gate config must be an object, got ${describe(input)}`);
  const got = (input as Record<string, unknown>)[String(field)];
  throw new GateConfigError(String(field), `gate config: ${String(field)} ${issue.message} (got ${describe(got)})`);
}

/** Field-by-field differences `a` → `b`, formatted "window_size 5 ≠ 3"; empty when the configs match. */
export function gateConfigDifferences(a: GateConfig, b: GateConfig): string[] {
  return GATE_CONFIG_FIELDS.filter((field) => a[field] !== b[field]).map(
    (field) => `${field} ${a[field]} ≠ ${b[field]}`,
  );
}
