// The runs store's storage estimate: asked again on demand (the table does so while a run writes), not only when
// the list is refreshed.
import { describe, expect, it } from 'vitest';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { createRunsStore } from '../../src/app/runs/runsStore';
import { createRunStore } from '../../src/app/worker/runStore';

describe('the runs store', () => {
  it('re-estimates the storage used each time it is asked', async () => {
    const repo = new MemoryRunRepository();
    const usage = [6_000, 10_485_760];
    let asked = 0;
    const runStore = createRunStore(
      () => {
        throw new Error('no worker in this test');
      },
      { sharedControl: false },
    );
    const runs = createRunsStore(
      async () => repo,
      runStore,
      async () => ({ usage: usage[Math.min(asked++, usage.length - 1)]!, quota: 1 << 30 }),
    );
    await runs.getState().refresh();
    expect(runs.getState().estimate).toEqual({ usage: 6_000, quota: 1 << 30 });
    await runs.getState().reestimate();
    expect(runs.getState().estimate).toEqual({ usage: 10_485_760, quota: 1 << 30 });
    expect(asked).toBe(2);
  });
});
