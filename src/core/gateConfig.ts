// Configuration of the RetireOPD retirement gate (docs/METHODS.md §4), validated with zod. Field names are the lab's
// (the experiment config's `student.lambdaOpd` and `student.gate.*`, gateSettings.ts); the public RetireOPD code's
// snake_case names (`RetireOPDConfig`) live only in publicGateConfig.ts, at the checkpoint boundary.
import { z } from 'zod';

export interface GateConfig {
  /** λ_opd while the teacher is active (≥ 0); becomes 0 at retirement. */
  readonly lambdaOpd: number;
  /** S_T: the teacher's validation score on the same split and metric as the student's (> 0). */
  readonly teacherPerformance: number;
  /** W: training steps per non-overlapping window of K values (positive integer). */
  readonly windowSize: number;
  /** δ: retire only when the alignment progress ρ ≤ δ (the gap stopped shrinking). */
  readonly alignmentThreshold: number;
  /** γ: retire only when the competence ratio η ≥ γ (≥ 0). */
  readonly competenceThreshold: number;
  /** ε: ρ is computed only when |previous window mean| > ε (≥ 0). */
  readonly denominatorEpsilon: number;
}

/** Input accepted by `parseGateConfig`: `teacherPerformance` and `lambdaOpd` have no default, the rest do. */
export type GateConfigInput = Pick<GateConfig, 'lambdaOpd' | 'teacherPerformance'> &
  Partial<Omit<GateConfig, 'lambdaOpd' | 'teacherPerformance'>>;

export const GATE_DEFAULTS = {
  windowSize: 5,
  alignmentThreshold: 0,
  competenceThreshold: 0.9,
  denominatorEpsilon: 1e-8,
} as const satisfies Partial<GateConfig>;

/** Every field, in the order the public code's config lists them (the checkpoint's key order). */
export const GATE_CONFIG_FIELDS = [
  'lambdaOpd',
  'teacherPerformance',
  'windowSize',
  'alignmentThreshold',
  'competenceThreshold',
  'denominatorEpsilon',
] as const satisfies readonly (keyof GateConfig)[];

export type GateConfigField = (typeof GATE_CONFIG_FIELDS)[number];

/**
 * A user-actionable configuration error. `field` names the offending key (a GateConfigField, an unknown key, or
 * 'config' for a non-object); `requirement` is the rest of the sentence ("must be a positive integer (got 2.5)"), so
 * a caller can put the name the user typed (a CLI flag, a form label) in front of it.
 */
export class GateConfigError extends Error {
  constructor(
    readonly field: string,
    readonly requirement: string,
  ) {
    super(`gate config: ${field} ${requirement}`);
    this.name = 'GateConfigError';
  }
}

// Each field: what a valid value is, in words used verbatim in the error message.
const finite = (what: string) => z.number({ error: `must be ${what}` });
const schema = z.strictObject({
  lambdaOpd: finite('a finite number ≥ 0').min(0, { error: 'must be a finite number ≥ 0' }),
  teacherPerformance: finite('a finite number > 0').gt(0, { error: 'must be a finite number > 0' }),
  windowSize: finite('a positive integer')
    .int({ error: 'must be a positive integer' })
    .min(1, { error: 'must be a positive integer' })
    .default(GATE_DEFAULTS.windowSize),
  alignmentThreshold: finite('a finite number').default(GATE_DEFAULTS.alignmentThreshold),
  competenceThreshold: finite('a finite number ≥ 0')
    .min(0, { error: 'must be a finite number ≥ 0' })
    .default(GATE_DEFAULTS.competenceThreshold),
  denominatorEpsilon: finite('a finite number ≥ 0')
    .min(0, { error: 'must be a finite number ≥ 0' })
    .default(GATE_DEFAULTS.denominatorEpsilon),
});

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value === undefined) return 'nothing';
  return JSON.stringify(value) ?? String(value);
}

/**
 * Validate a gate configuration and fill in the defaults. Throws a GateConfigError naming the first bad field:
 * non-finite numbers, S_T ≤ 0, non-integer or non-positive W, γ < 0, λ_opd < 0, ε < 0, or an unknown key.
 */
export function parseGateConfig(input: unknown): GateConfig {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue === undefined) throw new GateConfigError('config', 'is invalid');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '?';
    throw new GateConfigError(key, `is not a gate setting (expected one of ${GATE_CONFIG_FIELDS.join(', ')})`);
  }
  const field = issue.path[0];
  if (field === undefined) throw new GateConfigError('config', `must be an object, got ${describe(input)}`);
  const got = (input as Record<string, unknown>)[String(field)];
  throw new GateConfigError(String(field), `${issue.message} (got ${describe(got)})`);
}

/**
 * Field-by-field differences `a` → `b`, formatted "windowSize 5 ≠ 3" (each field named by `nameOf`, e.g. the
 * checkpoint's key); empty when the configs match.
 */
export function gateConfigDifferences(
  a: GateConfig,
  b: GateConfig,
  nameOf: (field: GateConfigField) => string = (field) => field,
): string[] {
  return GATE_CONFIG_FIELDS.filter((field) => a[field] !== b[field]).map(
    (field) => `${nameOf(field)} ${a[field]} ≠ ${b[field]}`,
  );
}
