// How long a queue will take on this machine, before it is queued: the measured wall time per training step of the
// runs already finished in this browser (the same preset's where there are any, else the same environment's), times
// each queued run's steps (SFT + teacher + student). The runs go one after another, so the queue's time is the sum.
// No finished run to measure: no estimate, and the form says so rather than guessing.
import type { ExperimentConfig } from '../../core/experiment/config';

/** A finished run as the estimate needs it. */
export interface MeasuredRun {
  preset: string;
  config: ExperimentConfig;
  wallSeconds: number;
}

export interface QueueEstimate {
  seconds: number;
  secondsPerStep: number;
  /** which runs the step time comes from, in words */
  basis: string;
}

/** Training steps of a run: its SFT, teacher (0 with a shipped teacher) and student steps. */
export const trainingSteps = (c: ExperimentConfig): number => c.sft.steps + c.teacher.steps + c.student.steps;

export function estimateQueue(
  preset: string,
  items: readonly { config: ExperimentConfig }[],
  finished: readonly MeasuredRun[],
): QueueEstimate | null {
  if (items.length === 0) return null;
  const env = items[0]!.config.env.name;
  const usable = finished.filter(
    (r) => Number.isFinite(r.wallSeconds) && r.wallSeconds > 0 && trainingSteps(r.config) > 0,
  );
  const samePreset = usable.filter((r) => r.preset === preset);
  const sameEnv = usable.filter((r) => r.config.env.name === env);
  const [basisRuns, what] =
    samePreset.length > 0 ? [samePreset, `${preset} run`] : sameEnv.length > 0 ? [sameEnv, `${env} run`] : [[], ''];
  if (basisRuns.length === 0) return null;
  const secondsPerStep =
    basisRuns.reduce((a, r) => a + r.wallSeconds, 0) / basisRuns.reduce((a, r) => a + trainingSteps(r.config), 0);
  const seconds = items.reduce((a, it) => a + secondsPerStep * trainingSteps(it.config), 0);
  const n = basisRuns.length;
  return {
    seconds,
    secondsPerStep,
    basis: `${(1000 * secondsPerStep).toFixed(0)} ms a step, measured over ${n} finished ${what}${n === 1 ? '' : 's'} in this browser`,
  };
}
