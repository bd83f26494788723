// The one fold of trainer events into what a run has done so far: its position (stage, step), every trained step's
// metrics line, the gate's windows and evaluations, the retirement, the final evaluation, the summary, and a
// human-readable log. The live Train view folds the events as the worker posts them, a stored run is restored by
// folding its stored events, and the worker's recorder folds the position it writes into the run's record: one
// reading of the events, so the three cannot drift apart.
import type { PolicyEvaluation, RunSummary } from '../experiment/summary';
import type { GateEvaluation } from '../retirementGate';
import type { StageName } from './checkpointName';
import type { MetricsLine, TrainerEvent } from './trainerEvent';

/** Stages whose steps carry metrics lines. */
export type TrainedStage = 'sft' | 'teacher' | 'student';
export const TRAINED_STAGES: readonly TrainedStage[] = ['sft', 'teacher', 'student'];
export const isTrainedStage = (s: StageName): s is TrainedStage => s === 'sft' || s === 'teacher' || s === 'student';

export interface LogEntry {
  level: 'info' | 'warning' | 'error';
  text: string;
}

/** Where a run is, and the few facts its stored record keeps about it. */
export interface RunPosition {
  stage: StageName | null;
  step: number;
  totalSteps: number;
  /** the step at which the teacher retired (null before) */
  triggerStep: number | null;
  /** the name of the last checkpoint written */
  checkpoint: string | null;
}

export interface RunLog extends RunPosition {
  /** every step's metrics line, per stage */
  steps: Record<TrainedStage, MetricsLine[]>;
  /** completed gate windows: K̄_m at the step that completed the window */
  windows: { step: number; mean: number }[];
  evaluations: GateEvaluation[];
  retirement: { step: number; triggerStep: number; schedule: string; teacherPerformance: number } | null;
  finalEvaluation: PolicyEvaluation | null;
  summary: RunSummary | null;
  /** stage changes, checkpoints, warnings and errors, newest last (at most LOG_LIMIT) */
  log: LogEntry[];
  /** the error the trainer reported, or the summary's */
  error: { name: string; message: string } | null;
}

export const LOG_LIMIT = 200;

export const EMPTY_POSITION: RunPosition = { stage: null, step: 0, totalSteps: 0, triggerStep: null, checkpoint: null };

export const EMPTY_RUN_LOG: RunLog = {
  ...EMPTY_POSITION,
  steps: { sft: [], teacher: [], student: [] },
  windows: [],
  evaluations: [],
  retirement: null,
  finalEvaluation: null,
  summary: null,
  log: [],
  error: null,
};

/** The position after one event (unchanged by events that do not move it). */
export function foldPosition<P extends RunPosition>(p: P, event: TrainerEvent): P {
  switch (event.type) {
    case 'step':
      return { ...p, stage: event.stage, step: event.step, totalSteps: event.totalSteps };
    case 'stage':
      return event.status === 'start' ? { ...p, stage: event.stage, step: 0, totalSteps: event.totalSteps } : p;
    case 'retirement':
      return { ...p, triggerStep: event.triggerStep };
    case 'checkpoint':
      return { ...p, checkpoint: event.name };
    default:
      return p;
  }
}

/** The log line an event adds, or null. */
export function logEntryOf(event: TrainerEvent): LogEntry | null {
  switch (event.type) {
    case 'stage':
      if (event.status === 'start')
        return {
          level: 'info',
          text: `${event.stage}: ${event.totalSteps} steps${event.detail ? ` — ${event.detail}` : ''}`,
        };
      return event.status === 'skipped' ? { level: 'info', text: `${event.stage}: skipped` } : null;
    case 'retirement':
      return { level: 'info', text: `the teacher retired at step ${event.triggerStep} (${event.schedule})` };
    case 'checkpoint':
      return { level: 'info', text: `checkpoint ${event.name} (${event.reason})` };
    case 'warning':
      return { level: 'warning', text: event.message };
    case 'error':
      return { level: 'error', text: `${event.stage} step ${event.step}: ${event.message}` };
    case 'done': {
      const s = event.summary;
      return {
        level: s.status === 'completed' || s.status === 'interrupted' ? 'info' : 'error',
        text: `run ${s.status} after ${s.wallSeconds.toFixed(1)} s`,
      };
    }
    case 'step':
    case 'window':
    case 'evaluation':
      return null;
    default: {
      const never: never = event;
      throw new Error(`unknown trainer event ${JSON.stringify(never)}`);
    }
  }
}

/** Keep the newest LOG_LIMIT entries. */
export function appendLog(log: readonly LogEntry[], entries: readonly LogEntry[]): LogEntry[] {
  const all = [...log, ...entries];
  return all.length > LOG_LIMIT ? all.slice(all.length - LOG_LIMIT) : all;
}

/**
 * Fold a batch of events into a run log. Step lines are appended once per stage per batch (not one array copy per
 * step), so folding a stored run's thousands of events, or the worker's batches, stays linear.
 */
export function foldRunLog<R extends RunLog>(state: R, events: readonly TrainerEvent[]): R {
  let s: R = state;
  const added: Record<TrainedStage, MetricsLine[]> = { sft: [], teacher: [], student: [] };
  const logged: LogEntry[] = [];
  for (const event of events) {
    s = foldPosition(s, event);
    const entry = logEntryOf(event);
    if (entry) logged.push(entry);
    switch (event.type) {
      case 'step':
        if (isTrainedStage(event.stage)) added[event.stage].push(event.metrics);
        break;
      case 'window':
        s = { ...s, windows: [...s.windows, { step: event.window.end_step, mean: event.window.mean }] };
        break;
      case 'evaluation':
        s =
          event.kind === 'gate'
            ? { ...s, evaluations: [...s.evaluations, event.evaluation] }
            : { ...s, finalEvaluation: event.result };
        break;
      case 'retirement':
        s = {
          ...s,
          retirement: {
            step: event.step,
            triggerStep: event.triggerStep,
            schedule: event.schedule,
            teacherPerformance: event.teacherPerformance,
          },
        };
        break;
      case 'error':
        s = { ...s, error: { name: event.term ? 'NonFiniteError' : 'TrainerError', message: event.message } };
        break;
      case 'done':
        s = {
          ...s,
          summary: event.summary,
          error: event.summary.error ? (s.error ?? { name: 'TrainerError', message: event.summary.error }) : s.error,
        };
        break;
      default:
        break;
    }
  }
  const stages = (Object.keys(added) as TrainedStage[]).filter((k) => added[k].length > 0);
  if (stages.length > 0) {
    const steps = { ...s.steps };
    for (const k of stages) steps[k] = [...steps[k], ...added[k]];
    s = { ...s, steps };
  }
  return logged.length > 0 ? { ...s, log: appendLog(s.log, logged) } : s;
}
