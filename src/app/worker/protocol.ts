// The one contract between the page and the training worker: every message either way, as discriminated unions.
// Requests carry an id; every response to a request names it. Trainer events are forwarded as they are (plain
// JSON-serialisable data, NaN included: postMessage uses structured clone). Errors cross as core's ErrorPayload —
// {name, message, kind} for user errors, {name, message, stack} for defects — never an Error object.
import { toErrorPayload, type ErrorPayload } from '../../core/errors';
import type { ExperimentConfig } from '../../core/experiment/config';
import { BACKEND_FALLBACK, type BackendChoice, type BackendName } from '../../core/methodVocabulary';
import type { TrainerEvent } from '../../engine/trainer/events';
import type { LiveEpisode } from '../../engine/trainer/liveEpisode';

/**
 * The backend the user asked for ('auto' tries the fastest first); the choices and the fallback order are declared
 * in core/methodVocabulary.ts (BACKEND_CHOICES, BACKEND_FALLBACK). The type is re-exported for the app's many users.
 */
export type { BackendChoice };

/** The backends to try, in order, for a choice: the chosen one, then the slower ones after it (BACKEND_FALLBACK). */
export function backendChain(choice: BackendChoice): BackendName[] {
  if (choice === 'auto') return [...BACKEND_FALLBACK];
  const i = BACKEND_FALLBACK.indexOf(choice);
  return i < 0 ? [...BACKEND_FALLBACK] : BACKEND_FALLBACK.slice(i);
}

/**
 * Errors cross the worker boundary as core's one error model (core/errors.ts): {name, message}, plus `kind` for a
 * user error (config, preset, checkpoint, log, …) so the page can tell "fix your input" from a defect.
 */
export type WireError = ErrorPayload;
export const toWireError = toErrorPayload;

/**
 * Run control without messages: a worker busy training gets no turn to read its message queue (tfjs's wasm and cpu
 * backends resolve their promises as microtasks), so where the page is cross-origin isolated it shares these flags
 * (Int32Array over a SharedArrayBuffer). The worker reads them at every step boundary of the trainer and, while
 * paused, holds there re-reading them (runControl.ts; the thread is not blocked). Without isolation the page falls
 * back to pause/resume/stop messages, which the worker reads at every step boundary too (the trainer gives the event
 * loop a turn there).
 */
export const CONTROL_STOP = 0;
export const CONTROL_PAUSE = 1;
/**
 * Step credits of a paused run: the page adds one (and notifies CONTROL_PAUSE) to let a held run do exactly one
 * training step — with its validation when due — and hold again; a resume clears them.
 */
export const CONTROL_STEP = 2;
export const CONTROL_SLOTS = 3;

export type WorkerRequest =
  /** start a run of `config` (already validated by the page); one run at a time */
  | {
      type: 'start';
      id: number;
      config: ExperimentConfig;
      backend: BackendChoice;
      control: SharedArrayBuffer | null;
      /**
       * persist the run into stored run `runId` (src/app/runs); resume: continue from its latest checkpoint;
       * continuation: that checkpoint is where the run left the leader it rode with (workerRiders.ts), so its
       * student stage goes on without being announced again, as in the run made alone
       */
      record?: { runId: string; resume: boolean; continuation?: boolean } | null;
      /**
       * stored runs that ride along this run's student stage (workerRiders.ts): each shares its student steps
       * until its own schedule plans a step differently; needs `record`
       */
      riders?: RiderLink[];
    }
  /** message fallback (no shared control flags): hold the run at its next step boundary */
  | { type: 'pause'; id: number }
  | { type: 'resume'; id: number }
  /** message fallback: stop at the next step boundary; the trainer ends with a 'done' event, status 'interrupted' */
  | { type: 'stop'; id: number };

export type WorkerRequestType = WorkerRequest['type'];

/** A stored run (created by the page, nothing in it yet) that rides along a run with the same trajectory key. */
export interface RiderLink {
  runId: string;
  config: ExperimentConfig;
}

/**
 * How a rider's ride ended: `detached` (it left the leader after student step `step` and is stored with the
 * checkpoint to continue from), `stopped` (the leader was stopped: it wrote its own interrupt checkpoint),
 * `lost` (the leader failed: its stored run is marked failed, to be run alone), `interrupted` (browser storage
 * filled up under the leader: like the leader, it is stored interrupted, continuable from its own last stored
 * checkpoint), `unasked` (the leader ended before its student stage began, or began it mid-stage: nothing rode;
 * its empty stored run is deleted).
 */
export type RideEnd = 'detached' | 'stopped' | 'lost' | 'interrupted' | 'unasked';

export type WorkerResponse =
  /** the request was accepted (for 'start': the run begins; events follow) */
  | { type: 'ack'; id: number; of: WorkerRequestType }
  /** the request was refused (e.g. start while a run is going, pause with no run); nothing changed */
  | { type: 'rejected'; id: number; of: WorkerRequestType; error: WireError }
  /** the backend the run uses, and why each faster one in the chain was skipped */
  | { type: 'backend'; id: number; backend: BackendName; skipped: { backend: BackendName; reason: string }[] }
  /** a trainer event of run `id` */
  /**
   * run `id` is now held (paused), going again (running) or ending at the next step boundary (stopping); `within`:
   * held inside the step after the last one reported, in its validation, rather than at a step boundary
   */
  | { type: 'control'; id: number; state: RunControlState; within?: 'validation' }
  /** one episode of run `id`'s current training rollout, at most one a second (the live episode strip) */
  | { type: 'episode'; id: number; episode: LiveEpisode }
  /** run `id` ended without a 'done' event: the backend did not start or the trainer threw */
  | { type: 'failed'; id: number; error: WireError }
  /** several trainer events of run `id` in order (steps are batched: at most ~10 messages a second) */
  | { type: 'events'; id: number; events: TrainerEvent[] }
  /** rider `runId` of run `id` stopped riding (`step`: its last shared student step; `reason` in words) */
  | { type: 'ride'; id: number; runId: string; end: RideEnd; step: number | null; reason: string }
  /** saving run `id` to browser storage failed (e.g. the quota is full); the run goes on, the rows are retried */
  | { type: 'storage'; id: number; error: WireError };

export type WorkerResponseType = WorkerResponse['type'];

export type RunControlState = 'paused' | 'running' | 'stopping';

/** Compile-time exhaustiveness for switches over these unions. */
export function assertNever(value: never, what: string): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}

/** What the page needs of a training worker (a real module Worker, the in-thread one, or a test's fake). */
export interface WorkerLike {
  postMessage(message: WorkerRequest): void;
  onmessage: ((event: MessageEvent<WorkerResponse>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  terminate(): void;
}
