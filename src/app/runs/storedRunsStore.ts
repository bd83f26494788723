// The page's list of stored runs and what can be done with them: start a persisted run, resume an interrupted or
// stopped one from its latest checkpoint, show a stored run in the Train view, delete, import. Both the repository
// and the run store are injected, so the whole flow is testable in Node (MemoryRunRepository, a fake worker).
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ExperimentConfig } from '../../core/experiment/config';
import type { BackendChoice, RiderLink } from '../worker/protocol';
import type { RunStore } from '../train/liveRunStore';
import { isActive } from '../train/liveRunState';
import { restoreRunState } from './restoreRunState';
import type { RemoteProgress, RunChannelMessage } from './runChannel';
import { MemoryLocks, type RunLocks } from './runLocks';
import { newRunId, type RunRecord } from './runRecord';
import { lockCheckedDeletes, RunLockedError, type RunRepository } from './runRepository';
import { recordRunEnds } from './runEndRecorder';
import { settleOrphanedRuns } from './orphanedRuns';
import { RunOwnership } from './runOwnership';
import { takeResumePoint } from './runResumePoint';
import { OtherTabRuns } from './otherTabRuns';

export interface NewRun {
  preset: string;
  overrides: string[];
  config: ExperimentConfig;
  backendChoice: BackendChoice;
  point?: Record<string, unknown> | null;
  queueId?: string | null;
  queueIndex?: number | null;
  label?: string | null;
}

export interface RunsState {
  runs: RunRecord[];
  loaded: boolean;
  /** bytes used / available to this origin (navigator.storage.estimate), when known */
  estimate: { usage: number; quota: number } | null;
  /** the last storage or import problem, shown until dismissed */
  error: string | null;
  /** runs ticked for the compare view */
  selected: string[];
  /** runs another tab trains now (it holds their lock), with their progress as its channel last said */
  elsewhere: Record<string, RemoteProgress>;
}

