// The training Web Worker (a module worker): starts a tfjs backend with fallback (webgpu → webgl → wasm → cpu),
// builds the environment and the engine, runs the trainer, and posts its events to the page (protocol.ts).
// Pause and stop reach the trainer through RunControl (shared flags checked at every step boundary, or messages).
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { createEnvFor } from '../../core/experiment/envFactory';
import type { ExperimentConfig } from '../../core/experiment/config';
import { initBackend, type BackendName } from '../../engine/backend';
import type { EnginePort } from '../../engine/trainer/enginePort';
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
import { softwareEmulation } from './backendProbe';
import { RunControl } from './runControl';
import { loadTeacher } from './teacherLoader';
import { WASM_FILE_URLS } from './wasmAssets';

interface WorkerScope {
  postMessage(message: WorkerResponse): void;
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;
const post = (message: WorkerResponse) => scope.postMessage(message);

setWasmPaths(WASM_FILE_URLS);
// The threaded wasm build's pthread workers break once Vite bundles and minifies the backend ("e is not defined"
// in the production build): run the single-threaded SIMD build everywhere, so dev and production behave alike.
tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);

interface Run {
  id: number;
  control: RunControl;
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
      await initBackend(backend);
      post({ type: 'backend', id, backend, skipped });
      return backend;
    } catch (error) {
      skipped.push({ backend, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  throw new Error(`no tfjs backend starts here: ${skipped.map((s) => s.reason).join('; ')}`);
}

/** The engine, with the run's pause/stop checked before each rollout. */
function controlled(engine: EnginePort, control: RunControl): EnginePort {
  return {
    async rollout(request) {
      await control.beforeRollout();
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
      engine: controlled(createEnginePort(env), current.control),
      storage: null,
      onEvent: (event) => {
        post({ type: 'event', id, event });
        // the step's event is its last act before the trainer's step boundary (checkpoint, stop)
        if (event.type === 'step') current.control.atStepBoundary();
      },
      shippedTeacher,
    });
    current.control.attach(trainer);
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
      const current: Run = { id, control: new RunControl(flags, (state) => post({ type: 'control', id, state })) };
      run = current;
      post({ type: 'ack', id: request.id, of: 'start' });
      void execute(current, request.config, request.backend);
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
