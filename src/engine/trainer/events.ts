// What the trainer tells the outside world. The trainer never touches a terminal or a UI: the CLI turns these
// events into a progress bar and files, the browser worker posts them to the page. Plain JSON-serialisable data.
import type { GateEvaluation, GateWindow } from '../../core/retirementGate';
import type { PolicyEvaluation, RunSummary } from '../../core/experiment/summary';

import type { StageName } from '../../core/runLog/checkpointName';

/** The pipeline's stages, in order (docs/METHODS.md §1, §5, §4, §6). */
export { STAGE_NAMES, type StageName } from '../../core/runLog/checkpointName';

/** One flat metrics line: what a metrics.jsonl line holds (`step` plus docs/METHODS.md metric keys). */
export type MetricsLine = { step: number } & Record<string, number>;

export type TrainerEvent =
  | { type: 'stage'; stage: StageName; status: 'start' | 'end' | 'skipped'; totalSteps: number; detail?: string }
  /** one training step's metrics; `stage` says which log it belongs to (student steps go to metrics.jsonl) */
  | { type: 'step'; stage: StageName; step: number; totalSteps: number; metrics: MetricsLine }
  | { type: 'window'; step: number; window: GateWindow }
  | { type: 'evaluation'; kind: 'gate'; step: number; evaluation: GateEvaluation }
  | { type: 'evaluation'; kind: 'final'; result: PolicyEvaluation }
  | { type: 'retirement'; step: number; triggerStep: number; schedule: string; teacherPerformance: number }
  | { type: 'checkpoint'; name: string; stage: StageName; step: number; reason: 'periodic' | 'stage-end' | 'interrupt' }
  | { type: 'warning'; message: string }
  | { type: 'error'; message: string; stage: StageName; step: number; term: string | null }
  | { type: 'done'; summary: RunSummary };

export type TrainerEventSink = (event: TrainerEvent) => void;

/**
 * A run that must stop: a non-finite loss or gradient. `term` names the loss term (e.g. "opd", "grpo",
 * "gradient"), `step` the training step of `stage`.
 */
export class NonFiniteError extends Error {
  constructor(
    readonly stage: StageName,
    readonly step: number,
    readonly term: string,
    detail: string,
  ) {
    super(`non-finite ${term} at ${stage} step ${step}: ${detail}`);
    this.name = 'NonFiniteError';
  }
}
