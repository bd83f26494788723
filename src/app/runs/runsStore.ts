// The page's list of stored runs and what can be done with them: start a persisted run, resume an interrupted or
// stopped one from its latest checkpoint, show a stored run in the Train view, delete, import. Both the repository
// and the run store are injected, so the whole flow is testable in Node (MemoryRunRepository, a fake worker).
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ExperimentConfig } from '../../core/experiment/config';
import type { StageName } from '../../engine/trainer/events';
import { STAGE_NAMES } from '../../engine/trainer/events';
import type { BackendChoice } from '../worker/protocol';
import type { RunStore } from '../worker/runStore';
import { isActive } from '../worker/runState';
import { restoreRunState } from './restoreRunState';
import { newRunId, type RunRecord } from './runRecord';
import type { RunRepository } from './runRepository';

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
}

export interface RunsActions {
  /** load the list; runs left 'running' by a closed or reloaded page become 'interrupted' */
  load(): Promise<void>;
  refresh(): Promise<void>;
  /** ask the browser again how much storage this origin uses (a live run writes as it goes) */
  reestimate(): Promise<void>;
  startRun(run: NewRun): Promise<string | null>;
  resumeRun(id: string): Promise<void>;
  showRun(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  toggleSelected(id: string): void;
  setSelected(ids: string[]): void;
  setError(message: string | null): void;
  /** resolves when the run store's current run has ended (immediately when none is going) */
  runEnded(): Promise<void>;
}

export type RunsStore = StoreApi<RunsState & RunsActions>;

/** "student-000010" → the checkpoint's stage and completed steps. */
function checkpointPosition(name: string): { stage: StageName; step: number } | null {
  const m = /^([a-z]+)-(\d+)$/.exec(name);
  if (!m || !(STAGE_NAMES as readonly string[]).includes(m[1]!)) return null;
  return { stage: m[1] as StageName, step: Number(m[2]) };
}

const message = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

export function createRunsStore(
  repo: () => Promise<RunRepository>,
  runStore: RunStore,
  estimate: () => Promise<{ usage: number; quota: number } | null> = async () => null,
  now: () => number = Date.now,
): RunsStore {
  const store = createStore<RunsState & RunsActions>()((set, get) => {
    const guard = async <T>(f: () => Promise<T>): Promise<T | null> => {
      try {
        return await f();
      } catch (e) {
        set({ error: message(e) });
        return null;
      }
    };
    return {
      runs: [],
      loaded: false,
      estimate: null,
      error: null,
      selected: [],
      async load() {
        await guard(async () => {
          const r = await repo();
          const live = runStore.getState().recordId;
          for (const run of await r.listRuns()) {
            if (run.status === 'running' && !(run.id === live && isActive(runStore.getState().status)))
              await r.putRun({ ...run, status: 'interrupted', updatedAt: now() });
          }
        });
        await get().refresh();
        set({ loaded: true });
      },
      async refresh() {
        await guard(async () => {
          const r = await repo();
          const runs = await r.listRuns();
          const known = new Set(runs.map((x) => x.id));
          set({ runs, selected: get().selected.filter((id) => known.has(id)) });
          set({ estimate: await estimate() });
        });
      },
      async reestimate() {
        await guard(async () => set({ estimate: await estimate() }));
      },
      async startRun(run) {
        if (isActive(runStore.getState().status)) {
          set({ error: 'a run is going: stop it (or let it finish) before starting another' });
          return null;
        }
        const id = newRunId(now());
        const record: RunRecord = {
          id,
          createdAt: now(),
          updatedAt: now(),
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
        const ok = await guard(async () => {
          await (await repo()).putRun(record);
          return true;
        });
        if (!ok) return null;
        runStore.getState().start(run.config, run.backendChoice, { runId: id, resume: false });
        await get().refresh();
        return id;
      },
      async resumeRun(id) {
        if (isActive(runStore.getState().status)) {
          set({ error: 'a run is going: stop it before resuming another' });
          return;
        }
        await guard(async () => {
          const r = await repo();
          const record = await r.getRun(id);
          if (!record) throw new Error(`run ${id} is no longer stored`);
          const name = await r.checkpoints(id).latest();
          const at = name ? checkpointPosition(name) : null;
          if (!name || !at)
            throw new Error(`run ${id} has no checkpoint to resume from (it stopped before its first checkpoint)`);
          await r.truncateAfter(id, at.stage, at.step);
          await r.putRun({ ...record, status: 'running', error: null, updatedAt: now() });
          const restored = restoreRunState(record, await r.metrics(id), await r.events(id));
          // the backend that ran it, so the resumed config (runtime.backend) equals the checkpoint's
          runStore
            .getState()
            .start(record.config, record.backend ?? record.backendChoice, { runId: id, resume: true }, restored);
        });
        await get().refresh();
      },
      async showRun(id) {
        if (isActive(runStore.getState().status)) return;
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
        await guard(async () => (await repo()).deleteRun(id));
        await get().refresh();
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
      runEnded() {
        return new Promise((resolve) => {
          if (!isActive(runStore.getState().status)) {
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
  let wasActive = false;
  runStore.subscribe((s) => {
    const active = isActive(s.status);
    if (wasActive && !active) {
      const failed = s.status === 'failed' && s.recordId !== null ? { id: s.recordId, error: s.error } : null;
      void (async () => {
        // a run that failed before the worker could save anything (no backend, storage did not open) is marked here
        if (failed) {
          const r = await repo();
          const rec = await r.getRun(failed.id);
          if (rec && rec.status === 'running')
            await r.putRun({ ...rec, status: 'failed', error: failed.error?.message ?? 'failed', updatedAt: now() });
        }
        await store.getState().refresh();
      })().catch((e: unknown) => store.getState().setError(message(e)));
    }
    wasActive = active;
  });
  return store;
}
