// The state of one training run as the page sees it, and the pure reducer that folds the page's own requests and
// the worker's responses into it. The zustand store (liveRunStore.ts) only holds this state and calls the reducer.
import type { ExperimentConfig } from '../../core/experiment/config';
import type { RunSummary } from '../../core/experiment/summary';
import { appendLog, EMPTY_RUN_LOG, foldRunLog, type LogEntry, type RunLog } from '../../core/runLog/runLogFold';
import type { BackendName } from '../../engine/backend';
import type { LiveEpisode } from '../../engine/trainer/liveEpisode';
import {
  assertNever,
  type BackendChoice,
  type RideEnd,
  type WireError,
  type WorkerRequest,
  type WorkerResponse,
} from '../worker/protocol';

export { LOG_LIMIT, type LogEntry, type TrainedStage } from '../../core/runLog/runLogFold';

/**
 * 'pausing': asked to pause, not yet held (the worker holds the run at its next step boundary or rollout).
 * 'interrupted': browser storage filled up — the run is stored interrupted, continuable from its last stored
 * checkpoint (the runs table's word for it too).
 */
export type RunStatus =
  | 'idle'
  | 'starting'
  | 'running'
  | 'pausing'
  | 'paused'
  | 'stopping'
  | 'completed'
  | 'stopped'
  | 'interrupted'
  | 'failed';

/**
 * The worker ends a run whose writes the browser refused for want of room with this error name (runRepository.ts's
 * StorageQuotaError, made by asStorageFull): the run is interrupted, not failed.
 */
export const STORAGE_FULL_ERROR = 'StorageQuotaError';

/** What the page knows of one run: the run log folded from the trainer's events (core/runLog/runLogFold.ts), and
 * the page's own view of the run — its request id, stored record, status, config and backend. */
export interface RunState extends RunLog {
  /** id of the current run's start request; responses for other ids are ignored */
  runId: number | null;
  /** the stored run (src/app/runs) this state belongs to, if it is persisted */
  recordId: string | null;
  status: RunStatus;
  config: ExperimentConfig | null;
  backendChoice: BackendChoice | null;
  backend: BackendName | null;
  skippedBackends: { backend: BackendName; reason: string }[];
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
  /** the riders of this run that stopped riding so far, in order (the runs store hands a detached one on) */
  rides: { runId: string; end: RideEnd; step: number | null }[];
}

export const INITIAL_RUN_STATE: RunState = {
  ...EMPTY_RUN_LOG,
  runId: null,
  recordId: null,
  status: 'idle',
  config: null,
  backendChoice: null,
  backend: null,
  skippedBackends: [],
  storageError: null,
  heldIn: null,
  liveEpisode: null,
  rides: [],
};

/** The run's status once its summary says how it ended. */
export const statusOfSummary = (s: RunSummary): RunStatus =>
  s.status === 'completed' ? 'completed' : s.status === 'interrupted' ? 'stopped' : 'failed';

export type RunAction = { type: 'sent'; request: WorkerRequest } | { type: 'received'; response: WorkerResponse };

export const isActive = (s: RunStatus) =>
  s === 'starting' || s === 'running' || s === 'pausing' || s === 'paused' || s === 'stopping';

function addLog(state: RunState, entry: LogEntry): LogEntry[] {
  return appendLog(state.log, [entry]);
}

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
    case 'events': {
      const next = foldRunLog(state, response.events);
      return next.summary !== state.summary && next.summary ? { ...next, status: statusOfSummary(next.summary) } : next;
    }
    case 'episode':
      return { ...state, liveEpisode: response.episode };
    case 'ride':
      return {
        ...state,
        rides: [...state.rides, { runId: response.runId, end: response.end, step: response.step }],
        log: addLog(state, { level: 'info', text: rideText(response) }),
      };
    case 'storage':
      return {
        ...state,
        storageError: response.error,
        log: addLog(state, { level: 'error', text: `${response.error.name}: ${response.error.message}` }),
      };
    case 'failed':
      return {
        ...state,
        status: response.error.name === STORAGE_FULL_ERROR ? 'interrupted' : 'failed',
        error: response.error,
        log: addLog(state, { level: 'error', text: `${response.error.name}: ${response.error.message}` }),
      };
    default:
      return assertNever(response, 'worker response');
  }
}

/** A log line for a rider's end of ride (workerRiders.ts). */
function rideText(r: Extract<WorkerResponse, { type: 'ride' }>): string {
  switch (r.end) {
    case 'detached':
      return `run ${r.runId} shared student steps 1–${r.step ?? 0} with this run; it continues alone (${r.reason})`;
    case 'stopped':
      return `run ${r.runId} stopped with this run at student step ${r.step ?? 0}`;
    case 'lost':
      return `run ${r.runId} rode along a run that failed; it runs alone (${r.reason})`;
    case 'interrupted':
      return `run ${r.runId} stopped with this run when browser storage filled up; continue it from its last checkpoint (${r.reason})`;
    case 'unasked':
      return `run ${r.runId} did not ride (${r.reason}); it will start on its own`;
    default:
      return assertNever(r.end, 'ride end');
  }
}

export function reduceRun(state: RunState, action: RunAction): RunState {
  return action.type === 'sent' ? onSent(state, action.request) : onReceived(state, action.response);
}
