// What the trainer tells the outside world, as plain JSON-serialisable data: the CLI turns these events into a
// progress bar and a run folder, the browser worker posts them to the page and stores them. The trainer
// (src/engine/trainer/) emits them; the run log's fold (runLogFold.ts) reads them.
import type { PolicyEvaluation, RunSummary } from '../experiment/summary';
import type { GateEvaluation, GateWindow } from '../retirementGate';
import type { StageName } from './checkpointName';

/** One flat metrics line: what a metrics.jsonl line holds (`step` plus the keys of metricKeys.ts). */
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
