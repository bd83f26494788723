import { describe, expect, it } from 'vitest';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { openWorkerPersistence } from '../../src/app/worker/workerPersistence';
import { CONFIG, studentStep } from './runFixtures';
import { freshRecord } from './runRecordFixtures';

describe('the worker’s persistence of a run', () => {
  it('stores every line before a checkpoint ahead of the checkpoint itself, so a reload between leaves no hole', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun(freshRecord());
    // how many lines were stored when each checkpoint was written
    const linesAtWrite: number[] = [];
    const checkpoints = repo.checkpoints.bind(repo);
    repo.checkpoints = (runId) => {
      const store = checkpoints(runId);
      return {
        ...store,
        write: async (name, files) => {
          linesAtWrite.push((await repo.metrics(runId)).length);
          await store.write(name, files);
        },
      };
    };
    const persisted = await openWorkerPersistence(repo, 'run-1', CONFIG, false, () => {});
    // three steps within one batch (the recorder writes lines at most every 0.5 s), then the trainer's checkpoint
    for (const k of [1, 2, 3]) persisted.recorder.record(studentStep(k, 0.5));
    await persisted.storage.write('student-000003', new Map());
    expect(linesAtWrite).toEqual([3]);
    expect(await repo.checkpoints('run-1').latest()).toBe('student-000003');
  });
});
