// The page's runs store and queue store: IndexedDB (the same database the training worker writes), or — where
// IndexedDB cannot open (a private window that forbids it) — memory, with the reason shown.
import { useStore } from 'zustand';
import { newTrainingWorker, runStore } from '../train/liveRun';
import { IdbRunRepository, storageEstimate } from './idbRunRepository';
import { lockCheckedDeletes, MemoryRunRepository, type RunRepository } from './runRepository';
import { createQueueStore } from './queueStore';
import type { RunQueue } from './runQueue';
import { createRunStore } from '../train/liveRunStore';
import { logicalCores, shareCores } from '../train/workerThreads';
import { createRunsStore, type RunsActions, type RunSharing, type RunsState, type RunsStore } from './storedRunsStore';
import { RUN_CHANNEL, type RunChannelMessage } from './runChannel';
import { pageRunLocks } from './runLocks';

let opened: Promise<RunRepository> | null = null;
let fallbackReason: string | null = null;

export function runRepository(): Promise<RunRepository> {
  opened ??= IdbRunRepository.open().catch((e: unknown) => {
    fallbackReason = `runs are kept in memory only (IndexedDB did not open: ${e instanceof Error ? e.message : String(e)})`;
    return new MemoryRunRepository();
  });
  return opened;
}

// one tab owns a run (a Web Lock per run id); the others hear its progress on the runs channel
const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(RUN_CHANNEL);
const sharing: RunSharing = {
  locks: pageRunLocks(),
  broadcast: (message: RunChannelMessage) => channel?.postMessage(message),
};

export const runsStore = createRunsStore(runRepository, runStore, storageEstimate, Date.now, sharing);
if (channel) channel.onmessage = (event: MessageEvent<RunChannelMessage>) => runsStore.getState().remote(event.data);

/**
 * Where the machine has a second core, a queue runs two runs at a time: the second lane is a runs store with its own
 * worker, whose wasm takes half the cores (the worker reads its thread count from its name). On two cores each run
 * then has one core: two lanes there finish a queue sooner than one, though not twice as fast (the two runs share
 * the cores' caches and memory).
 */
let secondLane: RunsStore | null = null;
function queueLanes(queue: RunQueue): RunsStore[] {
  // temperature-matched arms depend on each other: those queues run one at a time (runQueue.ts)
  if (logicalCores < 2 || queue.spec.matchTemperature) return [];
  shareCores(2);
  secondLane ??= createRunsStore(runRepository, createRunStore(newTrainingWorker), storageEstimate, Date.now, sharing);
  return [secondLane];
}
// the queue deletes a stale record of an item only when no lane of any tab trains it (its run lock is free)
const queueRepository = async () => lockCheckedDeletes(await runRepository(), sharing.locks);
export const queueStore = createQueueStore(queueRepository, runsStore, queueLanes, Date.now, sharing.locks);
// a single run (no queue going) takes every core again
queueStore.subscribe((s) => {
  if (s.activeId === null) shareCores(1);
});

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
