// Where the tab's runs live. One interface, two implementations: IndexedDB in the page and the training worker
// (idbRunRepository.ts) and this in-memory one for tests in Node. Checkpoint files have their own store behind the
// engine's CheckpointStorage (checkpointStore below), keyed by run.
import type { CheckpointFiles, CheckpointStorage } from '../../engine/trainer/checkpoint';
import type { StageName } from '../../engine/trainer/events';
import { STAGE_NAMES } from '../../engine/trainer/events';
import type { RunRecord, StoredEvent, StoredMetrics, TrainedStage } from './runRecord';
import { TRAINED_STAGES } from './runRecord';
import { runLockName, type RunLocks } from './runLocks';
import {
  checkStepLines,
  describeStepLineFault,
  endedStageSteps,
  resumableCheckpoint,
} from '../../core/runLog/stepLines';

/** The queue persisted between reloads (runQueue.ts owns its shape). */
export interface StoredQueue {
  id: string;
  [key: string]: unknown;
}

export interface RunRepository {
  putRun(record: RunRecord): Promise<void>;
  getRun(id: string): Promise<RunRecord | null>;
  listRuns(): Promise<RunRecord[]>;
  /** append metrics lines and events (one transaction: both or neither) */
  append(metrics: readonly StoredMetrics[], events: readonly StoredEvent[]): Promise<void>;
  metrics(runId: string, stage?: TrainedStage): Promise<StoredMetrics[]>;
  events(runId: string): Promise<StoredEvent[]>;
  /**
   * Before resuming from a checkpoint taken after `step` steps of `stage`: drop that stage's lines and events after
   * `step` and everything of later stages, so the resumed log holds each step once (as the CLI's truncateForResume).
   */
  truncateAfter(runId: string, stage: StageName, step: number): Promise<void>;
  /** the run, its lines, events and checkpoints */
  deleteRun(id: string): Promise<void>;
  checkpoints(runId: string): RunCheckpointStore;
  putQueue(queue: StoredQueue): Promise<void>;
  listQueues(): Promise<StoredQueue[]>;
  deleteQueue(id: string): Promise<void>;
}

/** Browser storage is full: the message says what was being saved and how to make room. */
export class StorageQuotaError extends Error {
  override name = 'StorageQuotaError';
}

/** What to do about a full browser storage (the runs table's Continue resumes from the last stored checkpoint). */
export const STORAGE_FULL_ADVICE = 'delete runs in the runs table (or free disk space) and continue';

/**
 * Whether `e` is a write the browser refused for want of room: a QuotaExceededError (Firefox: its NS_ERROR name),
 * Chromium's `DataError: Failed to write blobs (IOError)` / `UnknownError` with an IOError when the disk under the
 * profile is full, or a StorageQuotaError already made of one of those.
 */
