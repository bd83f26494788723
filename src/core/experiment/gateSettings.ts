// The retirement gate's settings (the public code's field names, gateConfig.ts) of an experiment config: the
// student stage's gate keys, λ_opd, and the teacher's measured S_T. One mapping, used by the student stage that
// builds the gate and by the resume check that compares a checkpoint's gate against its config.
import type { GateConfig } from '../gateConfig';
import type { ExperimentConfig } from './config';

/** `teacherPerformance`: S_T as measured (null before the teacher stage ends, or when no teacher runs: then 1). */
export function gateConfigFor(cfg: ExperimentConfig, teacherPerformance: number | null): GateConfig {
  const g = cfg.student.gate;
  return {
    opd_coef: cfg.student.lambdaOpd,
    teacher_performance: teacherPerformance ?? 1,
    window_size: g.windowSize,
    alignment_threshold: g.alignmentThreshold,
    competence_threshold: g.competenceThreshold,
    denominator_epsilon: g.denominatorEpsilon,
  };
}
