// The training worker's logic as a plain function of its two ends: `post` (responses to the page, protocol.ts) and
// `deps` (what differs between the module worker in the browser and a test in Node: the backend starter, the run
// repository, the teacher loader, the trajectory viewer's probe host). trainingWorker.ts only wires it to `self`.
// One run at a time: it starts a tfjs backend with fallback (backendChain), builds the environment and the engine,
// runs the trainer with pause / step / stop at the trainer's step boundaries (runControl.ts), saves the run when asked
// (workerPersistence.ts), and forwards the trainer's events in batches (eventBatch.ts). 'done' goes out once the
// run's record is saved; 'failed' when the run ended without a summary. Errors cross as {name, message} (toWireError).
import type { AgentEnv } from '../../core/env/types';
import type { ExperimentConfig } from '../../core/experiment/config';
import { createEnvFor } from '../../core/experiment/envFactory';
import type { BackendName } from '../../engine/backend';
import { createEnginePort } from '../../engine/trainer/engineAdapter';
import type { EnginePort, RolloutRequest } from '../../engine/trainer/enginePort';
import type { StageName, TrainerEvent } from '../../engine/trainer/events';
import { Trainer } from '../../engine/trainer/trainer';
import type { WeightRecord } from '../../engine/weights';
import { EventBatch } from './eventBatch';
import { asStorageFull, isStorageFull, type RunRepository } from '../runs/runRepository';
import { openWorkerPersistence, type WorkerPersistence } from './workerPersistence';
import {
  assertNever,
  backendChain,
  toWireError,
  type BackendChoice,
  type WorkerRequest,
  type WorkerResponse,
} from './protocol';
import { RunControl } from './runControl';
import { WorkerRiders } from './workerRiders';
import type { WorkerLike } from './protocol';

/** What the handler needs of the trajectory viewer's probe host (src/app/worker/probeHost.ts). */
export interface RunProbe {
  setEnv(env: AgentEnv): void;
  /** every rollout request the trainer makes (the policies it can sample) */
  observe(request: RolloutRequest): void;
  /** the boundary the run is at: after `step` steps of `stage` */
  at(stage: StageName, step: number): void;
  close(): void;
}

export interface WorkerDeps {
  /** start tfjs backend `backend`; throws when it does not start here (the next one in the chain is tried) */
  startBackend(backend: BackendName): Promise<unknown>;
  /** under 'auto': why `backend` is a software emulation to skip, or null (browser: backendProbe.ts) */
  softwareEmulation?(backend: 'webgpu' | 'webgl'): Promise<string | null>;
  /** after the backend started, before the trainer (browser: announce the wasm runtime) */
  backendStarted?(backend: BackendName): void;
  /** the stored runs (IndexedDB in the browser); null: a start that asks to be recorded fails */
  openRepository: (() => Promise<RunRepository>) | null;
  /** a preset's shipped trained teacher (teacher.checkpoint), or null when it names none */
  loadTeacher(config: ExperimentConfig, env: AgentEnv): Promise<WeightRecord[] | null>;
  /** the probe host of a run (answers while the run is held), or null for none */
  createProbe?(control: RunControl): RunProbe | null;
  /** waits of a held run (RunControl's polling), default setTimeout */
  sleep?: (ms: number) => Promise<void>;
  /** ms clock of the event batching (default performance.now) */
  clock?: () => number;
}

export interface WorkerHandler {
  /** one request of the page's; every response goes through `post` */
  handle(request: WorkerRequest): void;
}

type StartRequest = Extract<WorkerRequest, { type: 'start' }>;

interface Run {
  id: number;
  control: RunControl;
  /** trainer events on their way to the page, batched (eventBatch.ts) */
  batch: EventBatch;
}

/** At most one live episode a second reaches the page (ms). */
const LIVE_EPISODE_MS = 1000;

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The engine, with its rollouts shown to the probe host (the policies the trajectory viewer samples). */
function observed(engine: EnginePort, probe: RunProbe | null): EnginePort {
  if (!probe) return engine;
  return {
    rollout(request) {
      probe.observe(request);
      return engine.rollout(request);
    },
    createOptimizer: (lr, variables) => engine.createOptimizer(lr, variables),
  };
}

