// Where a training step's time goes: the phase timings a step line carries (seconds per step, metricKeys.ts
// time/*_s) and their averages over a run, which the run view draws as a stacked bar. Pure: no clocks here, the
// trainer measures and passes milliseconds.
import { METRIC } from './metricKeys';

/** the measured phases of one training step, in ms (0 for a phase the step did not run) */
export interface PhaseMs {
  rollout: number;
  teacherForward: number;
  update: number;
  validation: number;
  checkpoint: number;
}

export const PHASES = ['rollout', 'teacherForward', 'update', 'validation', 'checkpoint'] as const;
export type Phase = (typeof PHASES)[number];

/** each phase's metric key (seconds per step) */
export const PHASE_KEYS: Readonly<Record<Phase, string>> = {
  rollout: METRIC.timeRolloutS,
  teacherForward: METRIC.timeTeacherForwardS,
  update: METRIC.timeUpdateS,
  validation: METRIC.timeValidationS,
  checkpoint: METRIC.timeCheckpointS,
};

/**
 * The step line's timing fields: every phase in seconds, and throughput over the step's whole wall time `totalMs`
 * (all phases plus what no phase covers): sampled tokens per second and steps per second.
 */
export function phaseMetrics(p: PhaseMs, totalMs: number, sampledTokens: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const phase of PHASES) out[PHASE_KEYS[phase]] = p[phase] / 1000;
  const seconds = totalMs / 1000;
  out[METRIC.timeTokensPerS] = seconds > 0 ? sampledTokens / seconds : 0;
  out[METRIC.timeStepsPerS] = seconds > 0 ? 1 / seconds : 0;
  return out;
}

/** mean seconds per step of each phase over the lines that carry phase timings; null when none does */
export function meanPhaseSeconds(lines: readonly Record<string, unknown>[]): Record<Phase, number> | null {
  const sum: Record<Phase, number> = { rollout: 0, teacherForward: 0, update: 0, validation: 0, checkpoint: 0 };
  let n = 0;
  for (const line of lines) {
    if (typeof line[PHASE_KEYS.update] !== 'number') continue;
    n++;
    for (const phase of PHASES) {
      const v = line[PHASE_KEYS[phase]];
      if (typeof v === 'number' && Number.isFinite(v)) sum[phase] += v;
    }
  }
  if (n === 0) return null;
  for (const phase of PHASES) sum[phase] /= n;
  return sum;
}
