// The page's side of the replay worker: one module worker, made on first use; a new replay cancels the one before
// (its files or settings were replaced), so at most one streams at a time.
import type { ReplayOutcome, ReplaySettings } from './replayModel';
import type { ReplayFile, ReplayWorkerRequest, ReplayWorkerResponse } from './replayWorkerProtocol';

export interface ReplayProgress {
  bytesRead: number;
  totalBytes: number;
}

interface Pending {
  resolve(outcome: ReplayOutcome | null): void;
  reject(error: Error): void;
  onProgress(progress: ReplayProgress): void;
}

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, Pending>();

function replayWorker(): Worker {
  if (worker !== null) return worker;
  const w = new Worker(new URL('../worker/replayWorker.ts', import.meta.url), {
    type: 'module',
    name: 'retirelab-replay',
  });
  w.onmessage = (event: MessageEvent<ReplayWorkerResponse>) => {
    const message = event.data;
    const p = pending.get(message.id);
    if (p === undefined) return;
    switch (message.type) {
      case 'progress':
        p.onProgress({ bytesRead: message.bytesRead, totalBytes: message.totalBytes });
        return;
      case 'done':
        pending.delete(message.id);
        p.resolve(message.outcome);
        return;
      case 'error':
        pending.delete(message.id);
        p.reject(Object.assign(new Error(message.error.message), { name: message.error.name }));
        return;
      default: {
        const never: never = message;
        throw new Error(`unknown replay worker message ${JSON.stringify(never)}`);
      }
    }
  };
  w.onerror = (event) => {
    // the worker itself failed (it did not load): every waiting replay fails with the reason
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(new Error(`the replay worker failed: ${event.message || 'it could not start'}`));
    }
    worker = null;
  };
  worker = w;
  return w;
}

const send = (request: ReplayWorkerRequest) => replayWorker().postMessage(request);

/**
 * Replay `files` in the worker. Resolves with the outcome, or null when a later replay replaced this one; progress
 * (bytes read of all files) arrives at most every 100 ms.
 */
export function replayInWorker(
  files: ReplayFile[],
  settings: ReplaySettings,
  onProgress: (progress: ReplayProgress) => void,
): Promise<ReplayOutcome | null> {
  for (const [id, p] of pending) {
    pending.delete(id);
    send({ type: 'cancel', id });
    p.resolve(null);
  }
  const id = nextId++;
  return new Promise<ReplayOutcome | null>((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    send({ type: 'replay', id, files, settings });
  });
}
