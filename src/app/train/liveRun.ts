// The page's one run store, backed by the real module worker (Vite bundles it from this `new URL`).
import { useStore } from 'zustand';
import type { WorkerLike } from '../worker/protocol';
import { createRunStore } from './liveRunStore';
import { trainingWorkerName } from '../worker/workerThreads';

/** A new training worker (this module's `new URL` is the one Vite bundles the worker from). */
export const newTrainingWorker = (): WorkerLike =>
  new Worker(new URL('../worker/trainingWorker.ts', import.meta.url), {
    type: 'module',
    name: trainingWorkerName(),
  }) as unknown as WorkerLike;

export const runStore = createRunStore(newTrainingWorker);

export const useRun = <T>(selector: (s: ReturnType<typeof runStore.getState>) => T): T => useStore(runStore, selector);
