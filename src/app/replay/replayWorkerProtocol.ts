// The one contract between the gate replay view and its worker (replayWorker.ts), which streams dropped logs through
// the core's incremental reader off the main thread. Requests carry an id; every response names it. The outcome is
// the replay model's plain data (failures already in words); a defect crosses as {name, message}.
import type { ReplayOutcome, ReplaySettings } from './replayModel';

/** One log to replay: its name (FILE in FILE:LINE messages) and its bytes (a File, or a Blob of a run's own log). */
export interface ReplayFile {
  name: string;
  blob: Blob;
}

export type ReplayWorkerRequest =
  /** replay these files (joined on the step, in this order) with the form's settings */
  | { type: 'replay'; id: number; files: ReplayFile[]; settings: ReplaySettings }
  /** give up on a replay whose files or settings were replaced: no further message names it */
  | { type: 'cancel'; id: number };

export type ReplayWorkerResponse =
  /** bytes read of all the files together (posted at most every PROGRESS_INTERVAL_MS, and at the end) */
  | { type: 'progress'; id: number; bytesRead: number; totalBytes: number }
  | { type: 'done'; id: number; outcome: ReplayOutcome }
  | { type: 'error'; id: number; error: { name: string; message: string } };

/** Progress messages are throttled to this (a 200 MB log would otherwise post thousands). */
export const PROGRESS_INTERVAL_MS = 100;
