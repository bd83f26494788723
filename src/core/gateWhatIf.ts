// What-if of the retirement gate: re-run the very replay `npm run replay` runs (src/core/replay/gateReplay.ts) over
// the same log with other thresholds, window or schedule rule, and compare the trigger step and the teacher forward
// passes saved with the original. Also the sensitivity strip: the trigger step over a grid of δ × γ (the paper's
// robustness claim: the trigger moves only a few steps over wide ranges). Pure: runs in the page and in Node.
import type { LogSource } from './replay/logRecords';
import { replayGate, type ReplayOptions } from './replay/gateReplay';

export interface GateOutcome {
  readonly retired: boolean;
  /** the validation step that retired the teacher, or null */
  readonly triggerStep: number | null;
  /** training steps after the trigger: teacher forward passes not run */
  readonly teacherForwardsSaved: number;
  readonly evaluations: number;
}

export interface WhatIfComparison {
  readonly original: GateOutcome;
  readonly changed: GateOutcome;
  /** changed − original trigger step; null when either never retires */
  readonly triggerShift: number | null;
  /** changed − original teacher forwards saved */
  readonly savedShift: number;
}

/** The gate's outcome on a log with these options (exactly the CLI's replay). Throws what replayGate throws. */
export function gateOutcome(sources: readonly LogSource[], options: ReplayOptions): GateOutcome {
  const { summary } = replayGate(sources, options);
  return {
    retired: summary.retired,
    triggerStep: summary.trigger_step,
    teacherForwardsSaved: summary.teacher_forward_steps_saved,
    evaluations: summary.evaluations,
  };
}

export function compareOutcomes(original: GateOutcome, changed: GateOutcome): WhatIfComparison {
  return {
    original,
    changed,
    triggerShift:
      original.triggerStep === null || changed.triggerStep === null ? null : changed.triggerStep - original.triggerStep,
    savedShift: changed.teacherForwardsSaved - original.teacherForwardsSaved,
  };
}

/** Default grid of the sensitivity strip: δ around 0, γ over a wide range. */
const DEFAULT_DELTAS = [-0.1, -0.05, 0, 0.05, 0.1, 0.2] as const;
const DEFAULT_GAMMAS = [0.5, 0.6, 0.7, 0.8, 0.9, 1] as const;

export interface SensitivityGrid {
  readonly deltas: readonly number[];
  readonly gammas: readonly number[];
  /** triggerSteps[i][j]: the trigger step with δ = deltas[i], γ = gammas[j] (null: never retires) */
  readonly triggerSteps: readonly (readonly (number | null)[])[];
  /** max − min trigger step over the cells that retire; null when fewer than one retires */
  readonly spread: number | null;
  /** cells that retire / all cells */
  readonly retiringCells: number;
}

/** The trigger step over δ × γ, every other option as given. */
export function sensitivityGrid(
  sources: readonly LogSource[],
  options: ReplayOptions,
  deltas: readonly number[] = DEFAULT_DELTAS,
  gammas: readonly number[] = DEFAULT_GAMMAS,
): SensitivityGrid {
  const triggerSteps = deltas.map((delta) =>
    gammas.map(
      (gamma) =>
        gateOutcome(sources, {
          ...options,
          gate: { ...options.gate, alignmentThreshold: delta, competenceThreshold: gamma },
        }).triggerStep,
    ),
  );
  const fired = triggerSteps.flat().filter((t): t is number => t !== null);
  return {
    deltas,
    gammas,
    triggerSteps,
    spread: fired.length === 0 ? null : Math.max(...fired) - Math.min(...fired),
    retiringCells: fired.length,
  };
}
