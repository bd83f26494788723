// The zustand store of the training run: the RunState (liveRunState.ts) plus the actions that talk to the worker.
// The worker is created per run and terminated when the run ends (tfjs variables are engine-global; a fresh worker
// leaves nothing behind). `createWorker` is injectable so the store can be tested without a browser.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ExperimentConfig } from '../../core/experiment/config';
import {
  CONTROL_PAUSE,
  CONTROL_SLOTS,
  CONTROL_STEP,
  CONTROL_STOP,
  toWireError,
  type BackendChoice,
  type RiderLink,
  type WorkerLike,
  type WorkerRequest,
  type WorkerResponse,
} from '../worker/protocol';
import { INITIAL_RUN_STATE, isActive, reduceRun, type RunState } from './liveRunState';

/** A persisted run: the stored run's id, and whether to continue it from its latest checkpoint. */
export interface RunRecordLink {
  runId: string;
  resume: boolean;
  /** the checkpoint resumed from is where the run left the leader it rode with (protocol.ts) */
  continuation?: boolean;
}

export interface RunActions {
  /**
   * Start a run in a new worker. With `record`, the worker saves it into that stored run as it goes; with
   * `restored` (a resume), the view starts from what was stored (the worker trims it to the checkpoint too); with
   * `riders`, those stored runs ride along its student stage (protocol.ts).
   */
  start(
    config: ExperimentConfig,
    backend: BackendChoice,
    record?: RunRecordLink | null,
    restored?: RunState,
    riders?: RiderLink[],
  ): void;
  /** Show a stored run (no worker) while nothing is running. */
  show(state: RunState): void;
  pause(): void;
  resume(): void;
  stop(): void;
  /** Let a paused run do exactly one training step (and its validation when due), then hold again. */
  stepOnce(): void;
  /** Whether stepOnce() can work: it needs the shared control flags (a cross-origin isolated page). */
  canStep(): boolean;
}

export type RunStore = StoreApi<RunState & RunActions>;

/** Shared control flags need a cross-origin isolated page (COOP/COEP headers, as vite.config.ts serves). */
function canShareControl(): boolean {
  return (
    typeof SharedArrayBuffer !== 'undefined' &&
    (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true
  );
}

export function createRunStore(createWorker: () => WorkerLike, options: { sharedControl?: boolean } = {}): RunStore {
  const shared = options.sharedControl ?? canShareControl();
  let worker: WorkerLike | null = null;
  /** the current run's control flags (protocol.ts), or null: control by messages */
  let flags: Int32Array | null = null;
  let nextId = 1;

  const setFlag = (slot: number, value: 0 | 1) => {
    if (!flags) return;
    Atomics.store(flags, slot, value);
    Atomics.notify(flags, slot);
  };

  return createStore<RunState & RunActions>()((set, get) => {
    const dispatchResponse = (response: WorkerResponse) => {
      set((s) => reduceRun(s, { type: 'received', response }));
      if (!isActive(get().status) && worker) {
        worker.terminate();
        worker = null;
      }
    };
    const send = (request: WorkerRequest) => {
      set((s) => reduceRun(s, { type: 'sent', request }));
      if (request.type === 'start' || flags === null) worker?.postMessage(request);
      else if (request.type === 'pause') setFlag(CONTROL_PAUSE, 1);
      else if (request.type === 'resume') {
        if (flags) Atomics.store(flags, CONTROL_STEP, 0);
        setFlag(CONTROL_PAUSE, 0);
      } else if (request.type === 'stop') setFlag(CONTROL_STOP, 1);
    };
    return {
      ...INITIAL_RUN_STATE,
      start(config, backend, record = null, restored, riders = []) {
        if (isActive(get().status)) return;
        const id = nextId++;
        worker?.terminate();
        const buffer = shared ? new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT) : null;
        flags = buffer ? new Int32Array(buffer) : null;
        try {
          worker = createWorker();
        } catch (error) {
          set((s) =>
            reduceRun(reduceRun(s, { type: 'sent', request: { type: 'start', id, config, backend, control: null } }), {
              type: 'received',
              response: { type: 'failed', id, error: toWireError(error) },
            }),
          );
          return;
        }
        worker.onmessage = (e) => dispatchResponse(e.data);
        worker.onerror = (e) => {
          e.preventDefault?.();
          dispatchResponse({
            type: 'failed',
            id,
            error: { name: 'WorkerError', message: e.message || 'the training worker failed to load' },
          });
        };
        send({ type: 'start', id, config, backend, control: buffer, record, ...(riders.length ? { riders } : {}) });
        // a resume shows what was stored up to its checkpoint (the caller trimmed it); the worker sends the rest
        if (restored && record?.resume) {
          set({
            steps: restored.steps,
            windows: restored.windows,
            evaluations: restored.evaluations,
            retirement: restored.retirement,
            log: [...restored.log, ...get().log],
          });
        }
      },
      show(state) {
        if (isActive(get().status)) return;
        worker?.terminate();
        worker = null;
        set({ ...state, runId: null });
      },
      pause() {
        if (get().status === 'running') send({ type: 'pause', id: nextId++ });
      },
      stepOnce() {
        if (get().status !== 'paused' || !flags) return;
        Atomics.add(flags, CONTROL_STEP, 1);
        Atomics.notify(flags, CONTROL_PAUSE);
      },
      canStep: () => flags !== null,
      resume() {
        const status = get().status;
        if (status === 'paused' || status === 'pausing') send({ type: 'resume', id: nextId++ });
      },
      stop() {
        const status = get().status;
        if (!isActive(status) || status === 'stopping') return;
        // the worker also releases a paused run so that it reaches the step boundary where it stops
        send({ type: 'stop', id: nextId++ });
      },
    };
  });
}
