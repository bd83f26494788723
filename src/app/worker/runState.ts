// The state of one training run as the page sees it, and the pure reducer that folds the page's own requests and
// the worker's responses into it. The zustand store (runStore.ts) only holds this state and calls the reducer.
import type { ExperimentConfig } from '../../core/experiment/config';
import type { PolicyEvaluation, RunSummary } from '../../core/experiment/summary';
import type { GateEvaluation } from '../../core/retirementGate';
import type { BackendName } from '../../engine/backend';
import type { MetricsLine, StageName, TrainerEvent } from '../../engine/trainer/events';
import type { LiveEpisode } from '../../engine/trainer/liveEpisode';
import { assertNever, type BackendChoice, type WireError, type WorkerRequest, type WorkerResponse } from './protocol';

/** 'pausing': asked to pause, not yet held (the worker holds the run at its next step boundary or rollout). */
export type RunStatus =
  'idle' | 'starting' | 'running' | 'pausing' | 'paused' | 'stopping' | 'completed' | 'stopped' | 'failed';

/** Stages whose steps carry metrics lines. */
export type TrainedStage = 'sft' | 'teacher' | 'student';

export interface LogEntry {
  level: 'info' | 'warning' | 'error';
  text: string;
}

export interface RunState {
  /** id of the current run's start request; responses for other ids are ignored */
  runId: number | null;
  /** the stored run (src/app/runs) this state belongs to, if it is persisted */
  recordId: string | null;
  status: RunStatus;
  config: ExperimentConfig | null;
  backendChoice: BackendChoice | null;
  backend: BackendName | null;
  skippedBackends: { backend: BackendName; reason: string }[];
  stage: StageName | null;
  step: number;
  totalSteps: number;
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
  error: WireError | null;
  /** the last failure to save the run to browser storage (shown until the run ends) */
  storageError: WireError | null;
  /**
   * a paused run held inside a validation after step `step` (the student's, inside step `step + 1`; the teacher's S_T,
   * after its last step) rather than at the step boundary
   */
  heldIn: 'validation' | null;
  /** the latest episode of the current training rollout (the live strip), or null before the first */
  liveEpisode: LiveEpisode | null;
}

export const LOG_LIMIT = 200;

export const INITIAL_RUN_STATE: RunState = {
  runId: null,
  recordId: null,
  status: 'idle',
  config: null,
  backendChoice: null,
  backend: null,
  skippedBackends: [],
  stage: null,
  step: 0,
  totalSteps: 0,
  steps: { sft: [], teacher: [], student: [] },
  windows: [],
  evaluations: [],
  retirement: null,
  finalEvaluation: null,
  summary: null,
  log: [],
  error: null,
  storageError: null,
  heldIn: null,
  liveEpisode: null,
};

export type RunAction = { type: 'sent'; request: WorkerRequest } | { type: 'received'; response: WorkerResponse };

export const isActive = (s: RunStatus) =>
  s === 'starting' || s === 'running' || s === 'pausing' || s === 'paused' || s === 'stopping';

function addLog(state: RunState, entry: LogEntry): LogEntry[] {
  const log = [...state.log, entry];
  return log.length > LOG_LIMIT ? log.slice(log.length - LOG_LIMIT) : log;
}

const isTrained = (s: StageName): s is TrainedStage => s === 'sft' || s === 'teacher' || s === 'student';

function onSent(state: RunState, request: WorkerRequest): RunState {
  switch (request.type) {
    case 'start':
      return {
        ...INITIAL_RUN_STATE,
        runId: request.id,
        recordId: request.record?.runId ?? null,
        status: 'starting',
        config: request.config,
        backendChoice: request.backend,
        log: [
          {
            level: 'info',
            text: `starting ${request.config.name} (seed ${request.config.seed}, backend ${request.backend})`,
          },
        ],
      };
    case 'stop':
      return isActive(state.status) ? { ...state, status: 'stopping' } : state;
    case 'pause':
      return state.status === 'running' ? { ...state, status: 'pausing' } : state;
    case 'resume':
      // the status changes when the worker says it runs again
      return state;
    default:
      return assertNever(request, 'request');
  }
}