export interface RunsActions {
  /** load the list; runs left 'running' by a closed or reloaded page become 'interrupted' */
  load(): Promise<void>;
  /** read every stored run again (the page's first load, another tab's changes) */
  refresh(): Promise<void>;
  /**
   * Read only the runs `ids` again (after this page imported, stored or deleted them): each is added, replaced or —
   * no longer stored — dropped; the other records are kept as they are (an import of 10,000 folders re-reads those
   * 10,000, not every stored run again).
   */
  refreshRuns(ids: readonly string[]): Promise<void>;
  /** ask the browser again how much storage this origin uses (a live run writes as it goes) */
  reestimate(): Promise<void>;
  /**
   * Store and start `run`; each of `riders` (same trajectory key: core/experiment/trajectoryKey.ts) gets its own
   * stored run and rides along its student stage (src/app/worker/workerRiders.ts). Resolves with the run's id.
   */
  startRun(run: NewRun, riders?: readonly NewRun[]): Promise<string | null>;
  /**
   * Resume stored run `id` from its latest checkpoint with every line before it stored; `riders` as startRun's (it
   * must not have begun its student stage). Resolves with whether it started (else `error` says why).
   */
  resumeRun(id: string, riders?: readonly NewRun[]): Promise<boolean>;
  showRun(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  toggleSelected(id: string): void;
  setSelected(ids: string[]): void;
  setError(message: string | null): void;
  /** resolves when the run store's current run has ended (immediately when none is going) */
  runEnded(): Promise<void>;
  /** a message from another tab on the runs channel (runChannel.ts) */
  remote(message: RunChannelMessage): void;
  /**
   * Call `listener` each time a rider of this store's run leaves its leader (detached: stored, resumable from where
   * it left), with the rider's queue index and run id. Its lock is released first, so that another lane of this
   * page may continue it while the leader trains on. Returns the unsubscribe.
   */
  onRiderLeft(listener: (queueIndex: number | null, runId: string) => void): () => void;
}

/** How this page shares runs with its other tabs: the locks (runLocks.ts) and the channel's sending end. */
export interface RunSharing {
  locks: RunLocks;
  broadcast(message: RunChannelMessage): void;
}

export type RunsStore = StoreApi<RunsState & RunsActions>;

/** A fresh stored run of `run`, 'running' (its worker is about to start it). */
function newRecordAt(id: string, run: NewRun, at: number): RunRecord {
  return {
    id,
    createdAt: at,
    updatedAt: at,
    origin: 'tab',
    preset: run.preset,
    overrides: run.overrides,
    seed: run.config.seed,
    backendChoice: run.backendChoice,
    backend: null,
    config: run.config,
    status: 'running',
    stage: null,
    step: 0,
    totalSteps: 0,
    point: run.point ?? null,
    queueId: run.queueId ?? null,
    queueIndex: run.queueIndex ?? null,
    label: run.label ?? null,
    triggerStep: null,
    checkpoint: null,
    summary: null,
    error: null,
  };
}

/** Runs read at once by refreshRuns. */
const REFRESH_SLICE = 500;

/**
 * `runs` (oldest first, as listRuns gives them) with `fresh` applied: a record replaces the one of its id or is added,
 * null drops it. Linear in the runs, plus a sort only where an added record is older than the newest kept one.
 */
export function mergeRuns(runs: readonly RunRecord[], fresh: ReadonlyMap<string, RunRecord | null>): RunRecord[] {
  const merged: RunRecord[] = [];
  for (const run of runs) {
    if (!fresh.has(run.id)) merged.push(run);
    else {
      const record = fresh.get(run.id);
      if (record) merged.push(record);
    }
  }
  const known = new Set(runs.map((run) => run.id));
  let sorted = true;
  for (const record of fresh.values()) {
    if (!record || known.has(record.id)) continue;
    if (merged.length > 0 && merged[merged.length - 1]!.createdAt > record.createdAt) sorted = false;
    merged.push(record);
  }
  return sorted ? merged : merged.sort((a, b) => a.createdAt - b.createdAt);
}

const message = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

export function createRunsStore(
  repo: () => Promise<RunRepository>,
  runStore: RunStore,
  estimate: () => Promise<{ usage: number; quota: number } | null> = async () => null,
  now: () => number = Date.now,
  sharing: RunSharing = { locks: new MemoryLocks(), broadcast: () => {} },
): RunsStore {
  const { locks, broadcast } = sharing;
  const ownership = new RunOwnership(locks);
  const riderLeft = new Set<(queueIndex: number | null, runId: string) => void>();
  const inAnotherTab = (id: string) =>
    `run ${id} is running in another tab: watch it there, or continue it here once that tab stops it or closes`;
  const busy = () => isActive(runStore.getState().status);
  /** Stored runs for `riders`, each locked by this tab, as the worker's rider links. */
  const riderRecords = async (riders: readonly NewRun[], touched: string[] = []): Promise<RiderLink[]> => {
    const r = await repo();
    const links: RiderLink[] = [];
    for (const rider of riders) {
      const record = newRecordAt(newRunId(now()), rider, now());
      touched.push(record.id);
      await ownership.takeRider(record.id, rider.queueIndex ?? null);
      await r.putRun(record);
      links.push({ runId: record.id, config: record.config });
    }
    return links;
  };
  const store = createStore<RunsState & RunsActions>()((set, get) => {
    const guard = async <T>(f: () => Promise<T>): Promise<T | null> => {
      try {
        return await f();
      } catch (e) {
        set({ error: message(e) });
        return null;
      }
    };
    const others = new OtherTabRuns(
      {
        elsewhere: () => get().elsewhere,
        setElsewhere: (elsewhere) => set({ elsewhere }),
        guard,
        refresh: () => get().refresh(),
        refreshRuns: (ids) => get().refreshRuns(ids),
        showRun: (id) => get().showRun(id),
      },
      repo,
      locks,
      ownership,
      runStore,
      now,
    );
    return {
      runs: [],
      loaded: false,
      estimate: null,
      error: null,
      selected: [],
      elsewhere: {},
      async load() {
        await guard(async () => {
          const s = runStore.getState();
          const elsewhere = await settleOrphanedRuns(await repo(), locks, busy() ? s.recordId : null, now());
          for (const id of Object.keys(elsewhere)) others.watch(id);
          set({ elsewhere });
        });
        await get().refresh();
        set({ loaded: true });
        // nothing shown yet and another tab trains runs (its queue's lanes): show one of them, read-only and live
        const first = Object.keys(get().elsewhere)[0];
        if (first !== undefined && runStore.getState().status === 'idle') {
          others.following = true;
          await get().showRun(first);
        }
      },
      async refresh() {
        await guard(async () => {
          const runs = await (await repo()).listRuns();
          const known = new Set(runs.map((x) => x.id));
          set({ runs, selected: get().selected.filter((id) => known.has(id)) });
          set({ estimate: await estimate() });
        });
      },
      async refreshRuns(ids) {
        await guard(async () => {
          const r = await repo();
          const fresh = new Map<string, RunRecord | null>();
          // read in slices: each IndexedDB read is its own small task, none holds the page
          for (let i = 0; i < ids.length; i += REFRESH_SLICE) {
            const slice = ids.slice(i, i + REFRESH_SLICE);
            const records = await Promise.all(slice.map((id) => r.getRun(id)));
            slice.forEach((id, k) => fresh.set(id, records[k] ?? null));
          }
          set({ runs: mergeRuns(get().runs, fresh), selected: get().selected.filter((id) => fresh.get(id) !== null) });
          set({ estimate: await estimate() });
        });
      },
      async reestimate() {
        await guard(async () => set({ estimate: await estimate() }));
      },
      async startRun(run, riders = []) {
        others.following = false;
        if (busy()) {
          set({ error: 'a run is going: stop it (or let it finish) before starting another' });
          return null;
        }
        const id = newRunId(now());
        if (!(await ownership.take(id))) {
          set({ error: inAnotherTab(id) });
          return null;
        }
        // the records this stores, read back into the table afterwards
        const touched = [id];
        const links = await guard(async () => {
          await (await repo()).putRun(newRecordAt(id, run, now()));
          return riderRecords(riders, touched);
        });
        if (links === null) {
          ownership.drop();
          return null;
        }
        runStore.getState().start(run.config, run.backendChoice, { runId: id, resume: false }, undefined, links);
        await get().refreshRuns(touched);
        return id;
      },
      async resumeRun(id, riders = []) {
        others.following = false;
        if (busy()) {
          set({ error: 'a run is going: stop it before resuming another' });
          return false;
        }
        if (get().elsewhere[id] !== undefined || !(await ownership.take(id))) {
          set({ error: inAnotherTab(id) });
          return false;
        }
        const touched = [id];
        const started = await guard(async () => {
          const { record, restored, continuation } = await takeResumePoint(await repo(), id, now());
          // the backend that ran it, so the resumed config (runtime.backend) equals the checkpoint's
          runStore
            .getState()
            .start(
              record.config,
              record.backend ?? record.backendChoice,
              { runId: id, resume: true, ...(continuation ? { continuation } : {}) },
              restored,
              await riderRecords(riders, touched),
            );
          return true;
        });
        if (started === null) ownership.drop();
        await get().refreshRuns(touched);
        return started === true;
      },
      async showRun(id) {
        if (busy()) return;
        await guard(async () => {
          const r = await repo();
          const record = await r.getRun(id);
          if (!record) return;
          runStore.getState().show(restoreRunState(record, await r.metrics(id), await r.events(id)));
        });
      },
      async remove(id) {
        const s = runStore.getState();
        if (s.recordId === id && isActive(s.status)) {
          set({ error: 'this run is going: stop it before deleting it' });
          return;
        }
        if (get().elsewhere[id] !== undefined) {
          set({ error: inAnotherTab(id) });
          return;
        }
        // refused while any lane of any tab trains it (it holds the run's lock): its worker would write it back
        try {
          await lockCheckedDeletes(await repo(), locks).deleteRun(id);
        } catch (e) {
          set({ error: e instanceof RunLockedError ? e.message : message(e) });
        }
        await get().refreshRuns([id]);
      },
      toggleSelected(id) {
        const sel = get().selected;
        set({ selected: sel.includes(id) ? sel.filter((x) => x !== id) : [...sel, id] });
      },
      setSelected(ids) {
        set({ selected: ids });
      },
      setError(m) {
        set({ error: m });
      },
      remote(m) {
        others.receive(m);
      },
      onRiderLeft(listener) {
        riderLeft.add(listener);
        return () => riderLeft.delete(listener);
      },
      runEnded() {
        return new Promise((resolve) => {
          if (!busy()) {
            resolve();
            return;
          }
          const unsubscribe = runStore.subscribe((s) => {
            if (!isActive(s.status)) {
              unsubscribe();
              resolve();
            }
          });
        });
      },
    };
  });
  // a run that ends (or saves its first checkpoint) shows up in the table with its new status
  recordRunEnds({
    runStore,
    repo,
    ownership,
    broadcast,
    now,
    riderLeft: (queueIndex, runId) => {
      for (const listener of riderLeft) listener(queueIndex, runId);
    },
    refreshRuns: (ids) => store.getState().refreshRuns(ids),
    refresh: () => store.getState().refresh(),
    setError: (m) => store.getState().setError(m),
  });
  return store;
}
