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
  it('does not run a queue another tab holds the lock of, and says so', async () => {
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
    expect(queues.getState().error).toBe('queue queue-1 is running in another tab');
    expect(queues.getState().activeId).toBeNull();
  });
});
