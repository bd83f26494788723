// The page's side of the queue planning worker (queuePlanWorker.ts): one module worker, made on first use. The form
// asks for a plan on every change; a newer request supersedes the ones before (they resolve null), so the form only
// ever shows the plan of what it holds now, and the worker plans at most one request behind the latest. Where Web
// Workers are missing (Node) the worker's handler answers in the page, asynchronously.
import { answerPlanRequest } from './queuePlan';
import type { QueueFormInput, QueuePlan, QueuePlanRequest, QueuePlanResponse } from './queuePlanProtocol';

/** The worker as the planner uses it (a real Worker, or a fake in the tests). */
export interface PlanWorker {
  postMessage(request: QueuePlanRequest): void;
  onmessage: ((event: MessageEvent<QueuePlanResponse>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
}

export interface QueuePlanner {
  /** The plan of `input`; null when a later request replaced this one. Rejects with the form's message. */
  plan(input: QueueFormInput): Promise<QueuePlan | null>;
}

interface Pending {
  resolve(plan: QueuePlan | null): void;
  reject(error: Error): void;
}

const newPlanWorker = (): PlanWorker =>
  new Worker(new URL('../worker/queuePlanWorker.ts', import.meta.url), {
    type: 'module',
    name: 'retirelab-queue-plan',
  });

/** In-page planning, where there is no Worker: the worker's own handler, answered asynchronously. */
const inPage = (): PlanWorker => {
  const w: PlanWorker = {
    onmessage: null,
    onerror: null,
    postMessage(request) {
      queueMicrotask(() => w.onmessage?.({ data: answerPlanRequest(request) } as MessageEvent<QueuePlanResponse>));
    },
  };
  return w;
};

export function createQueuePlanner(
  make: () => PlanWorker = typeof Worker === 'undefined' ? inPage : newPlanWorker,
): QueuePlanner {
  let worker: PlanWorker | null = null;
  let nextId = 1;
  /** the request the worker works on now, and the latest one waiting for it (older waiting ones are dropped) */
  let inFlight: number | null = null;
  let next: QueuePlanRequest | null = null;
  /** the caller of the latest request */
  let waiter: (Pending & { id: number }) | null = null;
  const send = (request: QueuePlanRequest) => {
    inFlight = request.id;
    planWorker().postMessage(request);
  };
  const planWorker = (): PlanWorker => {
    if (worker !== null) return worker;
    const w = make();
    w.onmessage = (event) => {
      const m = event.data;
      if (m.id !== inFlight) return;
      inFlight = null;
      const p = waiter?.id === m.id ? waiter : null;
      if (p) waiter = null;
      if (next) {
        const request = next;
        next = null;
        send(request);
      }
      if (!p) return;
      switch (m.type) {
        case 'planned':
          p.resolve(m.plan);
          return;
        case 'error':
          p.reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
          return;
        default: {
          const never: never = m;
          throw new Error(`unknown queue planning message ${JSON.stringify(never)}`);
        }
      }
    };
    w.onerror = (event) => {
      // the worker itself failed (it did not load): the waiting plan fails with the reason, the next makes another
      waiter?.reject(new Error(`the queue planning worker failed: ${event.message || 'it could not start'}`));
      waiter = null;
      inFlight = null;
      next = null;
      worker = null;
    };
    worker = w;
    return w;
  };
  return {
    plan(input) {
      // what the form held before is no longer wanted: its plan is dropped (one the worker is making, on arrival)
      waiter?.resolve(null);
      const id = nextId++;
      return new Promise<QueuePlan | null>((resolve, reject) => {
        waiter = { id, resolve, reject };
        const request: QueuePlanRequest = { type: 'plan', id, input };
        // one request at a time: typing ten characters plans the last text once the current plan is made, not ten
        if (inFlight === null) send(request);
        else next = request;
      });
    },
  };
}
