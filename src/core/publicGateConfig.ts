// The retirement gate's config under the public RetireOPD code's field names (its `RetireOPDConfig`), as a
// checkpoint's gate state stores it (gateStateSchema.ts). The one place the lab's names (gateConfig.ts) and the
// public names meet: the on-disk format stays the public code's, byte for byte, so a checkpoint written by either
// side reads the same.
import type { GateConfig, GateConfigField } from './gateConfig';

/** The public code's key of each lab field, in the public code's order (the order a checkpoint writes them in). */
export const PUBLIC_GATE_CONFIG_KEYS = {
  lambdaOpd: 'opd_coef',
  teacherPerformance: 'teacher_performance',
  windowSize: 'window_size',
  alignmentThreshold: 'alignment_threshold',
  competenceThreshold: 'competence_threshold',
  denominatorEpsilon: 'denominator_epsilon',
} as const satisfies Record<GateConfigField, string>;

export interface PublicGateConfig {
  readonly opd_coef: number;
  readonly teacher_performance: number;
  readonly window_size: number;
  readonly alignment_threshold: number;
  readonly competence_threshold: number;
  readonly denominator_epsilon: number;
}

/** The lab's config under the public names, keys in the public code's order. */
export function toPublicGateConfig(c: GateConfig): PublicGateConfig {
  return {
    opd_coef: c.lambdaOpd,
    teacher_performance: c.teacherPerformance,
    window_size: c.windowSize,
    alignment_threshold: c.alignmentThreshold,
    competence_threshold: c.competenceThreshold,
    denominator_epsilon: c.denominatorEpsilon,
  };
}

/** A public-named config (a checkpoint's, already shape-checked) under the lab's names. */
export function fromPublicGateConfig(p: PublicGateConfig): GateConfig {
  return {
    lambdaOpd: p.opd_coef,
    teacherPerformance: p.teacher_performance,
    windowSize: p.window_size,
    alignmentThreshold: p.alignment_threshold,
    competenceThreshold: p.competence_threshold,
    denominatorEpsilon: p.denominator_epsilon,
  };
}
