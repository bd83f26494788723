// The training Web Worker (a module worker): starts a tfjs backend with fallback (webgpu → webgl → wasm → cpu),
// builds the environment and the engine, runs the trainer, and posts its events to the page (protocol.ts).
// Pause and stop reach the trainer through RunControl (shared flags checked at every step boundary, or messages).
import { createEnvFor } from '../../core/experiment/envFactory';
import type { ExperimentConfig } from '../../core/experiment/config';
import { initBackend, type BackendName } from '../../engine/backend';
import type { EnginePort } from '../../engine/trainer/enginePort';
import type { TrainerEvent } from '../../engine/trainer/events';
import { createEnginePort } from '../../engine/trainer/engineAdapter';
import { Trainer } from '../../engine/trainer/trainer';
import {
  assertNever,
  backendChain,
  toWireError,
  type BackendChoice,
  type WorkerRequest,
  type WorkerResponse,
} from './protocol';
import { broadcastWasmRuntime, softwareEmulation } from './backendProbe';
import { RunControl } from './runControl';
import { ProbeHost } from '../teaching/probeHost';
import { loadTeacher } from './teacherLoader';
import { WASM_FILE_URLS } from './wasmAssets';
import { EventBatch } from '../runs/eventBatch';
import { IdbRunRepository } from '../runs/idbRunRepository';
import { openWorkerPersistence, type WorkerPersistence } from '../runs/workerPersistence';

interface WorkerScope {
  postMessage(message: WorkerResponse): void;
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;
const post = (message: WorkerResponse) => scope.postMessage(message);

// wasm (its .wasm files served by the app: WASM_FILE_URLS) runs the threaded-SIMD build with one thread per logical
// core where the page is cross-origin isolated (vite.config.ts keeps its pthread helpers working after
// minification), the SIMD build elsewhere.
const WASM_THREADS = navigator.hardwareConcurrency || 1;

interface Run {
  id: number;
  control: RunControl;
  /** trainer events on their way to the page, batched (eventBatch.ts) */
  batch: EventBatch;
}
let run: Run | null = null;

async function startBackend(id: number, choice: BackendChoice): Promise<BackendName> {
  const skipped: { backend: BackendName; reason: string }[] = [];
  for (const backend of backendChain(choice)) {
    if (choice === 'auto' && (backend === 'webgpu' || backend === 'webgl')) {
      const software = await softwareEmulation(backend);
      if (software !== null) {
        skipped.push({ backend, reason: software });
        continue;
      }
    }
    try {
      await initBackend(backend, { wasmPath: WASM_FILE_URLS, wasmThreads: WASM_THREADS });
      post({ type: 'backend', id, backend, skipped });
      if (backend === 'wasm') void broadcastWasmRuntime();
      return backend;
    } catch (error) {
      skipped.push({ backend, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  throw new Error(`no tfjs backend starts here: ${skipped.map((s) => s.reason).join('; ')}`);
}

/** The engine, with the run's pause/stop checked before each rollout (and its policies shown to the probe host). */
function controlled(engine: EnginePort, control: RunControl, probe?: ProbeHost): EnginePort {
  return {
    async rollout(request) {
      probe?.observe(request);
      await control.beforeRollout();
      return engine.rollout(request);
    },
    createOptimizer: (lr, variables) => engine.createOptimizer(lr, variables),
  };
}

async function execute(
  current: Run,
  requested: ExperimentConfig,
  choice: BackendChoice,
  record: { runId: string; resume: boolean } | null,
): Promise<void> {
  const id = current.id;
  let persisted: WorkerPersistence | null = null;
  let probe: ProbeHost | null = null;
  try {
    const backend = await startBackend(id, choice);
    const config: ExperimentConfig = { ...requested, runtime: { ...requested.runtime, backend } };
    if (record) {
      persisted = await openWorkerPersistence(await IdbRunRepository.open(), record.runId, config, record.resume, (e) =>
        post({ type: 'storage', id, error: toWireError(e) }),
      );
      persisted.recorder.setBackend(backend);
    }
    const recorder = persisted?.recorder ?? null;
    let done: TrainerEvent | null = null;
    const env = createEnvFor(config);
    // the trajectory viewer's probes of the held run (src/app/teaching/probeHost.ts)
    probe = new ProbeHost(current.control);
    probe.setEnv(env);
    const shippedTeacher = await loadTeacher(config, env);
    const trainer = new Trainer({
      config,
      env,
      engine: controlled(createEnginePort(env), current.control, probe),
      storage: persisted?.storage ?? null,
      resume: persisted?.resume ?? null,
      onEvent: (event) => {
        recorder?.record(event);
        // the page ends the worker on 'done': it goes out once the run's record is saved (below)
        if (event.type === 'done') done = event;
        else current.batch.add(event);
        // the step's event is its last act before the trainer's step boundary (checkpoint, stop)
        if (event.type === 'step') {
          probe?.at(event.stage, event.step);
          current.control.atStepBoundary(event.stage);
        }
      },
      shippedTeacher,
    });
    current.control.attach(trainer);
    try {
      await trainer.run();
    } finally {
      trainer.dispose();
      await recorder?.flush();
      if (done) current.batch.add(done);
      current.batch.flush();
    }
  } catch (error) {
    current.batch.flush();
    await persisted?.recorder.fail(error instanceof Error ? error.message : String(error));
    post({ type: 'failed', id, error: toWireError(error) });
  } finally {
    probe?.close();
    if (run === current) run = null;
  }
}

function handle(request: WorkerRequest): void {
  switch (request.type) {
    case 'start': {
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
      const flags = request.control ? new Int32Array(request.control) : null;
      const batch = new EventBatch((events) => post({ type: 'events', id, events }));
      const control = new RunControl(flags, (state) => {
        // the page sees every step up to the one the run is held at
        batch.flush();
        post({ type: 'control', id, state });
      });
      const current: Run = { id, control, batch };
      run = current;
      post({ type: 'ack', id: request.id, of: 'start' });
      void execute(current, request.config, request.backend, request.record ?? null);
      return;
    }
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

scope.onmessage = (event) => handle(event.data);
