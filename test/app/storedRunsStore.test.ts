// One tab owns a run: two runs stores sharing one lock registry stand for two tabs of one browser; the runs channel
// is a list of messages handed from one to the other.
import { describe, expect, it, vi } from 'vitest';
import type { RunChannelMessage } from '../../src/app/runs/runChannel';
import { LockRegistry, MemoryLocks, runLockName } from '../../src/app/runs/runLocks';
import { isStorageFull, lockCheckedDeletes, MemoryRunRepository } from '../../src/app/runs/runRepository';
import { createRunsStore } from '../../src/app/runs/storedRunsStore';
import type { WorkerLike, WorkerRequest, WorkerResponse } from '../../src/app/worker/protocol';
import { createRunStore } from '../../src/app/train/liveRunStore';
import { CONFIG, summary } from './runFixtures';
import { freshRecord } from './runRecordFixtures';

/** A worker that starts a run, reports one student step, and ends it when told. */
class SteppingWorker implements WorkerLike {
  onmessage: ((event: MessageEvent<WorkerResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  readonly starts: Extract<WorkerRequest, { type: 'start' }>[] = [];
  private reply(r: WorkerResponse) {
    this.onmessage?.({ data: r } as MessageEvent<WorkerResponse>);
  }
  postMessage(message: WorkerRequest): void {
    if (message.type !== 'start') return;
    this.starts.push(message);
    this.reply({ type: 'ack', id: message.id, of: 'start' });
    this.reply({ type: 'backend', id: message.id, backend: 'cpu', skipped: [] });
    this.reply({
      type: 'events',
      id: message.id,
      events: [
        { type: 'stage', stage: 'student', status: 'start', totalSteps: 20 },
        { type: 'step', stage: 'student', step: 1, totalSteps: 20, metrics: { step: 1 } },
      ],
    });
  }
  finish(): void {
    const id = this.starts.at(-1)!.id;
    this.reply({ type: 'events', id, events: [{ type: 'done', summary: summary('completed', 10) }] });
  }
  terminate(): void {}
}

function tab(repo: MemoryRunRepository, registry: LockRegistry) {
  const worker = new SteppingWorker();
  const sent: RunChannelMessage[] = [];
  const runStore = createRunStore(() => worker, { sharedControl: false });
  let t = 1000;
  const runs = createRunsStore(
    async () => repo,
    runStore,
    async () => null,
    () => (t += 10),
    { locks: new MemoryLocks(registry), broadcast: (m) => sent.push(m) },
  );
  return { worker, runs, runStore, sent };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('one tab owns a run', () => {
  it('lists a run whose lock another tab holds as running there, not interrupted, and will not continue it', async () => {
    const repo = new MemoryRunRepository();
    const registry = new LockRegistry();
    const a = tab(repo, registry);
    const b = tab(repo, registry);
    const id = await a.runs.getState().startRun({
      preset: 'unit',
      overrides: [],
      config: CONFIG,
      backendChoice: 'cpu',
    });
    expect(id).not.toBeNull();
    // a run a closed tab left 'running' (nobody holds its lock) beside it
    await repo.putRun({ ...freshRecord('run-closed'), status: 'running' });
    await repo.checkpoints('run-closed').write('student-000005', new Map());

    await b.runs.getState().load();
    const statusIn = async (runId: string) => (await repo.getRun(runId))?.status;
    expect(await statusIn(id!)).toBe('running');
    expect(await statusIn('run-closed')).toBe('interrupted');
    expect(Object.keys(b.runs.getState().elsewhere)).toEqual([id]);

    await b.runs.getState().resumeRun(id!);
    expect(b.runs.getState().error).toBe(
      `run ${id} is running in another tab: watch it there, or continue it here once that tab stops it or closes`,
    );
    expect(b.worker.starts).toEqual([]);
    await b.runs.getState().remove(id!);
    expect((await repo.getRun(id!))?.id).toBe(id);
  });

  it('tells the other tab each step and the end; once the owner lets go, the run is no longer elsewhere', async () => {
    const repo = new MemoryRunRepository();
    const registry = new LockRegistry();
    const a = tab(repo, registry);
    const b = tab(repo, registry);
    const id = (await a.runs.getState().startRun({
      preset: 'unit',
      overrides: [],
      config: CONFIG,
      backendChoice: 'cpu',
    }))!;
    await b.runs.getState().load();
    expect(a.sent.at(-1)).toEqual({ type: 'progress', runId: id, stage: 'student', step: 1, totalSteps: 20 });
    for (const m of a.sent) b.runs.getState().remote(m);
    expect(b.runs.getState().elsewhere[id]).toEqual({ stage: 'student', step: 1, totalSteps: 20 });

    a.worker.finish();
    for (let i = 0; i < 10 && registry.held.has(runLockName(id)); i++) await settle();
    expect(registry.held.has(runLockName(id))).toBe(false);
    expect(a.sent.at(-1)).toEqual({ type: 'ended', runId: id });
    await settle();
    expect(b.runs.getState().elsewhere).toEqual({});
  });

  it('continues an interrupted run in one tab only: the second tab to try is refused', async () => {
    const repo = new MemoryRunRepository();
    const registry = new LockRegistry();
    await repo.putRun({ ...freshRecord('run-x'), status: 'interrupted' });
    await repo.checkpoints('run-x').write('student-000005', new Map());
    await repo.append(
      [1, 2, 3, 4, 5].map((step) => ({ runId: 'run-x', stage: 'student' as const, step, line: { step } })),
      [],
    );
    const a = tab(repo, registry);
    const b = tab(repo, registry);
    await a.runs.getState().load();
    await b.runs.getState().load();
    await a.runs.getState().resumeRun('run-x');
    await b.runs.getState().resumeRun('run-x');
    expect(a.worker.starts).toHaveLength(1);
    expect(b.worker.starts).toHaveLength(0);
    expect(b.runs.getState().error).toMatch(/^run run-x is running in another tab/);
  });
});

describe('the runs store’s storage estimate', () => {
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

describe('a running run cannot be deleted', () => {
  it('refuses to delete the run the second lane of the same tab trains, and keeps its record', async () => {
    const repo = new MemoryRunRepository();
    // two lanes of one page: two runs stores, each with its own worker, sharing the page's locks
    const pageLocks = new MemoryLocks(new LockRegistry());
    const lane = () => {
      const worker = new SteppingWorker();
      const runStore = createRunStore(() => worker, { sharedControl: false });
      const runs = createRunsStore(
        async () => repo,
        runStore,
        async () => null,
        Date.now,
        {
          locks: pageLocks,
          broadcast: () => {},
        },
      );
      return { worker, runs };
    };
    const first = lane();
    const second = lane();
    const id = (await second.runs.getState().startRun({
      preset: 'unit',
      overrides: [],
      config: CONFIG,
      backendChoice: 'cpu',
    }))!;
    await first.runs.getState().load();
    await first.runs.getState().remove(id);
    expect((await repo.getRun(id))?.status).toBe('running');
    expect(first.runs.getState().error).toBe(
      `run ${id} is running (a lane of this tab or another tab trains it): stop it before deleting it`,
    );
    // once it ended (its lock released) the delete goes through
    second.worker.finish();
    await second.runs.getState().runEnded();
    await pageLocks.whenFree(runLockName(id));
    await first.runs.getState().remove(id);
    expect(await repo.getRun(id)).toBeNull();
  });

  it('refuses at the repository: a lock-checked delete of a locked run throws and deletes nothing', async () => {
    const repo = new MemoryRunRepository();
    const registry = new LockRegistry();
    await repo.putRun(freshRecord('run-held'));
    await repo.append([{ runId: 'run-held', stage: 'student', step: 1, line: { step: 1 } }], []);
    const release = await new MemoryLocks(registry).tryAcquire(runLockName('run-held'));
    const checked = lockCheckedDeletes(repo, new MemoryLocks(registry));
    await expect(checked.deleteRun('run-held')).rejects.toThrow(/run run-held is running/);
    expect((await repo.getRun('run-held'))?.id).toBe('run-held');
    expect(await repo.metrics('run-held')).toHaveLength(1);
    release!();
    await checked.deleteRun('run-held');
    expect(await repo.getRun('run-held')).toBeNull();
    expect(lockCheckedDeletes(checked, new MemoryLocks(registry))).toBe(checked);
  });
});

describe('a full browser storage', () => {
  /** a worker whose run ends as the training worker ends one whose write the browser refused */
  class FullDiskWorker extends SteppingWorker {
    failWith(error: { name: string; message: string }): void {
      const id = this.starts.at(-1)!.id;
      this.onmessage?.({ data: { type: 'failed', id, error } } as MessageEvent<WorkerResponse>);
    }
  }

  it.each([
    { name: 'DataError', message: 'Failed to write blobs (IOError)' },
    { name: 'QuotaExceededError', message: 'The quota has been exceeded.' },
  ])('leaves a run that hit $name continuable, with what to do, not failed', async (raw) => {
    const repo = new MemoryRunRepository();
    const worker = new FullDiskWorker();
    const runStore = createRunStore(() => worker, { sharedControl: false });
    const runs = createRunsStore(async () => repo, runStore);
    const id = (await runs
      .getState()
      .startRun({ preset: 'unit', overrides: [], config: CONFIG, backendChoice: 'cpu' }))!;
    await repo.checkpoints(id).write('student-000005', new Map());
    await repo.putRun({ ...(await repo.getRun(id))!, checkpoint: 'student-000005' });
    worker.failWith(raw);
    await runs.getState().runEnded();
    for (let i = 0; i < 10 && (await repo.getRun(id))?.status === 'running'; i++) await settle();
    const record = (await repo.getRun(id))!;
    expect(record.status).toBe('interrupted');
    expect(record.checkpoint).toBe('student-000005');
    const said = `browser storage is full while saving run ${id} (${raw.name}: ${raw.message}): delete runs in the runs table (or free disk space) and continue`;
    expect(record.error).toBe(said);
    expect(runs.getState().error).toBe(said);
  });

  it('leaves the riders of a leader cut off by a full storage interrupted where the worker could not mark them', async () => {
    const repo = new MemoryRunRepository();
    const worker = new FullDiskWorker();
    const runStore = createRunStore(() => worker, { sharedControl: false });
    const runs = createRunsStore(async () => repo, runStore);
    const run = { preset: 'unit', overrides: [], config: CONFIG, backendChoice: 'cpu' as const };
    const id = (await runs.getState().startRun(run, [run]))!;
    const riderId = worker.starts.at(-1)!.riders![0]!.runId;
    const said = `browser storage is full while saving run ${id} (DataError: Failed to write blobs (IOError)): delete runs in the runs table (or free disk space) and continue`;
    // the worker told the page the rider stopped with its leader, but the storage refused the rider's record too
    worker.onmessage?.({
      data: { type: 'ride', id: worker.starts.at(-1)!.id, runId: riderId, end: 'interrupted', step: 7, reason: said },
    } as MessageEvent<WorkerResponse>);
    worker.failWith({ name: 'StorageQuotaError', message: said });
    expect(runStore.getState().status).toBe('interrupted');
    await runs.getState().runEnded();
    for (let i = 0; i < 20 && (await repo.getRun(riderId))?.status === 'running'; i++) await settle();
    expect(await repo.getRun(riderId)).toMatchObject({ status: 'interrupted', error: said });
    expect(await repo.getRun(id)).toMatchObject({ status: 'interrupted', error: said });
  });
});

describe('what counts as a full browser storage', () => {
  it('recognises quota errors and Chromium’s IOError write failures, and nothing else', () => {
    expect(isStorageFull({ name: 'QuotaExceededError', message: '' })).toBe(true);
    expect(isStorageFull({ name: 'DataError', message: 'Failed to write blobs (IOError)' })).toBe(true);
    expect(isStorageFull({ name: 'UnknownError', message: 'Internal error: IOError' })).toBe(true);
    expect(
      isStorageFull({ name: 'DataError', message: 'Data provided to an operation does not meet requirements.' }),
    ).toBe(false);
    expect(isStorageFull(new Error('Failed to write blobs (IOError)'))).toBe(false);
    expect(isStorageFull(null)).toBe(false);
  });
});

describe('a resume after a reload leaves no hole', () => {
  it('resumes from the newest checkpoint before the first lost line, dropping the lines after it', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun({ ...freshRecord('run-r'), status: 'interrupted', stage: 'student', step: 130 });
    // checkpoints after 125 and 130 steps stored; the reload lost the lines of steps 128–130
    await repo.checkpoints('run-r').write('student-000125', new Map());
    await repo.checkpoints('run-r').write('student-000130', new Map());
    const line = (step: number) => ({ runId: 'run-r', stage: 'student' as const, step, line: { step } });
    await repo.append(
      Array.from({ length: 127 }, (_, i) => line(i + 1)),
      [],
    );
    const worker = new SteppingWorker();
    const runs = createRunsStore(
      async () => repo,
      createRunStore(() => worker, { sharedControl: false }),
    );
    await runs.getState().resumeRun('run-r');
    expect(runs.getState().error).toBeNull();
    expect(worker.starts).toHaveLength(1);
    expect((await repo.metrics('run-r')).map((m) => m.step)).toEqual(Array.from({ length: 125 }, (_, i) => i + 1));
    expect((await repo.getRun('run-r'))?.checkpoint).toBe('student-000125');
  });
});

describe('a second tab on a running queue', () => {
  it('shows another tab’s run read-only when it shows nothing, and follows that tab to its next run', async () => {
    const repo = new MemoryRunRepository();
    const registry = new LockRegistry();
    const a = tab(repo, registry);
    const b = tab(repo, registry);
    const first = (await a.runs
      .getState()
      .startRun({ preset: 'unit', overrides: [], config: CONFIG, backendChoice: 'cpu' }))!;
    await b.runs.getState().load();
    expect(b.runStore.getState().recordId).toBe(first);
    expect(b.worker.starts).toEqual([]);
    // that run ends there and the queue's next one starts: the second tab shows the new one
    a.worker.finish();
    await a.runs.getState().runEnded();
    await new MemoryLocks(registry).whenFree(runLockName(first));
    for (const m of a.sent.splice(0)) b.runs.getState().remote(m);
    const next = (await a.runs
      .getState()
      .startRun({ preset: 'unit', overrides: [], config: CONFIG, backendChoice: 'cpu' }))!;
    for (const m of a.sent.splice(0)) b.runs.getState().remote(m);
    await expect.poll(() => b.runStore.getState().recordId).toBe(next);
    expect(b.worker.starts).toEqual([]);
  });
});

describe('the table re-reads only the runs that changed', () => {
  const at = (id: string, createdAt: number) => ({ ...freshRecord(id), status: 'completed' as const, createdAt });

  it('adds, replaces and drops the runs it is given, keeps every other record as it was, and never lists all', async () => {
    const repo = new MemoryRunRepository();
    for (const [id, t] of [
      ['run-a', 10],
      ['run-b', 20],
      ['run-c', 30],
    ] as const)
      await repo.putRun(at(id, t));
    const { runs } = tab(repo, new LockRegistry());
    await runs.getState().refresh();
    const kept = runs.getState().runs[0];
    runs.getState().setSelected(['run-a', 'run-c']);
    const listed = vi.spyOn(repo, 'listRuns');
    await repo.putRun({ ...at('run-b', 20), label: 'renamed' });
    await repo.deleteRun('run-c');
    await repo.putRun(at('run-d', 40));
    await repo.putRun(at('run-early', 15));

    await runs.getState().refreshRuns(['run-d', 'run-b', 'run-c', 'run-early']);
    expect(listed).not.toHaveBeenCalled();
    // oldest first, as listRuns orders them
    expect(runs.getState().runs.map((r) => r.id)).toEqual(['run-a', 'run-early', 'run-b', 'run-d']);
    expect(runs.getState().runs[0]).toBe(kept);
    expect(runs.getState().runs.find((r) => r.id === 'run-b')?.label).toBe('renamed');
    expect(runs.getState().selected).toEqual(['run-a']);
  });

  it('starting, finishing and deleting a run read back only that run', async () => {
    const repo = new MemoryRunRepository();
    for (let i = 0; i < 5; i++) await repo.putRun(at(`run-old-${i}`, i));
    const { runs, worker } = tab(repo, new LockRegistry());
    await runs.getState().load();
    const listed = vi.spyOn(repo, 'listRuns');
    const id = await runs.getState().startRun({ preset: 'unit', overrides: [], config: CONFIG, backendChoice: 'cpu' });
    expect(runs.getState().runs.map((r) => r.id)).toContain(id);
    // the worker stores the run's final record before it says the run is done
    await repo.putRun({ ...(await repo.getRun(id!))!, status: 'completed' });
    worker.finish();
    await runs.getState().runEnded();
    await vi.waitFor(() => expect(runs.getState().runs.find((r) => r.id === id)?.status).toBe('completed'));
    await runs.getState().remove('run-old-2');
    expect(runs.getState().runs.map((r) => r.id)).not.toContain('run-old-2');
    expect(runs.getState().runs).toHaveLength(5);
    expect(listed).not.toHaveBeenCalled();
  });
});