function onEvent(state: RunState, event: Extract<WorkerResponse, { type: 'event' }>['event']): RunState {
  switch (event.type) {
    case 'stage':
      if (event.status === 'start') {
        return {
          ...state,
          stage: event.stage,
          step: 0,
          totalSteps: event.totalSteps,
          log: addLog(state, {
            level: 'info',
            text: `${event.stage}: ${event.totalSteps} steps${event.detail ? ` — ${event.detail}` : ''}`,
          }),
        };
      }
      if (event.status === 'skipped')
        return { ...state, log: addLog(state, { level: 'info', text: `${event.stage}: skipped` }) };
      return state;
    case 'step': {
      const next = { ...state, stage: event.stage, step: event.step, totalSteps: event.totalSteps };
      if (!isTrained(event.stage)) return next;
      return { ...next, steps: { ...state.steps, [event.stage]: [...state.steps[event.stage], event.metrics] } };
    }
    case 'window':
      return { ...state, windows: [...state.windows, { step: event.window.end_step, mean: event.window.mean }] };
    case 'evaluation':
      if (event.kind === 'gate') return { ...state, evaluations: [...state.evaluations, event.evaluation] };
      return { ...state, finalEvaluation: event.result };
    case 'retirement':
      return {
        ...state,
        retirement: {
          step: event.step,
          triggerStep: event.triggerStep,
          schedule: event.schedule,
          teacherPerformance: event.teacherPerformance,
        },
        log: addLog(state, {
          level: 'info',
          text: `the teacher retired at step ${event.triggerStep} (${event.schedule})`,
        }),
      };
    case 'checkpoint':
      return { ...state, log: addLog(state, { level: 'info', text: `checkpoint ${event.name} (${event.reason})` }) };
    case 'warning':
      return { ...state, log: addLog(state, { level: 'warning', text: event.message }) };
    case 'error':
      return {
        ...state,
        error: { name: event.term ? 'NonFiniteError' : 'TrainerError', message: event.message },
        log: addLog(state, { level: 'error', text: `${event.stage} step ${event.step}: ${event.message}` }),
      };
    case 'done': {
      const s = event.summary;
      const status: RunStatus =
        s.status === 'completed' ? 'completed' : s.status === 'interrupted' ? 'stopped' : 'failed';
      return {
        ...state,
        status,
        summary: s,
        error: s.error ? (state.error ?? { name: 'TrainerError', message: s.error }) : state.error,
        log: addLog(state, {
          level: status === 'failed' ? 'error' : 'info',
          text: `run ${s.status} after ${s.wallSeconds.toFixed(1)} s`,
        }),
      };
    }
    default:
      return assertNever(event, 'trainer event');
  }
}

/** A batch of events: step lines are appended once per stage (not one array copy per step). */
function onEvents(state: RunState, events: readonly TrainerEvent[]): RunState {
  let s = state;
  const added: Record<TrainedStage, MetricsLine[]> = { sft: [], teacher: [], student: [] };
  for (const event of events) {
    if (event.type === 'step') {
      s = { ...s, stage: event.stage, step: event.step, totalSteps: event.totalSteps };
      if (isTrained(event.stage)) added[event.stage].push(event.metrics);
    } else {
      s = onEvent(s, event);
    }
  }
  const stages = (Object.keys(added) as TrainedStage[]).filter((k) => added[k].length > 0);
  if (stages.length === 0) return s;
  const steps = { ...s.steps };
  for (const k of stages) steps[k] = [...steps[k], ...added[k]];
  return { ...s, steps };
}

function onReceived(state: RunState, response: WorkerResponse): RunState {
  if (response.id !== state.runId && !(response.type === 'ack' || response.type === 'rejected')) return state;
  switch (response.type) {
    case 'ack':
      // the request was taken; what it did is reported by 'control' and trainer events
      return state;
    case 'control':
      if (response.state === 'stopping') return isActive(state.status) ? { ...state, status: 'stopping' } : state;
      // pause/resume change nothing once the run is stopping or over
      if (state.status !== 'running' && state.status !== 'pausing' && state.status !== 'paused') return state;
      return {
        ...state,
        status: response.state,
        heldIn: response.state === 'paused' ? (response.within ?? null) : null,
        log: addLog(state, {
          level: 'info',
          text:
            response.state !== 'paused'
              ? 'resumed'
              : response.within
                ? `paused in a validation after ${state.stage ?? ''} step ${state.step}`
                : `paused at ${state.stage ?? ''} step ${state.step}`,
        }),
      };
    case 'rejected':
      if (response.of === 'start' && response.id === state.runId) {
        return {
          ...state,
          status: 'failed',
          error: response.error,
          log: addLog(state, { level: 'error', text: response.error.message }),
        };
      }
      return { ...state, log: addLog(state, { level: 'warning', text: `${response.of}: ${response.error.message}` }) };
    case 'backend':
      return {
        ...state,
        status: state.status === 'starting' ? 'running' : state.status,
        backend: response.backend,
        skippedBackends: response.skipped,
        log: addLog(
          {
            ...state,
            log: [...state.log, ...response.skipped.map((s) => ({ level: 'warning' as const, text: s.reason }))],
          },
          { level: 'info', text: `backend: ${response.backend}` },
        ),
      };
    case 'event':
      return onEvent(state, response.event);
    case 'events':
      return onEvents(state, response.events);
    case 'episode':
      return { ...state, liveEpisode: response.episode };
    case 'storage':
      return {
        ...state,
        storageError: response.error,
        log: addLog(state, { level: 'error', text: `${response.error.name}: ${response.error.message}` }),
      };
    case 'failed':
      return {
        ...state,
        status: 'failed',
        error: response.error,
        log: addLog(state, { level: 'error', text: `${response.error.name}: ${response.error.message}` }),
      };
    default:
      return assertNever(response, 'worker response');
  }
}

export function reduceRun(state: RunState, action: RunAction): RunState {
  return action.type === 'sent' ? onSent(state, action.request) : onReceived(state, action.response);
}
