// The page's run queues: the stored ones (listed with their runs' states), the one going now, and when it started
// (for the ETA). A queue left 'running' by a reload continues on load.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { RunRepository } from './runRepository';
import { runQueue, type RunQueue } from './runQueue';
import type { RunsStore } from './storedRunsStore';
import { MemoryLocks, queueLockName, type RunLocks } from './runLocks';

export interface QueueState {
  queues: RunQueue[];
  /** the queue going now */
  activeId: string | null;
  /** ms (Date.now) when the active queue (re)started, for the ETA */
  startedAt: number | null;
  /** fraction of the queue already done when it (re)started (the ETA counts only what ran since) */
  startedFraction: number;
  error: string | null;
  /** queues another tab runs now (it holds their lock): shown read-only here, as that tab stores them */
  elsewhere: string[];
}

export interface QueueActions {
  load(): Promise<void>;
  /** read the stored queues again (another tab's queue moves on as that tab stores it); this tab's own stay */
  refresh(): Promise<void>;
  /** store the queue and run it */
  enqueue(queue: RunQueue): Promise<void>;
  /** continue a paused queue */
  resume(id: string): Promise<void>;
  remove(id: string): Promise<void>;
}

export type QueueStore = StoreApi<QueueState & QueueActions>;

export function createQueueStore(
  repo: () => Promise<RunRepository>,
  runs: RunsStore,
  /** more runs stores (each with its own worker) a queue may run its runs in beside `runs`: two at a time */
  extraLanes: (queue: RunQueue) => readonly RunsStore[] = () => [],
  now: () => number = Date.now,
  /** one tab runs a queue: it holds the queue's lock (and each run's, through the runs stores) */
  locks: RunLocks = new MemoryLocks(),
): QueueStore {
  /** queues of another tab whose lock this store waits on */
  const watched = new Set<string>();
  const store = createStore<QueueState & QueueActions>()((set, get) => {
    const put = (q: RunQueue) => set({ queues: [...get().queues.filter((x) => x.id !== q.id), q] });
    const go = async (queue: RunQueue) => {
      if (get().activeId !== null) {
        set({ error: `queue ${get().activeId} is going: one queue at a time` });
        return;
      }
      const release = await locks.tryAcquire(queueLockName(queue.id));
      if (release === null) {
        set({ error: `queue ${queue.id} is running in another tab` });
        return;
      }
      const r = await repo();
      const done = queue.items.filter((i) => i.status === 'completed').length;
      set({
        activeId: queue.id,
        startedAt: now(),
        startedFraction: queue.items.length ? done / queue.items.length : 0,
        error: null,
      });
      try {
        await runQueue(queue, r, [runs, ...extraLanes(queue)], (q) => {
          put(q);
          // the table lists runs the other lane started, too
          void runs.getState().refresh();
        });
      } catch (e) {
        set({ error: e instanceof Error ? e.message : String(e) });
      } finally {
        release();
        set({ activeId: null, startedAt: null });
        await runs.getState().refresh();
      }
    };
    return {
      queues: [],
      activeId: null,
      startedAt: null,
      startedFraction: 0,
      error: null,
      elsewhere: [],
      async load() {
        await get().refresh();
        // a queue left running by a reload continues here; one another tab runs (it holds its lock) is only shown
        const pending = get().queues.find((q) => q.state === 'running' && !get().elsewhere.includes(q.id));
        if (pending) await go(pending);
      },
      async refresh() {
        const r = await repo();
        const stored = (await r.listQueues()) as RunQueue[];
        const held = await locks.heldElsewhere();
        const own = get().queues.find((q) => q.id === get().activeId);
        const queues = stored.map((q) => (q.id === own?.id ? own : q)).sort((a, b) => a.createdAt - b.createdAt);
        const elsewhere = queues.filter((q) => held.has(queueLockName(q.id))).map((q) => q.id);
        set({ queues, elsewhere });
        // once that tab lets go (its queue done, paused or the tab closed), read its final state
        for (const id of elsewhere)
          if (!watched.has(id)) {
            watched.add(id);
            void locks.whenFree(queueLockName(id)).then(() => {
              watched.delete(id);
              return get().refresh();
            });
          }
      },
      async enqueue(queue) {
        const r = await repo();
        await r.putQueue(queue);
        put(queue);
        await go(queue);
      },
      async resume(id) {
        const q = get().queues.find((x) => x.id === id);
        if (q) await go(q);
      },
      async remove(id) {
        if (get().activeId === id) {
          set({ error: 'this queue is going: stop its run first' });
          return;
        }
        // another tab's queue is not this tab's to forget: refused while that tab holds its lock
        const release = await locks.tryAcquire(queueLockName(id));
        if (release === null) {
          set({ error: `queue ${id} is running in another tab: it can be forgotten once that tab stops it or closes` });
          return;
        }
        try {
          await (await repo()).deleteQueue(id);
        } finally {
          release();
        }
        set({ queues: get().queues.filter((q) => q.id !== id) });
      },
    };
  });
  // another tab's queue moves on as its runs start and end there: this tab's runs table is re-read then (the runs
  // channel, storedRunsStore.ts), and so are the stored queues while some queue is running elsewhere
  runs.subscribe((state, prev) => {
    if (state.runs !== prev.runs && (store.getState().elsewhere.length > 0 || Object.keys(state.elsewhere).length > 0))
      void store.getState().refresh();
  });
  return store;
}
