// How long the running stage of one run has left: its remaining steps times the mean wall time of its most recent
// steps (each step line's time/steps_per_s is 1 / the step's whole wall time, validation and checkpoint included,
// pauses excluded). Only the running stage is estimated from its own steps: an SFT step says nothing about a
// student step, so a later stage is named with its step count, not guessed. Pure: the trainer measured the times.
import { METRIC } from './metricKeys';
import type { TrainedStage } from './runLogFold';
import type { MetricsLine } from './trainerEvent';

/** steps averaged: enough to span a few validation steps (every 5–10 steps in the presets), recent enough to follow */
export const ETA_WINDOW = 20;
/** fewer measured steps than this: no estimate yet (the first steps compile kernels and warm caches) */
export const ETA_MIN_STEPS = 3;

export interface RunEta {
  /** seconds left in the running stage */
  stageSeconds: number;
  /** mean wall seconds per step over `measuredSteps` recent steps */
  secondsPerStep: number;
  measuredSteps: number;
  /** stages still to come after the running one, with their step counts (not estimated) */
  laterStages: { stage: TrainedStage; steps: number }[];
}

/** one step's wall seconds from its line, or null where the line carries no usable timing */
function stepSeconds(line: MetricsLine): number | null {
  const perS = line[METRIC.timeStepsPerS];
  return typeof perS === 'number' && Number.isFinite(perS) && perS > 0 ? 1 / perS : null;
}

/**
 * The running stage's remaining time. `stage`/`step`/`totalSteps`: the run's position; `lines`: that stage's step
 * lines so far; `stageSteps`: every trained stage's configured steps (0 for a skipped stage, e.g. a shipped teacher).
 * Null before ETA_MIN_STEPS timed steps, or outside a trained stage.
 */
export function runEta(
  stage: TrainedStage,
  step: number,
  totalSteps: number,
  lines: readonly MetricsLine[],
  stageSteps: Readonly<Record<TrainedStage, number>>,
): RunEta | null {
  const recent: number[] = [];
  for (let i = lines.length - 1; i >= 0 && recent.length < ETA_WINDOW; i--) {
    const s = stepSeconds(lines[i]!);
    if (s !== null) recent.push(s);
  }
  if (recent.length < ETA_MIN_STEPS) return null;
  const secondsPerStep = recent.reduce((a, s) => a + s, 0) / recent.length;
  const order: TrainedStage[] = ['sft', 'teacher', 'student'];
  const laterStages = order
    .slice(order.indexOf(stage) + 1)
    .filter((s) => stageSteps[s] > 0)
    .map((s) => ({ stage: s, steps: stageSteps[s] }));
  return {
    stageSeconds: Math.max(0, totalSteps - step) * secondsPerStep,
    secondsPerStep,
    measuredSteps: recent.length,
    laterStages,
  };
}

/** "40 s", "3 min", "1 h 5 min": rounded as a person reads a countdown */
export function durationWords(seconds: number): string {
  if (!(seconds >= 0) || !Number.isFinite(seconds)) return '—';
  if (seconds < 60) return `${Math.max(1, Math.round(seconds / 5) * 5)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
