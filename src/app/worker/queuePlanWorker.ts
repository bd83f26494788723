// The queue form's planning Web Worker (a module worker): wiring only; the logic is runs/queuePlan.ts.
// first: binds this worker to the app's origin before any other module runs (originGuard.ts)
import './originGuard';
import { answerPlanRequest } from '../runs/queuePlan';
import type { QueuePlanRequest, QueuePlanResponse } from '../runs/queuePlanProtocol';

interface WorkerScope {
  postMessage(message: QueuePlanResponse): void;
  onmessage: ((event: MessageEvent<QueuePlanRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;
scope.onmessage = (event) => scope.postMessage(answerPlanRequest(event.data));
