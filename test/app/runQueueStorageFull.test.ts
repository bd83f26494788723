import { describe, expect, it } from 'vitest';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { createQueue, runQueue, type RunQueue } from '../../src/app/runs/runQueue';
import { createRunsStore } from '../../src/app/runs/storedRunsStore';
import type { WorkerLike, WorkerRequest, WorkerResponse } from '../../src/app/worker/protocol';
import { createRunStore } from '../../src/app/train/liveRunStore';
import { lookupPreset } from '../support/presets';

/**
 * A worker stand-in whose run meets a full browser storage: it marks its stored run interrupted (continuable from
 * its checkpoint), as the real worker does where it still can, and ends without a summary.
 */
class FullStorageWorker implements WorkerLike {
  onmessage: ((event: MessageEvent<WorkerResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  constructor(private readonly repo: MemoryRunRepository) {}
  postMessage(message: WorkerRequest): void {
    if (message.type === 'start') void this.simulate(message);
  }
  terminate(): void {}
  private async simulate(m: Extract<WorkerRequest, { type: 'start' }>) {
    const reply = (r: WorkerResponse) => this.onmessage?.({ data: r } as MessageEvent<WorkerResponse>);
    reply({ type: 'backend', id: m.id, backend: 'cpu', skipped: [] });
    const id = m.record!.runId;
    const rec = (await this.repo.getRun(id))!;
    await this.repo.checkpoints(id).write('student-000001', new Map([['state.json', new Uint8Array([1])]]));
    await this.repo.putRun({ ...rec, status: 'interrupted', checkpoint: 'student-000001', error: 'quota' });
    reply({ type: 'failed', id: m.id, error: { name: 'QuotaExceededError', message: 'the quota is full' } });
  }
}

describe('a run queue whose run meets a full browser storage', () => {
  it('lists the item interrupted, the word its run record and the runs table use', async () => {
    const repo = new MemoryRunRepository();
    let t = 1000;
    const runs = createRunsStore(
      async () => repo,
      createRunStore(() => new FullStorageWorker(repo), { sharedControl: false }),
      async () => null,
      () => t++,
    );
    const lesson = loadPreset('schedules', lookupPreset, PRESET_NAMES);
    const queue = createQueue(lesson, [], 'cpu', [0], { 'student.schedule': ['adaptive'] }, 5, 1);
    let saved: RunQueue = queue;
    await expect(runQueue(queue, repo, runs, (q) => void (saved = q))).rejects.toThrow('ended without a summary');
    const item = saved.items[0]!;
    expect((await repo.getRun(item.runId!))!.status).toBe('interrupted');
    expect(item.status).toBe('interrupted');
    expect(saved.state).toBe('paused');
  });
});
