// The runs in IndexedDB (the `idb` wrapper), shared by the page (list, read, delete, import) and the training worker
// (metrics, events, status, checkpoints as it goes). One database, `retirelab-runs`:
//   runs          RunRecord by id
//   metrics       StoredMetrics by [runId, stage, step]
//   events        StoredEvent by [runId, seq]
//   checkpoints   { runId, name, files: { "model.json" | "weights.bin" | "state.json": Uint8Array } } by [runId, name]
//                 — the same three files the CLI writes into checkpoints/<name>/ (checkpoint.ts), so a run exported
//                 from the tab resumes with `npm run experiment -- --resume` and vice versa
//   latest        { runId, name }: the newest complete checkpoint (the CLI's LATEST), written in the same
//                 transaction as the checkpoint itself, so a reader sees all of a checkpoint or none of it
//   queues        the run queue (runQueue.ts)
// A full disk (QuotaExceededError, or Chromium's DataError/UnknownError with an IOError) becomes a StorageQuotaError
// naming the run and what to do (runRepository.ts's isStorageFull).
import { openDB, type IDBPDatabase } from 'idb';
import type { CheckpointFiles } from '../../engine/trainer/checkpoint';
import { STAGE_NAMES, type StageName } from '../../engine/trainer/events';
import type { RunRecord, StoredEvent, StoredMetrics, TrainedStage } from './runRecord';
import { TRAINED_STAGES } from './runRecord';
import {
  asStorageFull,
  isAfterCheckpoint,
  type RunCheckpointStore,
  type RunRepository,
  type StoredQueue,
} from './runRepository';

const RUNS_DB = 'retirelab-runs';
const VERSION = 1;

export { StorageQuotaError } from './runRepository';

async function guarded<T>(what: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw asStorageFull(e, what);
  }
}

const runRange = (runId: string) => IDBKeyRange.bound([runId], [runId, []]);
const stageOrder = (s: StageName) => STAGE_NAMES.indexOf(s);

interface CheckpointRow {
  runId: string;
  name: string;
  files: Record<string, Uint8Array>;
}

function openRunsDb(name: string = RUNS_DB): Promise<IDBPDatabase> {
  return openDB(name, VERSION, {
    upgrade(db) {
      db.createObjectStore('runs', { keyPath: 'id' });
      db.createObjectStore('metrics', { keyPath: ['runId', 'stage', 'step'] });
      db.createObjectStore('events', { keyPath: ['runId', 'seq'] });
      db.createObjectStore('checkpoints', { keyPath: ['runId', 'name'] });
      db.createObjectStore('latest', { keyPath: 'runId' });
      db.createObjectStore('queues', { keyPath: 'id' });
    },
  });
}

export class IdbRunRepository implements RunRepository {
  constructor(private readonly db: IDBPDatabase) {}

  static async open(name: string = RUNS_DB): Promise<IdbRunRepository> {
    return new IdbRunRepository(await openRunsDb(name));
  }

