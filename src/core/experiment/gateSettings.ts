// The retirement gate's settings (GateConfig, gateConfig.ts: the same names as the config keys) of an experiment config: the
// student stage's gate keys, λ_opd, and the teacher's measured S_T. One mapping, used by the student stage that
// builds the gate and by the resume check that compares a checkpoint's gate against its config.
import type { GateConfig } from '../gateConfig';
import type { ExperimentConfig } from './config';

/** `teacherPerformance`: S_T as measured (null before the teacher stage ends, or when no teacher runs: then 1). */
export function gateConfigFor(cfg: ExperimentConfig, teacherPerformance: number | null): GateConfig {
  const g = cfg.student.gate;
  return {
    lambdaOpd: cfg.student.lambdaOpd,
    teacherPerformance: teacherPerformance ?? 1,
    windowSize: g.windowSize,
    alignmentThreshold: g.alignmentThreshold,
    competenceThreshold: g.competenceThreshold,
    denominatorEpsilon: g.denominatorEpsilon,
  };
}
