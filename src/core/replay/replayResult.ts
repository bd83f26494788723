// What a replay produces: one line per evaluated window, then a summary; and how those lines are printed.
import type { GatedScheduleKind } from '../methodVocabulary';
import type { GateEvidence } from '../retirementGate';

export interface EvaluationLine {
  readonly type: 'evaluation';
  readonly step: number;
  readonly window_index: number;
  readonly k_window_mean: number | null;
  readonly alignment_progress: number | null;
  readonly competence_ratio: number | null;
  readonly criterion_valid: boolean;
  readonly retired: boolean;
  readonly window_end_step: number;
  readonly student_performance: number;
}

export interface SummaryLine {
  readonly type: 'summary';
  readonly retired: boolean;
  readonly trigger_step: number | null;
  /** Completed windows of W gaps. */
  readonly windows: number;
  /** Windows evaluated by a validation. */
  readonly evaluations: number;
  /** Training steps after the trigger: teacher forward passes a retiring run would not have made. */
  readonly teacher_forward_steps_saved: number;
  /** the gate schedule replayed (gateReplay's ReplaySchedule) */
  readonly schedule: GatedScheduleKind;
  readonly format: string;
  readonly gap_key: string;
  readonly val_key: string;
  /** Training steps (steps with a gap) and validations in the log. */
  readonly steps: number;
  readonly validations: number;
  /** Present only when the log carries retire_opd/trigger_step: the run's own trigger (null: never retired). */
  readonly log_trigger_step?: number | null;
  readonly agrees_with_log?: boolean;
  /** Present once a window was evaluated: what the decision compared — the evaluation that retired the teacher, else
   *  the latest — and how old its window was (windowCadence.ts words it). */
  readonly evidence?: GateEvidence;
  /** Present only when > 0: gaps the replay needed but the log holds only as post-retirement placeholders. */
  readonly placeholder_gaps_ignored?: number;
  /** Present only when not empty: things about the input the user should know (also printed on stderr). */
  readonly warnings?: string[];
}

export interface ReplayResult {
  readonly evaluations: EvaluationLine[];
  readonly summary: SummaryLine;
}

/** The replay's stdout: one JSON line per evaluation, then the summary. */
export function replayLines(result: ReplayResult): string[] {
  return [...result.evaluations, result.summary].map((line) => JSON.stringify(line));
}

/** The same lines, joined into blocks of about `blockChars` characters each ending in a newline (for printing a
 *  long replay without building one huge string). */
export function* replayTextBlocks(result: ReplayResult, blockChars = 1 << 16): Generator<string> {
  let block = '';
  for (const line of [...result.evaluations, result.summary]) {
    block += `${JSON.stringify(line)}\n`;
    if (block.length >= blockChars) {
      yield block;
      block = '';
    }
  }
  if (block !== '') yield block;
}
