// The run-folder import's Web Worker (a module worker): wiring only; the logic is importWorkerHandler.ts.
// first: binds this worker to the app's origin before any other module runs (originGuard.ts)
import './originGuard';
import { IdbRunRepository } from '../runs/idbRunRepository';
import { createImportWorkerHandler } from './importWorkerHandler';
import type { ImportWorkerRequest, ImportWorkerResponse } from '../runs/importWorkerProtocol';

interface WorkerScope {
  postMessage(message: ImportWorkerResponse): void;
  onmessage: ((event: MessageEvent<ImportWorkerRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;
const repository = IdbRunRepository.open();
const handler = createImportWorkerHandler(
  (message) => scope.postMessage(message),
  () => repository,
);
scope.onmessage = (event) => void handler.handle(event.data);