export function isStorageFull(e: unknown): boolean {
  const { name, message } = (e ?? {}) as { name?: unknown; message?: unknown };
  if (name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED' || name === 'StorageQuotaError')
    return true;
  const text = typeof message === 'string' ? message : '';
  return (name === 'DataError' || name === 'UnknownError') && /IOError|failed to write blobs|quota/i.test(text);
}

/**
 * `e` (an Error or a wire error's {name, message}) as a StorageQuotaError naming what was being saved, when it is one
 * (isStorageFull), else `e` itself.
 */
export function asStorageFull(e: unknown, what: string): unknown {
  if (!isStorageFull(e) || (e as { name?: unknown }).name === 'StorageQuotaError') return e;
  const { name, message } = e as { name?: unknown; message?: unknown };
  const raw = `${String(name)}: ${String(message)}`;
  return new StorageQuotaError(`browser storage is full while ${what} (${raw}): ${STORAGE_FULL_ADVICE}`);
}

/**
 * The checkpoint stored run `runId` resumes from: the newest one every line before which is stored (a reload may
 * keep a checkpoint yet lose the last lines before it; core/runLog/stepLines.ts), or null when there is none.
 */
export async function resumeCheckpoint(repo: RunRepository, runId: string): Promise<string | null> {
  const [names, lines, events] = await Promise.all([
    repo.checkpoints(runId).list(),
    repo.metrics(runId),
    repo.events(runId),
  ]);
  return resumableCheckpoint(names, lines, endedStageSteps(events.map((e) => e.event)));
}

/** Why stored run `runId`'s lines are not whole ("student step 128 is missing"), or null when they are. */
export async function stepLinesFault(repo: RunRepository, runId: string): Promise<string | null> {
  const [lines, events] = await Promise.all([repo.metrics(runId), repo.events(runId)]);
  const fault = checkStepLines(lines, endedStageSteps(events.map((e) => e.event)));
  return fault ? describeStepLineFault(fault) : null;
}

/** The checkpoint side of a run: the engine's CheckpointStorage, with its default SHA-256. */
export type RunCheckpointStore = Omit<CheckpointStorage, 'sha256'>;

const stageIndex = (s: StageName) => STAGE_NAMES.indexOf(s);

/** Whether a row at (rowStage, rowStep) comes after a checkpoint taken after `step` steps of `stage`. */
export function isAfterCheckpoint(rowStage: StageName, rowStep: number, stage: StageName, step: number): boolean {
  const a = stageIndex(rowStage);
  const b = stageIndex(stage);
  return a > b || (a === b && rowStep > step);
}

const copyFiles = (f: CheckpointFiles): CheckpointFiles => new Map([...f].map(([k, v]) => [k, v.slice()]));

/** Everything in memory (tests; a page where IndexedDB is unavailable falls back to it too). */
export class MemoryRunRepository implements RunRepository {
  private readonly runs = new Map<string, RunRecord>();
  private lines: StoredMetrics[] = [];
  private evs: StoredEvent[] = [];
  private readonly ckpts = new Map<string, { files: Map<string, CheckpointFiles>; latest: string | null }>();
  private readonly queues = new Map<string, StoredQueue>();

  async putRun(record: RunRecord): Promise<void> {
    this.runs.set(record.id, structuredClone(record));
  }
  async getRun(id: string): Promise<RunRecord | null> {
    const r = this.runs.get(id);
    return r ? structuredClone(r) : null;
  }
  async listRuns(): Promise<RunRecord[]> {
    return [...this.runs.values()].map((r) => structuredClone(r)).sort((a, b) => a.createdAt - b.createdAt);
  }
  async append(metrics: readonly StoredMetrics[], events: readonly StoredEvent[]): Promise<void> {
    for (const m of metrics) {
      // a (run, stage, step) row is unique, as the IndexedDB key makes it
      this.lines = this.lines.filter((l) => !(l.runId === m.runId && l.stage === m.stage && l.step === m.step));
      this.lines.push(structuredClone(m));
    }
    for (const e of events) this.evs.push(structuredClone(e));
  }
  async metrics(runId: string, stage?: TrainedStage): Promise<StoredMetrics[]> {
    return this.lines
      .filter((l) => l.runId === runId && (stage === undefined || l.stage === stage))
      .sort((a, b) => TRAINED_STAGES.indexOf(a.stage) - TRAINED_STAGES.indexOf(b.stage) || a.step - b.step)
      .map((l) => structuredClone(l));
  }
  async events(runId: string): Promise<StoredEvent[]> {
    return this.evs
      .filter((e) => e.runId === runId)
      .sort((a, b) => a.seq - b.seq)
      .map((e) => structuredClone(e));
  }
  async truncateAfter(runId: string, stage: StageName, step: number): Promise<void> {
    this.lines = this.lines.filter((l) => l.runId !== runId || !isAfterCheckpoint(l.stage, l.step, stage, step));
    this.evs = this.evs.filter((e) => e.runId !== runId || !isAfterCheckpoint(e.stage, e.step, stage, step));
  }
  async deleteRun(id: string): Promise<void> {
    this.runs.delete(id);
    this.lines = this.lines.filter((l) => l.runId !== id);
    this.evs = this.evs.filter((e) => e.runId !== id);
    this.ckpts.delete(id);
  }
  checkpoints(runId: string): RunCheckpointStore {
    const slot = () => {
      let s = this.ckpts.get(runId);
      if (!s) this.ckpts.set(runId, (s = { files: new Map(), latest: null }));
      return s;
    };
    return {
      write: async (name, files) => {
        slot().files.set(name, copyFiles(files));
        slot().latest = name;
      },
      read: async (name) => {
        const f = slot().files.get(name);
        return f ? copyFiles(f) : null;
      },
      latest: async () => slot().latest,
      list: async () => [...slot().files.keys()].sort(),
      remove: async (name) => {
        slot().files.delete(name);
        if (slot().latest === name) slot().latest = null;
      },
    };
  }
  async putQueue(queue: StoredQueue): Promise<void> {
    this.queues.set(queue.id, structuredClone(queue));
  }
  async listQueues(): Promise<StoredQueue[]> {
    return [...this.queues.values()].map((q) => structuredClone(q));
  }
  async deleteQueue(id: string): Promise<void> {
    this.queues.delete(id);
  }
}

/** A delete of a run some lane of some tab trains (it holds the run's lock): refused, the run is kept. */
export class RunLockedError extends Error {
  override name = 'RunLockedError';
}

/**
 * A repository whose deleteRun refuses a run whose lock is held (by any lane of this tab or by another tab:
 * runLocks.ts): the worker training it would write its record back, and the run would end "completed" without its
 * lines, events and checkpoints. The lock is held for the delete itself, so no lane can start the run meanwhile.
 * Everything else goes to the wrapped repository unchanged.
 */
export class LockCheckedRepository implements RunRepository {
  constructor(
    readonly inner: RunRepository,
    private readonly locks: RunLocks,
  ) {}
  putRun = (record: RunRecord) => this.inner.putRun(record);
  getRun = (id: string) => this.inner.getRun(id);
  listRuns = () => this.inner.listRuns();
  append = (metrics: readonly StoredMetrics[], events: readonly StoredEvent[]) => this.inner.append(metrics, events);
  metrics = (runId: string, stage?: TrainedStage) => this.inner.metrics(runId, stage);
  events = (runId: string) => this.inner.events(runId);
  truncateAfter = (runId: string, stage: StageName, step: number) => this.inner.truncateAfter(runId, stage, step);
  checkpoints = (runId: string) => this.inner.checkpoints(runId);
  putQueue = (queue: StoredQueue) => this.inner.putQueue(queue);
  listQueues = () => this.inner.listQueues();
  deleteQueue = (id: string) => this.inner.deleteQueue(id);
  async deleteRun(id: string): Promise<void> {
    const release = await this.locks.tryAcquire(runLockName(id));
    if (release === null)
      throw new RunLockedError(
        `run ${id} is running (a lane of this tab or another tab trains it): stop it before deleting it`,
      );
    try {
      await this.inner.deleteRun(id);
    } finally {
      release();
    }
  }
}

/** `repo` with lock-checked deletes (wrapping twice is wrapping once). */
export function lockCheckedDeletes(repo: RunRepository, locks: RunLocks): RunRepository {
  return repo instanceof LockCheckedRepository ? repo : new LockCheckedRepository(repo, locks);
}
