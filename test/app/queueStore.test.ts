// One tab runs a stored queue: two queue stores sharing a lock registry stand for two tabs that both load it.
import { describe, expect, it } from 'vitest';
import { createQueueStore } from '../../src/app/runs/queueStore';
import { LockRegistry, MemoryLocks, queueLockName } from '../../src/app/runs/runLocks';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { createRunsStore } from '../../src/app/runs/storedRunsStore';
import type { RunQueue } from '../../src/app/runs/runQueue';
import { createRunStore } from '../../src/app/train/liveRunStore';
import type { WorkerLike } from '../../src/app/worker/protocol';

/** A worker that accepts nothing: a queue that gets to start a run would wait for ever, so none must. */
const idleWorker = (): WorkerLike => ({
  onmessage: null,
  onerror: null,
  postMessage: () => {},
  terminate: () => {},
});

describe('the queue store', () => {
  it('does not run a queue another tab holds the lock of: it lists it as running there', async () => {
    const repo = new MemoryRunRepository();
    const queue = { id: 'queue-1', createdAt: 1, items: [], state: 'running' } as unknown as RunQueue;
    await repo.putQueue(queue);
    const registry = new LockRegistry();
    const other = new MemoryLocks(registry);
    const release = await other.tryAcquire(queueLockName('queue-1'));
    expect(release).not.toBeNull();
    const runs = createRunsStore(async () => repo, createRunStore(idleWorker, { sharedControl: false }));
    const queues = createQueueStore(
      async () => repo,
      runs,
      () => [],
      Date.now,
      new MemoryLocks(registry),
    );
    await queues.getState().load();
    expect(queues.getState().error).toBeNull();
    expect(queues.getState().elsewhere).toEqual(['queue-1']);
    expect(queues.getState().activeId).toBeNull();
  });

  it('shows another tab’s queue as that tab stores it, and will not forget it while that tab runs it', async () => {
    const repo = new MemoryRunRepository();
    const item = (label: string, status: string) => ({ label, status, runId: null });
    const queue = {
      id: 'queue-2',
      createdAt: 1,
      items: [item('a', 'running'), item('b', 'pending'), item('c', 'pending')],
      state: 'running',
    } as unknown as RunQueue;
    await repo.putQueue(queue);
    const registry = new LockRegistry();
    const release = await new MemoryLocks(registry).tryAcquire(queueLockName('queue-2'));
    const runs = createRunsStore(async () => repo, createRunStore(idleWorker, { sharedControl: false }));
    const queues = createQueueStore(
      async () => repo,
      runs,
      () => [],
      Date.now,
      new MemoryLocks(registry),
    );
    await queues.getState().load();
    // the other tab finishes the first run and stores the queue; this tab's runs table is re-read (its channel)
    await repo.putQueue({ ...queue, items: [item('a', 'completed'), item('b', 'running'), item('c', 'running')] });
    await runs.getState().refresh();
    await expect
      .poll(() => queues.getState().queues[0]?.items.map((i) => i.status))
      .toEqual(['completed', 'running', 'running']);
    await queues.getState().remove('queue-2');
    expect(queues.getState().error).toBe(
      'queue queue-2 is running in another tab: it can be forgotten once that tab stops it or closes',
    );
    expect((await repo.listQueues()).map((q) => q.id)).toEqual(['queue-2']);
    // that tab ends the queue and lets go: its final state is read here, with no run to say so
    await repo.putQueue({ ...queue, items: queue.items.map((i) => ({ ...i, status: 'completed' })), state: 'done' });
    release!();
    await expect.poll(() => queues.getState().queues[0]?.state).toBe('done');
    expect(queues.getState().elsewhere).toEqual([]);
    // and it may be forgotten here
    await queues.getState().remove('queue-2');
    expect(await repo.listQueues()).toEqual([]);
  });
});
