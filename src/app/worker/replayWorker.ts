// The gate replay's Web Worker (a module worker): wiring only; the logic is replayWorkerHandler.ts.
// first: binds this worker to the app's origin before any other module runs (originGuard.ts)
import './originGuard';
import { createReplayWorkerHandler } from './replayWorkerHandler';
import type { ReplayWorkerRequest, ReplayWorkerResponse } from '../replay/replayWorkerProtocol';

interface WorkerScope {
  postMessage(message: ReplayWorkerResponse): void;
  onmessage: ((event: MessageEvent<ReplayWorkerRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;
const handler = createReplayWorkerHandler((message) => scope.postMessage(message));
scope.onmessage = (event) => void handler.handle(event.data);
