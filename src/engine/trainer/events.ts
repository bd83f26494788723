// What the trainer tells the outside world (the event types live in core/runLog/trainerEvent.ts, beside the fold
// that reads them), and the error a run stops with. The trainer never touches a terminal or a UI.
import type { StageName } from '../../core/runLog/checkpointName';
import type { TrainerEvent } from '../../core/runLog/trainerEvent';

/** The pipeline's stages, in order (docs/METHODS.md §1, §5, §4, §6). */
export { STAGE_NAMES, type StageName } from '../../core/runLog/checkpointName';
export type { MetricsLine, TrainerEvent } from '../../core/runLog/trainerEvent';

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
