// The replay worker's logic, without the worker: stream each file (Blob.stream()) through the core's streaming
// replay (replayGateStream, the reader `npm run replay` uses), report the bytes read, answer with the outcome.
// Tested in Node with Blobs; replayWorker.ts wires it to `self`.
import { blobTextChunks } from '../files/blobText';
import { runReplayStream } from '../replay/replayModel';
import {
  PROGRESS_INTERVAL_MS,
  type ReplayWorkerRequest,
  type ReplayWorkerResponse,
} from '../replay/replayWorkerProtocol';

class Cancelled extends Error {}

export function createReplayWorkerHandler(
  post: (message: ReplayWorkerResponse) => void,
  now: () => number = () => performance.now(),
) {
  const cancelled = new Set<number>();

  async function replay(request: Extract<ReplayWorkerRequest, { type: 'replay' }>): Promise<void> {
    const { id, files, settings } = request;
    const totalBytes = files.reduce((n, f) => n + f.blob.size, 0);
    let before = 0;
    let lastPost = Number.NEGATIVE_INFINITY;
    const progress = (bytesRead: number, force = false) => {
      if (cancelled.has(id)) throw new Cancelled();
      const t = now();
      if (!force && t - lastPost < PROGRESS_INTERVAL_MS) return;
      lastPost = t;
      post({ type: 'progress', id, bytesRead, totalBytes });
    };
    progress(0, true);
    const streams = files.map((f, i) => ({
      name: f.name,
      chunks: (async function* () {
        before = files.slice(0, i).reduce((n, g) => n + g.blob.size, 0);
        yield* blobTextChunks(f.blob, (read) => progress(before + read));
      })(),
    }));
    try {
      const outcome = await runReplayStream(streams, settings);
      if (cancelled.has(id)) return;
      progress(totalBytes, true);
      post({ type: 'done', id, outcome });
    } catch (error) {
      if (error instanceof Cancelled || cancelled.has(id)) return;
      const e = error instanceof Error ? error : new Error(String(error));
      post({ type: 'error', id, error: { name: e.name, message: e.message } });
    } finally {
      cancelled.delete(id);
    }
  }

  return {
    handle(request: ReplayWorkerRequest): Promise<void> {
      switch (request.type) {
        case 'replay':
          return replay(request);
        case 'cancel':
          cancelled.add(request.id);
          return Promise.resolve();
        default: {
          const never: never = request;
          throw new Error(`unknown replay worker request ${JSON.stringify(never)}`);
        }
      }
    },
  };
}
