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