  putRun(record: RunRecord): Promise<void> {
    return guarded(`saving run ${record.id}`, async () => {
      await this.db.put('runs', record);
    });
  }
  async getRun(id: string): Promise<RunRecord | null> {
    return ((await this.db.get('runs', id)) as RunRecord | undefined) ?? null;
  }
  async listRuns(): Promise<RunRecord[]> {
    const all = (await this.db.getAll('runs')) as RunRecord[];
    return all.sort((a, b) => a.createdAt - b.createdAt);
  }
  append(metrics: readonly StoredMetrics[], events: readonly StoredEvent[]): Promise<void> {
    if (metrics.length === 0 && events.length === 0) return Promise.resolve();
    return guarded(`saving the metrics of run ${metrics[0]?.runId ?? events[0]?.runId}`, async () => {
      const tx = this.db.transaction(['metrics', 'events'], 'readwrite');
      const m = tx.objectStore('metrics');
      const e = tx.objectStore('events');
      await Promise.all([...metrics.map((row) => m.put(row)), ...events.map((row) => e.put(row)), tx.done]);
    });
  }
  async metrics(runId: string, stage?: TrainedStage): Promise<StoredMetrics[]> {
    const range = stage ? IDBKeyRange.bound([runId, stage, -Infinity], [runId, stage, Infinity]) : runRange(runId);
    const rows = (await this.db.getAll('metrics', range)) as StoredMetrics[];
    return rows.sort((a, b) => TRAINED_STAGES.indexOf(a.stage) - TRAINED_STAGES.indexOf(b.stage) || a.step - b.step);
  }
  async events(runId: string): Promise<StoredEvent[]> {
    return (await this.db.getAll('events', runRange(runId))) as StoredEvent[];
  }
  truncateAfter(runId: string, stage: StageName, step: number): Promise<void> {
    return guarded(`dropping the lines of run ${runId} after its checkpoint`, () => this.truncate(runId, stage, step));
  }
  private async truncate(runId: string, stage: StageName, step: number): Promise<void> {
    const tx = this.db.transaction(['metrics', 'events'], 'readwrite');
    for (const store of ['metrics', 'events'] as const) {
      let cursor = await tx.objectStore(store).openCursor(runRange(runId));
      while (cursor) {
        const row = cursor.value as { stage: StageName; step: number };
        if (stageOrder(row.stage) >= 0 && isAfterCheckpoint(row.stage, row.step, stage, step)) await cursor.delete();
        cursor = await cursor.continue();
      }
    }
    await tx.done;
  }
  async deleteRun(id: string): Promise<void> {
    const tx = this.db.transaction(['runs', 'metrics', 'events', 'checkpoints', 'latest'], 'readwrite');
    await Promise.all([
      tx.objectStore('runs').delete(id),
      tx.objectStore('metrics').delete(runRange(id)),
      tx.objectStore('events').delete(runRange(id)),
      tx.objectStore('checkpoints').delete(runRange(id)),
      tx.objectStore('latest').delete(id),
      tx.done,
    ]);
  }
  checkpoints(runId: string): RunCheckpointStore {
    const db = this.db;
    return {
      write: (name, files) =>
        guarded(`writing checkpoint ${name} of run ${runId}`, async () => {
          const row: CheckpointRow = { runId, name, files: Object.fromEntries(files) };
          const tx = db.transaction(['checkpoints', 'latest'], 'readwrite');
          await Promise.all([
            tx.objectStore('checkpoints').put(row),
            tx.objectStore('latest').put({ runId, name }),
            tx.done,
          ]);
        }),
      read: async (name) => {
        const row = (await db.get('checkpoints', [runId, name])) as CheckpointRow | undefined;
        return row ? (new Map(Object.entries(row.files)) as CheckpointFiles) : null;
      },
      latest: async () => ((await db.get('latest', runId)) as { name: string } | undefined)?.name ?? null,
      list: async () =>
        ((await db.getAllKeys('checkpoints', runRange(runId))) as [string, string][]).map((k) => k[1]).sort(),
      remove: async (name) => {
        const tx = db.transaction(['checkpoints', 'latest'], 'readwrite');
        const latest = (await tx.objectStore('latest').get(runId)) as { name: string } | undefined;
        await tx.objectStore('checkpoints').delete([runId, name]);
        if (latest?.name === name) await tx.objectStore('latest').delete(runId);
        await tx.done;
      },
    };
  }
  putQueue(queue: StoredQueue): Promise<void> {
    return guarded(`saving queue ${queue.id}`, async () => {
      await this.db.put('queues', queue);
    });
  }
  async listQueues(): Promise<StoredQueue[]> {
    return (await this.db.getAll('queues')) as StoredQueue[];
  }
  async deleteQueue(id: string): Promise<void> {
    await this.db.delete('queues', id);
  }
}

/** Bytes this origin uses and may use (navigator.storage.estimate), or null where the API is missing. */
export async function storageEstimate(): Promise<{ usage: number; quota: number } | null> {
  const storage = (globalThis.navigator as { storage?: StorageManager } | undefined)?.storage;
  if (!storage?.estimate) return null;
  const e = await storage.estimate();
  return { usage: e.usage ?? 0, quota: e.quota ?? 0 };
}
