// The import worker's logic, without the worker: read the small JSON files of dropped run folders whole, stream each
// JSON-lines log (Blob.stream(), cut into lines by the core's LineSplitter, the replay's own) and store its rows in
// batches, so neither the page nor the worker ever holds a whole metrics.jsonl. The repository is injected (IndexedDB
// in the worker, memory in the tests); importWorker.ts wires it to `self`.
import { LineSplitter } from '../../core/replay/lineSplitter';
import { blobTextChunks } from '../files/blobText';
import { finishImportedRecord, importedRow, isRunLog, planRunImports, StudentLogFacts } from '../runs/runFolderFiles';
import {
  IMPORT_PROGRESS_INTERVAL_MS,
  type ImportFile,
  type ImportWorkerRequest,
  type ImportWorkerResponse,
} from '../runs/importWorkerProtocol';
import type { StoredEvent, StoredMetrics } from '../runs/runRecord';
import type { RunRepository } from '../runs/runRepository';

/** Rows written per IndexedDB transaction. */
const BATCH_ROWS = 5000;

export function createImportWorkerHandler(
  post: (message: ImportWorkerResponse) => void,
  repo: () => Promise<RunRepository>,
  now: () => number = () => performance.now(),
  clock: () => number = Date.now,
) {
  async function importFiles(request: ImportWorkerRequest): Promise<void> {
    const { id, files } = request;
    const totalBytes = files.reduce((n, f) => n + f.blob.size, 0);
    let done = 0;
    let lastPost = Number.NEGATIVE_INFINITY;
    const progress = (bytesRead: number, force = false) => {
      const t = now();
      if (!force && t - lastPost < IMPORT_PROGRESS_INTERVAL_MS) return;
      lastPost = t;
      post({ type: 'progress', id, bytesRead, totalBytes });
    };
    progress(0, true);
    const written: string[] = [];
    const r = await repo();
    try {
      const small = files.filter((f) => !isRunLog(f.path));
      const json = [];
      for (const f of small) {
        json.push({ path: f.path, text: await f.blob.text() });
        done += f.blob.size;
        progress(done);
      }
      const blobs = new Map(files.filter((f) => isRunLog(f.path)).map((f) => [f.path, f.blob]));
      // every log's path, a repeated one included (planRunImports refuses two of one name in one folder)
      const logPaths = files.filter((f) => isRunLog(f.path)).map((f) => f.path);
      const planned = planRunImports(json, logPaths, clock());
      for (const plan of planned) {
        const { record, logs } = plan;
        written.push(record.id);
        let metrics: StoredMetrics[] = [];
        let events: StoredEvent[] = [];
        let seq = 0;
        const facts = new StudentLogFacts();
        const flush = async () => {
          if (metrics.length === 0 && events.length === 0) return;
          await r.append(metrics, events);
          metrics = [];
          events = [];
        };
        for (const log of logs) {
          const blob = blobs.get(log.path) as Blob;
          const splitter = new LineSplitter((text, line) => {
            const row = importedRow(record.id, log.kind, log.where, text, line, seq);
            if (row?.event) {
              events.push(row.event);
              seq += 1;
            }
            if (row?.metrics) {
              metrics.push(row.metrics);
              facts.see(row.metrics);
            }
          });
          const before = done;
          for await (const chunk of blobTextChunks(blob, (read) => progress(before + read))) {
            splitter.push(chunk);
            if (metrics.length + events.length >= BATCH_ROWS) await flush();
          }
          splitter.end();
          done = before + blob.size;
        }
        await flush();
        // the record last: a run shows in the table only once all its rows are in
        await r.putRun(finishImportedRecord(plan, facts));
      }
      progress(totalBytes, true);
      post({ type: 'done', id, runIds: written });
    } catch (error) {
      for (const runId of written) await r.deleteRun(runId).catch(() => undefined);
      const e = error instanceof Error ? error : new Error(String(error));
      post({ type: 'error', id, error: { name: e.name, message: e.message } });
    }
  }

  /** the slices sent so far, per import id */
  const slices = new Map<number, ImportFile[]>();
  return {
    handle(request: ImportWorkerRequest): Promise<void> {
      switch (request.type) {
        case 'files':
          slices.set(request.id, [...(slices.get(request.id) ?? []), ...request.files]);
          return Promise.resolve();
        case 'import': {
          const files = [...(slices.get(request.id) ?? []), ...request.files];
          slices.delete(request.id);
          return importFiles({ ...request, files });
        }
        default: {
          const never: never = request;
          throw new Error(`unknown import worker request ${JSON.stringify(never)}`);
        }
      }
    },
  };
}
