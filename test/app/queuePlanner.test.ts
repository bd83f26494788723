// The queue form's planner (src/app/runs/queuePlanner.ts) against a fake worker: every plan goes to the worker with
// its own id, a newer plan supersedes an older one, the worker plans at most one request behind the latest, and
// failures cross as {name, message}.
import { describe, expect, it } from 'vitest';
import { createQueuePlanner, type PlanWorker } from '../../src/app/runs/queuePlanner';
import type {
  QueueFormInput,
  QueuePlan,
  QueuePlanRequest,
  QueuePlanResponse,
} from '../../src/app/runs/queuePlanProtocol';

class FakeWorker implements PlanWorker {
  onmessage: ((event: MessageEvent<QueuePlanResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  readonly requests: QueuePlanRequest[] = [];
  postMessage(request: QueuePlanRequest): void {
    this.requests.push(request);
  }
  answer(response: QueuePlanResponse): void {
    this.onmessage?.({ data: response } as MessageEvent<QueuePlanResponse>);
  }
}

const input = (seeds: string) => ({ seeds }) as unknown as QueueFormInput;
const plan = (n: number) => ({ populations: n }) as unknown as QueuePlan;

describe('createQueuePlanner', () => {
  it('sends a plan to the worker (not computed in the page) and resolves with the answer of its id', async () => {
    const worker = new FakeWorker();
    const planner = createQueuePlanner(() => worker);
    const planned = planner.plan(input('0,1'));
    expect(worker.requests).toEqual([{ type: 'plan', id: 1, input: input('0,1') }]);
    worker.answer({ type: 'planned', id: 1, plan: plan(2) });
    expect(await planned).toEqual(plan(2));
  });

  it('supersedes older plans: they resolve null, and only the latest waits for the one in flight', async () => {
    const worker = new FakeWorker();
    const planner = createQueuePlanner(() => worker);
    const first = planner.plan(input('0'));
    const second = planner.plan(input('0,1'));
    const third = planner.plan(input('0,1,2'));
    expect(await first).toBeNull();
    expect(await second).toBeNull();
    // the worker works on the first; the second is never sent
    expect(worker.requests.map((r) => r.id)).toEqual([1]);
    worker.answer({ type: 'planned', id: 1, plan: plan(1) });
    expect(worker.requests.map((r) => r.id)).toEqual([1, 3]);
    worker.answer({ type: 'planned', id: 3, plan: plan(3) });
    expect(await third).toEqual(plan(3));
  });

  it('rejects with the worker’s {name, message}; a worker that fails to load rejects and the next plan makes another', async () => {
    const workers: FakeWorker[] = [];
    const planner = createQueuePlanner(() => {
      workers.push(new FakeWorker());
      return workers.at(-1)!;
    });
    const refused = planner.plan(input('x'));
    workers[0]!.answer({ type: 'error', id: 1, error: { name: 'ConfigError', message: 'seeds: expected …' } });
    await expect(refused).rejects.toMatchObject({ name: 'ConfigError', message: 'seeds: expected …' });
    const lost = planner.plan(input('0'));
    workers[0]!.onerror?.({ message: 'no such script' } as ErrorEvent);
    await expect(lost).rejects.toThrow('the queue planning worker failed: no such script');
    const again = planner.plan(input('0'));
    expect(workers).toHaveLength(2);
    workers[1]!.answer({ type: 'planned', id: 3, plan: plan(1) });
    expect(await again).toEqual(plan(1));
  });
});
