// The one contract between the runs table's import and its worker (importWorker.ts), which reads dropped run folders
// off the main thread — a metrics.jsonl of hundreds of MB streams line by line (File.stream()) into IndexedDB.
// Requests carry an id; every response names it; a failure crosses as {name, message} (ImportError: FILE:LINE).

/** One dropped file: its path inside what was dropped ("sweep/seed-0/metrics.jsonl") and its bytes. */
export interface ImportFile {
  path: string;
  blob: Blob;
}

export type ImportWorkerRequest =
  /** a slice of the dropped files, kept until the 'import' of the same id (thousands of files cross in slices:
   *  cloning 10,000 Files in one message held the page for seconds) */
  | { type: 'files'; id: number; files: ImportFile[] }
  /** the last slice: import it with every slice sent before under this id */
  | { type: 'import'; id: number; files: ImportFile[] };

/** Files per message from the page to the import worker. */
export const IMPORT_FILES_PER_MESSAGE = 500;

export type ImportWorkerResponse =
  /** bytes read of all the files together (at most every PROGRESS_INTERVAL_MS, and at the end) */
  | { type: 'progress'; id: number; bytesRead: number; totalBytes: number }
  /** every run is stored (their ids) */
  | { type: 'done'; id: number; runIds: string[] }
  /** nothing was stored (runs written before the failure are deleted again) */
  | { type: 'error'; id: number; error: { name: string; message: string } };

export const IMPORT_PROGRESS_INTERVAL_MS = 100;
