// The run's summary.json: what the run was, how it ended, and its results (SFT probes, S_T, the gate's decision
// and the teacher forwards it saved, validation, the evaluation stage's test results, step times). The same shape
// for completed, interrupted and failed runs; results a run did not reach are null / NaN.
import type { ExperimentConfig } from '../../core/experiment/config';
import type { LambdaSchedule } from '../../core/lambdaSchedule';
import type { PolicyEvaluation, RunSummary } from '../../core/experiment/summary';
import type { EvaluationStageResult } from './stages/evaluation';
import type { TrainerState } from './trainerState';

export interface SummaryInput {
  /** this session's config (a resumed run may differ from its checkpoint's in runtime keys) */
  config: ExperimentConfig;
  state: TrainerState;
  schedule: LambdaSchedule | null;
  status: RunSummary['status'];
  error: string | null;
  evaluation: EvaluationStageResult | null;
  /** wall seconds of the whole run, earlier sessions of a resumed run included */
  wallSeconds: number;
}

const NO_TEST: PolicyEvaluation = {
  successRate: NaN,
  rewardMean: NaN,
  passAtK: {},
  entropyByClass: { actionHead: NaN, actionArg: NaN },
  klFromInit: NaN,
};

export function runSummary({
  config: cfg,
  state,
  schedule: s,
  status,
  error,
  evaluation,
  wallSeconds,
}: SummaryInput): RunSummary {
  const c = state.counters;
  return {
    name: cfg.name,
    seed: cfg.seed,
    env: cfg.env.name,
    schedule: cfg.student.schedule,
    estimator: cfg.student.estimator,
    lambdaObs: cfg.sft.lambdaObs,
    status,
    error,
    sft: state.sft
      ? {
          observationCeBase: state.sft.observationCeBase,
          observationCe: state.sft.observationCe,
          actionCe: state.sft.actionCe,
          gradientCosineLast: state.sft.gradientCosineLast,
        }
      : null,
    teacherPerformance: state.teacherPerformance,
    gate: {
      retired: s?.retired ?? false,
      triggerStep: s?.triggerStep ?? null,
      teacherForwardRun: c.teacherForwardRun,
      teacherForwardSkipped: s?.gate.teacherForwardSkipped ?? 0,
      tokensAtRetirement: c.tokensAtRetirement,
      envStepsAtRetirement: c.envStepsAtRetirement,
    },
    validation: c.validationLast === null ? null : { best: c.validationBest ?? NaN, last: c.validationLast },
    test: evaluation?.test ?? NO_TEST,
    temperatureControl: evaluation?.temperatureControl ?? [],
    probeEntropy: evaluation?.probeEntropy ?? null,
    matchedTemperature: evaluation?.matchedTemperature ?? null,
    misleadingFacts: evaluation?.misleadingFacts ?? [],
    stepMs: {
      beforeRetirement: c.stepsBefore ? c.msBefore / c.stepsBefore : null,
      afterRetirement: c.stepsAfter ? c.msAfter / c.stepsAfter : null,
    },
    wallSeconds,
    backend: cfg.runtime.backend,
  };
}
