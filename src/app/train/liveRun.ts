// The page's one run store, backed by the real module worker (Vite bundles it from this `new URL`).
import { useStore } from 'zustand';
import type { WorkerLike } from '../worker/protocol';
import { createRunStore } from './liveRunStore';
import { trainingWorkerName } from './workerThreads';
import { calibrateWasmThreads } from './startupCalibration';
import { chartsPacedForTraining } from '../charts/redrawQueue';

// the wasm thread count is measured at start-up, before the first run normally begins (startupCalibration.ts)
if (typeof Worker !== 'undefined') void calibrateWasmThreads();

/**
 * A new training worker (this module's `new URL` is the one Vite bundles the worker from). The live charts are paced
 * while it lives (redrawQueue.ts): a run store terminates its worker when the run ends.
 */
export const newTrainingWorker = (): WorkerLike => {
  const worker = new Worker(new URL('../worker/trainingWorker.ts', import.meta.url), {
    type: 'module',
    name: trainingWorkerName(),
  }) as unknown as WorkerLike;
  const ended = chartsPacedForTraining();
  const terminate = worker.terminate.bind(worker);
  worker.terminate = () => {
    ended();
    terminate();
  };
  return worker;
};

export const runStore = createRunStore(newTrainingWorker);

export const useRun = <T>(selector: (s: ReturnType<typeof runStore.getState>) => T): T => useStore(runStore, selector);
