// The gate replay's Web Worker (a module worker): wiring only; the logic is replayWorkerHandler.ts.
import { createReplayWorkerHandler } from './replayWorkerHandler';
import type { ReplayWorkerRequest, ReplayWorkerResponse } from './replayWorkerProtocol';

interface WorkerScope {
  postMessage(message: ReplayWorkerResponse): void;
  onmessage: ((event: MessageEvent<ReplayWorkerRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;
const handler = createReplayWorkerHandler((message) => scope.postMessage(message));
scope.onmessage = (event) => void handler.handle(event.data);
