// The training Web Worker (a module worker): wires the worker's logic (workerHandler.ts) to `self` with the browser's
// dependencies — tfjs backends with the app's own wasm files, IndexedDB for stored runs, the shipped teacher fetched
// from the app's server, and the trajectory viewer's probe host on a BroadcastChannel.
// first: binds this worker to the app's origin before any other module runs (originGuard.ts)
import './originGuard';
import { initBackend } from '../../engine/backend';
import { ProbeHost } from './probeHost';
import { IdbRunRepository } from '../runs/idbRunRepository';
import { broadcastWasmRuntime, softwareEmulation } from './backendProbe';
import type { WorkerRequest, WorkerResponse } from './protocol';
import { loadTeacher } from './teacherLoader';
import { WASM_FILE_URLS } from './wasmAssets';
import { createWorkerHandler } from './workerHandler';

interface WorkerScope {
  postMessage(message: WorkerResponse): void;
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;

// wasm (its .wasm files served by the app: WASM_FILE_URLS) runs the threaded-SIMD build with one thread per logical
// core where the page is cross-origin isolated (vite.config.ts keeps its pthread helpers working after
// minification), the SIMD build elsewhere.
// A queue's second lane names its worker `… threads=N` (src/app/runs/storedRuns.ts): two runs share the cores.
const named = /threads=(\d+)/.exec((self as { name?: string }).name ?? '');
const WASM_THREADS = named ? Math.max(1, Number(named[1])) : navigator.hardwareConcurrency || 1;

const handler = createWorkerHandler((message) => scope.postMessage(message), {
  startBackend: (backend) => initBackend(backend, { wasmPath: WASM_FILE_URLS, wasmThreads: WASM_THREADS }),
  softwareEmulation,
  backendStarted: (backend) => {
    if (backend === 'wasm') void broadcastWasmRuntime();
  },
  openRepository: () => IdbRunRepository.open(),
  loadTeacher: (config, env) => loadTeacher(config, env),
  createProbe: (control) => new ProbeHost(control),
});

scope.onmessage = (event) => handler.handle(event.data);
