// The page's runs store and queue store: IndexedDB (the same database the training worker writes), or — where
// IndexedDB cannot open (a private window that forbids it) — memory, with the reason shown.
import { useStore } from 'zustand';
import { runStore } from '../train/runStoreInstance';
import { IdbRunRepository, storageEstimate } from './idbRunRepository';
import { MemoryRunRepository, type RunRepository } from './runRepository';
import { createQueueStore } from './queueStore';
import { createRunsStore, type RunsActions, type RunsState } from './runsStore';

let opened: Promise<RunRepository> | null = null;
let fallbackReason: string | null = null;

export function runRepository(): Promise<RunRepository> {
  opened ??= IdbRunRepository.open().catch((e: unknown) => {
    fallbackReason = `runs are kept in memory only (IndexedDB did not open: ${e instanceof Error ? e.message : String(e)})`;
    return new MemoryRunRepository();
  });
  return opened;
}

export const runsStore = createRunsStore(runRepository, runStore, storageEstimate);
export const queueStore = createQueueStore(runRepository, runsStore, runStore);

export const useRuns = <T>(selector: (s: RunsState & RunsActions) => T): T => useStore(runsStore, selector);

/** Load the stored runs and continue a queue a reload interrupted (once per page). */
let started = false;
export function startRunsOnce(): void {
  if (started || typeof window === 'undefined') return;
  started = true;
  void runsStore
    .getState()
    .load()
    .then(() => {
      if (fallbackReason) runsStore.getState().setError(fallbackReason);
      return queueStore.getState().load();
    });
}
