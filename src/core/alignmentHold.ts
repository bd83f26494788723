// "Gap still shrinking while η ≥ γ": does the gate's alignment condition ever decide? Over one run's evaluated
// windows, count those where the student was already competent (η ≥ γ) but the teacher was kept only because the
// gap was still shrinking (ρ > δ), before the gate retired. When there are none, the adaptive gate retires exactly
// when a competence-only gate would, and the alignment condition made no difference on this run. The comparison is
// made both ways: from the evaluations themselves, and by replaying the same log (src/core/replay/gateReplay.ts)
// under `adaptive` and `competence-only` and comparing the trigger steps. Pure: runs in the page and in Node.
import { GATE_DEFAULTS, type GateConfig } from './gateConfig';
import type { EvaluationLine } from './replay/replayResult';
import type { LogSource } from './replay/logRecords';
import { replayGate, type ReplayOptions } from './replay/gateReplay';

/** The thresholds the windows are compared against (the run's own gate config). */
export type HoldThresholds = Pick<GateConfig, 'alignment_threshold' | 'competence_threshold'>;

export interface AlignmentHold {
  /** evaluated windows up to and including the one that retired (all of them when the gate never retired) */
  windows: number;
  /** of those, valid windows with η ≥ γ and ρ > δ: the teacher stayed only because the gap was still shrinking */
  keptByAlignment: number;
  /** the validation steps of those windows */
  keptSteps: number[];
}

/**
 * Windows where competence held but alignment kept the teacher, from the evaluation lines of a gate (a replay's
 * lines or a run's evaluation events) in step order. Windows after the first with `retired` are not counted: the
 * teacher had already gone.
 */
export function alignmentHold(evaluations: readonly EvaluationLine[], thresholds: HoldThresholds): AlignmentHold {
  let windows = 0;
  const keptSteps: number[] = [];
  for (const e of evaluations) {
    windows += 1;
    const rho = e.alignment_progress;
    const eta = e.competence_ratio;
    if (
      e.criterion_valid &&
      rho !== null &&
      eta !== null &&
      eta >= thresholds.competence_threshold &&
      rho > thresholds.alignment_threshold
    )
      keptSteps.push(e.step);
    if (e.retired) break;
  }
  return { windows, keptByAlignment: keptSteps.length, keptSteps };
}

/** One RetireOPD run's log replayed under the adaptive gate and a competence-only gate. */
export interface AlignmentDecision extends AlignmentHold {
  adaptiveTrigger: number | null;
  competenceOnlyTrigger: number | null;
  /** the triggers differ: the alignment condition decided something on this run */
  triggerDiffers: boolean;
}

/**
 * Replay one run's student log (metrics.jsonl) under `adaptive` and `competence-only` with the run's gate options
 * (gateReplay's defaults pick the gap and validation keys) and count the windows alignment alone held.
 * Throws what replayGate throws (a ReplayInputError naming FILE:LINE).
 */
export function alignmentDecision(sources: readonly LogSource[], options: ReplayOptions): AlignmentDecision {
  const adaptive = replayGate(sources, { ...options, schedule: 'adaptive' });
  const competence = replayGate(sources, { ...options, schedule: 'competence-only' });
  const hold = alignmentHold(adaptive.evaluations, {
    alignment_threshold: options.gate.alignment_threshold ?? GATE_DEFAULTS.alignment_threshold,
    competence_threshold: options.gate.competence_threshold ?? GATE_DEFAULTS.competence_threshold,
  });
  const adaptiveTrigger = adaptive.summary.trigger_step;
  const competenceOnlyTrigger = competence.summary.trigger_step;
  return { ...hold, adaptiveTrigger, competenceOnlyTrigger, triggerDiffers: adaptiveTrigger !== competenceOnlyTrigger };
}
