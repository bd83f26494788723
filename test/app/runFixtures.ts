// Small, hand-written trainer events and configs for the run store and reducer tests.
import { DEFAULT_CONFIG, type ExperimentConfig } from '../../src/core/experiment/config';
import type { RunSummary } from '../../src/core/experiment/summary';
import type { GateEvaluation } from '../../src/core/retirementGate';
import type { TrainerEvent } from '../../src/engine/trainer/events';
import type { WorkerResponse } from '../../src/app/worker/protocol';

export const CONFIG: ExperimentConfig = { ...DEFAULT_CONFIG, name: 'unit', seed: 3 };

export function summary(status: RunSummary['status'], triggerStep: number | null = null): RunSummary {
  return {
    name: 'unit',
    seed: 3,
    env: 'shell',
    schedule: 'adaptive',
    estimator: 'k3',
    lambdaObs: 1,
    status,
    error: status === 'failed' ? 'non-finite opd at student step 4: opd loss = NaN' : null,
    sft: null,
    teacherPerformance: 0.5,
    gate: {
      retired: triggerStep !== null,
      triggerStep,
      teacherForwardRun: 10,
      teacherForwardSkipped: triggerStep === null ? 0 : 10,
      tokensAtRetirement: null,
      envStepsAtRetirement: null,
    },
    validation: null,
    test: {
      successRate: 0.25,
      rewardMean: 0.3,
      passAtK: { '1': 0.25 },
      entropyByClass: { actionHead: 1, actionArg: 2 },
      klFromInit: 0.1,
    },
    temperatureControl: [],
    probeEntropy: null,
    matchedTemperature: null,
    stepMs: { beforeRetirement: 100, afterRetirement: 60 },
    wallSeconds: 12.5,
    backend: 'wasm',
  };
}

export function evaluation(step: number, progress: number, competence: number, retired = false): GateEvaluation {
  return {
    step,
    window_index: step / 5,
    window_end_step: step,
    k_window_mean: 0.1,
    student_performance: 0.4,
    alignment_progress: progress,
    competence_ratio: competence,
    criterion_valid: Number.isFinite(progress),
    retired,
    triggered: retired,
  };
}

export const studentStep = (step: number, success: number): TrainerEvent => ({
  type: 'step',
  stage: 'student',
  step,
  totalSteps: 20,
  metrics: { step, 'rollout/success_rate': success, 'actor/entropy': 1.5 - step / 100 },
});

export const ev = (id: number, event: TrainerEvent): WorkerResponse => ({ type: 'events', id, events: [event] });

/** A short run from SFT to the end: one of every trainer event the run log folds (the detail, a skipped stage, a
 * window, a gate evaluation that retires, a checkpoint, a warning, the summary). */
export const RUN_EVENTS: TrainerEvent[] = [
  { type: 'stage', stage: 'sft', status: 'start', totalSteps: 2, detail: 'ActObs, λ_obs 1' },
  { type: 'step', stage: 'sft', step: 1, totalSteps: 2, metrics: { step: 1, 'sft/loss': 3 } },
  { type: 'step', stage: 'sft', step: 2, totalSteps: 2, metrics: { step: 2, 'sft/loss': 2 } },
  { type: 'stage', stage: 'sft', status: 'end', totalSteps: 2 },
  { type: 'stage', stage: 'teacher', status: 'skipped', totalSteps: 0 },
  { type: 'stage', stage: 'student', status: 'start', totalSteps: 20 },
  studentStep(1, 0.25),
  { type: 'window', step: 5, window: { end_step: 5, mean: 0.4 } },
  { type: 'evaluation', kind: 'gate', step: 10, evaluation: evaluation(10, 0.2, 0.9, true) },
  { type: 'retirement', step: 10, triggerStep: 10, schedule: 'adaptive', teacherPerformance: 0.5 },
  { type: 'checkpoint', name: 'student-000010', stage: 'student', step: 10, reason: 'periodic' },
  studentStep(11, 0.5),
  { type: 'warning', message: 'slow step' },
  { type: 'done', summary: summary('completed', 10) },
];
