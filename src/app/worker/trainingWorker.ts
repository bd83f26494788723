// The training Web Worker (a module worker): starts a tfjs backend with fallback (webgpu → webgl → wasm → cpu),
// builds the environment and the engine, runs the trainer, and posts its events to the page (protocol.ts).
// Pause holds the run before its next rollout; stop asks the trainer to end at the next step boundary.
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { createEnvFor } from '../../core/experiment/envFactory';
import type { ExperimentConfig } from '../../core/experiment/config';
import { initBackend, type BackendName } from '../../engine/backend';
import type { EnginePort } from '../../engine/trainer/enginePort';
import { createEnginePort } from '../../engine/trainer/engineAdapter';
import { Trainer } from '../../engine/trainer/trainer';
import { assertNever, backendChain, toWireError, type BackendChoice, type WorkerRequest, type WorkerResponse } from './protocol';
import { loadTeacher } from './teacherLoader';
import { WASM_FILE_URLS } from './wasmAssets';

interface WorkerScope {
  postMessage(message: WorkerResponse): void;
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;
const post = (message: WorkerResponse) => scope.postMessage(message);

setWasmPaths(WASM_FILE_URLS);

/** Holds the run while paused: `wait()` resolves at once when running, else on resume. */
class PauseGate {
  private waiters: (() => void)[] = [];
  paused = false;
  pause(): void {
    this.paused = true;
  }
  release(): void {
    this.paused = false;
    for (const w of this.waiters.splice(0)) w();
  }
  wait(): Promise<void> {
    return this.paused ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve();
  }
}

interface Run {
  id: number;
  trainer: Trainer | null;
  stopRequested: boolean;
  gate: PauseGate;
}
let run: Run | null = null;

async function startBackend(id: number, choice: BackendChoice): Promise<BackendName> {
  const skipped: { backend: BackendName; reason: string }[] = [];
  for (const backend of backendChain(choice)) {
    try {
      await initBackend(backend);
      post({ type: 'backend', id, backend, skipped });
      return backend;
    } catch (error) {
      skipped.push({ backend, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  throw new Error(`no tfjs backend starts here: ${skipped.map((s) => s.reason).join('; ')}`);
}

/** The engine, held at each rollout while the run is paused. */
function pausable(engine: EnginePort, gate: PauseGate): EnginePort {
  return {
    async rollout(request) {
      await gate.wait();
      return engine.rollout(request);
    },
    createOptimizer: (lr, variables) => engine.createOptimizer(lr, variables),
  };
}

async function execute(current: Run, requested: ExperimentConfig, choice: BackendChoice): Promise<void> {
  const id = current.id;
  try {
    const backend = await startBackend(id, choice);
    const config: ExperimentConfig = { ...requested, runtime: { ...requested.runtime, backend } };
    const env = createEnvFor(config);
    const shippedTeacher = await loadTeacher(config, env);
    const trainer = new Trainer({
      config,
      env,
      engine: pausable(createEnginePort(env), current.gate),
      storage: null,
      onEvent: (event) => post({ type: 'event', id, event }),
      shippedTeacher,
    });
    current.trainer = trainer;
    if (current.stopRequested) trainer.requestStop();
    try {
      await trainer.run();
    } finally {
      trainer.dispose();
    }
  } catch (error) {
    post({ type: 'failed', id, error: toWireError(error) });
  } finally {
    if (run === current) run = null;
  }
}

function handle(request: WorkerRequest): void {
  switch (request.type) {
    case 'start': {
      if (run !== null) {
        post({ type: 'rejected', id: request.id, of: 'start', error: { name: 'RunInProgress', message: `run ${run.id} is still going: stop it first` } });
        return;
      }
      const current: Run = { id: request.id, trainer: null, stopRequested: false, gate: new PauseGate() };
      run = current;
      post({ type: 'ack', id: request.id, of: 'start' });
      void execute(current, request.config, request.backend);
      return;
    }
    case 'pause':
    case 'resume':
    case 'stop': {
      if (run === null) {
        post({ type: 'rejected', id: request.id, of: request.type, error: { name: 'NoRun', message: 'no run is going' } });
        return;
      }
      if (request.type === 'pause') run.gate.pause();
      else if (request.type === 'resume') run.gate.release();
      else {
        run.stopRequested = true;
        run.trainer?.requestStop();
        run.gate.release();
      }
      post({ type: 'ack', id: request.id, of: request.type });
      return;
    }
    default:
      assertNever(request, 'request');
  }
}

scope.onmessage = (event) => handle(event.data);