export function createWorkerHandler(post: (message: WorkerResponse) => void, deps: WorkerDeps): WorkerHandler {
  let run: Run | null = null;

  /** The first backend of the chain that starts here (told to the page with why each faster one was skipped). */
  async function startBackend(id: number, choice: BackendChoice): Promise<BackendName> {
    const skipped: { backend: BackendName; reason: string }[] = [];
    for (const backend of backendChain(choice)) {
      if (choice === 'auto' && (backend === 'webgpu' || backend === 'webgl') && deps.softwareEmulation) {
        const software = await deps.softwareEmulation(backend);
        if (software !== null) {
          skipped.push({ backend, reason: software });
          continue;
        }
      }
      try {
        await deps.startBackend(backend);
      } catch (error) {
        skipped.push({ backend, reason: errorMessage(error) });
        continue;
      }
      post({ type: 'backend', id, backend, skipped });
      deps.backendStarted?.(backend);
      return backend;
    }
    throw new Error(`no tfjs backend starts here: ${skipped.map((s) => `${s.backend}: ${s.reason}`).join('; ')}`);
  }

  async function openPersistence(
    id: number,
    record: { runId: string; resume: boolean },
    config: ExperimentConfig,
  ): Promise<WorkerPersistence> {
    if (!deps.openRepository) throw new Error(`run ${record.runId}: this worker has no run storage to record into`);
    return openWorkerPersistence(await deps.openRepository(), record.runId, config, record.resume, (e) =>
      post({ type: 'storage', id, error: toWireError(e) }),
    );
  }

  /** The run from backend to summary; resolves with its last message ('done' or 'failed'), not yet posted. */
  async function execute(current: Run, request: StartRequest): Promise<WorkerResponse> {
    const { id, control, batch } = current;
    let persisted: WorkerPersistence | null = null;
    let probe: RunProbe | null = null;
    let riders: WorkerRiders | null = null;
    try {
      const backend = await startBackend(id, request.backend);
      const config: ExperimentConfig = { ...request.config, runtime: { ...request.config.runtime, backend } };
      if (request.record) {
        persisted = await openPersistence(id, request.record, config);
        persisted.recorder.setBackend(backend);
      }
      const recorder = persisted?.recorder ?? null;
      if (request.riders?.length && !persisted)
        throw new Error('riders need a stored run: a start with riders must name its record');
      const rides =
        persisted && request.record && request.riders?.length
          ? new WorkerRiders(
              persisted.repo,
              request.record.runId,
              persisted.recorder,
              request.riders,
              backend,
              (runId, end, step, reason) => post({ type: 'ride', id, runId, end, step, reason }),
              (e) => post({ type: 'storage', id, error: toWireError(e) }),
            )
          : null;
      riders = rides;
      const env = createEnvFor(config);
      probe = deps.createProbe?.(control) ?? null;
      probe?.setEnv(env);
      const shippedTeacher = await deps.loadTeacher(config, env);
      const end: { done: Extract<TrainerEvent, { type: 'done' }> | null } = { done: null };
      const trainer = new Trainer({
        config,
        env,
        engine: observed(createEnginePort(env), probe),
        storage: persisted?.storage ?? null,
        resume: persisted?.resume ?? null,
        onEvent: (event) => {
          recorder?.record(event);
          // the page ends the worker on 'done': it goes out once the run's record is saved (below)
          if (event.type === 'done') end.done = event;
          else batch.add(event);
        },
        atStepBoundary: async (stage, step) => {
          // the probe samples the weights of this boundary (a stage start keeps the previous stage's last step)
          if (step > 0) probe?.at(stage, step);
          await control.atStepBoundary(stage, step);
        },
        withinStep: () => control.withinStep(),
        // one episode of the training rollout a second, for the page's live strip (not a trainer event)
        liveEpisodes: { everyMs: LIVE_EPISODE_MS, sink: (episode) => post({ type: 'episode', id, episode }) },
        shippedTeacher,
        followers: rides ? () => rides.specs() : null,
        continuation: request.record?.continuation === true,
      });
      control.attach(trainer);
      let failure: { error: unknown } | null = null;
      try {
        await trainer.run();
      } catch (error) {
        failure = { error };
      } finally {
        trainer.dispose();
      }
      // a full browser storage ends the riders still riding as it ends the leader: interrupted, continuable
      const full = failure ? asStorageFull(failure.error, `saving run ${request.record?.runId ?? ''}`) : null;
      await riders?.finish(full !== null && isStorageFull(full) ? errorMessage(full) : null);
      await recorder?.flush();
      if (failure) throw failure.error;
      batch.flush();
      if (end.done === null) throw new Error('the trainer ended without a summary');
      return { type: 'events', id, events: [end.done] };
    } catch (error) {
      batch.flush();
      await riders?.finish().catch(() => undefined);
      // a full browser storage leaves the run continuable from its last stored checkpoint, with what to do
      const cause = asStorageFull(error, `saving run ${request.record?.runId ?? ''}`);
      if (persisted && isStorageFull(cause)) await persisted.recorder.interruptForStorage(errorMessage(cause));
      else await persisted?.recorder.fail(errorMessage(cause));
      return { type: 'failed', id, error: toWireError(cause) };
    } finally {
      probe?.close();
    }
  }

  function start(request: StartRequest): void {
    if (run !== null) {
      post({
        type: 'rejected',
        id: request.id,
        of: 'start',
        error: { name: 'RunInProgress', message: `run ${run.id} is still going: stop it first` },
      });
      return;
    }
    const id = request.id;
    const batch = new EventBatch((events) => post({ type: 'events', id, events }), undefined, deps.clock);
    const flags = request.control ? new Int32Array(request.control) : null;
    const control = new RunControl(
      flags,
      (state, within) => {
        // the page sees every step up to the one the run is held at
        batch.flush();
        post(within ? { type: 'control', id, state, within } : { type: 'control', id, state });
      },
      { sleep: deps.sleep },
    );
    const current: Run = { id, control, batch };
    run = current;
    post({ type: 'ack', id, of: 'start' });
    void execute(current, request).then((last) => {
      // the run is over before the page hears so: a start right after 'done' is taken
      if (run === current) run = null;
      post(last);
    });
  }

  function handle(request: WorkerRequest): void {
    switch (request.type) {
      case 'start':
        start(request);
        return;
      case 'pause':
      case 'resume':
      case 'stop': {
        if (run === null) {
          post({
            type: 'rejected',
            id: request.id,
            of: request.type,
            error: { name: 'NoRun', message: 'no run is going' },
          });
          return;
        }
        if (request.type === 'pause') run.control.pause();
        else if (request.type === 'resume') run.control.resume();
        else run.control.stop();
        post({ type: 'ack', id: request.id, of: request.type });
        return;
      }
      default:
        assertNever(request, 'request');
    }
  }

  return { handle };
}

/**
 * The in-thread mode: the same handler on the caller's own thread behind the Worker interface the run store takes
 * (protocol.ts WorkerLike): for Node (the store end to end without a browser) and wherever a module worker cannot
 * start. Messages go either way a macrotask later, as a Worker's do (by reference: no structured clone); terminate()
 * stops a going run at its next step boundary and drops whatever it still posts.
 */
export function createInThreadWorker(deps: WorkerDeps): WorkerLike {
  let terminated = false;
  const worker: WorkerLike = {
    onmessage: null,
    onerror: null,
    postMessage(request) {
      setTimeout(() => {
        if (!terminated) handler.handle(request);
      }, 0);
    },
    terminate() {
      if (terminated) return;
      terminated = true;
      // the run's variables are engine-global: it must end (and dispose them) even though no one listens any more
      handler.handle({ type: 'stop', id: -1 });
    },
  };
  const handler = createWorkerHandler((message) => {
    setTimeout(() => {
      if (!terminated) worker.onmessage?.({ data: message } as MessageEvent<WorkerResponse>);
    }, 0);
  }, deps);
  return worker;
}
