// Import CLI run folders (or a sweep folder of them) into the runs table: choose a folder, or the files themselves
// (config.json, metrics.jsonl, summary.json, …). A worker reads them (File.stream(): a metrics.jsonl of hundreds of
// MB never freezes the page) and stores the runs in IndexedDB; a progress bar shows the bytes read. Problems name
// the file and line.
import { useState } from 'react';
import { size } from '../files/LogFilePicker';
import { IdbRunRepository } from './idbRunRepository';
import {
  IMPORT_FILES_PER_MESSAGE,
  type ImportFile,
  type ImportWorkerRequest,
  type ImportWorkerResponse,
} from './importWorkerProtocol';
import { importRunFolders, type DroppedFile } from './runFolderFiles';
import { runRepository, runsStore } from './storedRuns';

const WANTED = /(^|\/)(config\.json|summary\.json|comparison\.json|(metrics|sft|teacher|events)\.jsonl)$/;

type Progress = { bytesRead: number; totalBytes: number };

let nextId = 1;

/** Import in the worker; resolves with the stored runs' ids (rejects with the worker's FILE:LINE message). */
function importInWorker(files: ImportFile[], onProgress: (p: Progress) => void): Promise<string[]> {
  const worker = new Worker(new URL('../worker/importWorker.ts', import.meta.url), {
    type: 'module',
    name: 'retirelab-import',
  });
  const id = nextId++;
  return new Promise<string[]>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<ImportWorkerResponse>) => {
      const m = event.data;
      switch (m.type) {
        case 'progress':
          onProgress({ bytesRead: m.bytesRead, totalBytes: m.totalBytes });
          return;
        case 'done':
          resolve(m.runIds);
          return;
        case 'error':
          reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
          return;
        default: {
          const never: never = m;
          reject(new Error(`unknown import worker message ${JSON.stringify(never)}`));
        }
      }
    };
    worker.onerror = (e) => reject(new Error(`the import worker failed: ${e.message || 'it could not start'}`));
    void (async () => {
      // in slices, each its own task: cloning 10,000 Files into one message held the page for seconds
      let at = 0;
      for (; files.length - at > IMPORT_FILES_PER_MESSAGE; at += IMPORT_FILES_PER_MESSAGE) {
        const slice = files.slice(at, at + IMPORT_FILES_PER_MESSAGE);
        worker.postMessage({ type: 'files', id, files: slice } satisfies ImportWorkerRequest);
        await new Promise((next) => setTimeout(next, 0));
      }
      worker.postMessage({ type: 'import', id, files: files.slice(at) } satisfies ImportWorkerRequest);
    })();
  }).finally(() => worker.terminate());
}

/** Where IndexedDB did not open (runs kept in memory), the worker cannot reach the page's store: read here. */
async function importHere(files: ImportFile[]): Promise<string[]> {
  const dropped: DroppedFile[] = [];
  for (const f of files) dropped.push({ path: f.path, text: await f.blob.text() });
  const repo = await runRepository();
  const ids: string[] = [];
  for (const r of importRunFolders(dropped)) {
    await repo.append(r.metrics, r.events);
    await repo.putRun(r.record);
    ids.push(r.record.id);
  }
  return ids;
}

async function importFiles(list: FileList | readonly File[], onProgress: (p: Progress | null) => void) {
  const files: ImportFile[] = [];
  for (const f of Array.from(list)) {
    const path = (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name;
    if (WANTED.test(path)) files.push({ path, blob: f });
  }
  try {
    // the total comes from the worker: a File's size is a synchronous look at the disk (10,000 files: seconds)
    onProgress({ bytesRead: 0, totalBytes: 0 });
    const ids =
      (await runRepository()) instanceof IdbRunRepository
        ? await importInWorker(files, onProgress)
        : await importHere(files);
    // only the imported runs are read into the table, not every stored run again
    await runsStore.getState().refreshRuns(ids);
  } catch (e) {
    runsStore.getState().setError(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  } finally {
    onProgress(null);
  }
}

export function RunImport() {
  const [progress, setProgress] = useState<Progress | null>(null);
  const pick = (files: FileList | null) => {
    if (files) void importFiles(files, setProgress);
  };
  return (
    <span className="run-import">
      <label className="button-like">
        import run folder…
        <input
          type="file"
          data-testid="import-folder"
          hidden
          multiple
          disabled={progress !== null}
          // a folder picker (Chromium, Firefox, Safari): keeps the relative paths a sweep folder needs
          {...({ webkitdirectory: '' } as Record<string, string>)}
          onChange={(e) => {
            pick(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
      </label>
      <label className="button-like">
        import files…
        <input
          type="file"
          data-testid="import-files"
          hidden
          multiple
          disabled={progress !== null}
          accept=".json,.jsonl"
          onChange={(e) => {
            pick(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
      </label>
      {progress ? (
        <span data-testid="import-progress">
          {' '}
          <progress value={progress.bytesRead} max={Math.max(1, progress.totalBytes)} aria-label="import read" />{' '}
          <span className="muted">
            {progress.totalBytes > 0
              ? `importing ${size(progress.bytesRead)} of ${size(progress.totalBytes)}`
              : 'importing…'}
          </span>
        </span>
      ) : null}
    </span>
  );
}
