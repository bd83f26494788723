import { describe, expect, it } from 'vitest';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { RunRecorder } from '../../src/app/worker/runRecorder';
import { WorkerRiders } from '../../src/app/worker/workerRiders';
import { CONFIG, studentStep } from './runFixtures';
import { freshRecord } from './runRecordFixtures';

describe('riders in the training worker', () => {
  it('store a rider’s lines before each of its checkpoints, so a reload between the two leaves no hole', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun(freshRecord('leader'));
    await repo.putRun(freshRecord('rider'));
    const leader = await RunRecorder.open(repo, 'leader');
    const riders = new WorkerRiders(
      repo,
      'leader',
      leader,
      [{ runId: 'rider', config: CONFIG }],
      'cpu',
      () => {},
      () => {},
    );
    const [spec] = await riders.specs();
    // three steps within one batch of the rider's recorder, then the rider's periodic checkpoint
    for (const k of [1, 2, 3]) spec!.onEvent(studentStep(k, 0.5));
    const before = await repo.metrics('rider');
    await spec!.storage!.write('student-000003', new Map());
    expect(before).toHaveLength(0);
    expect((await repo.metrics('rider')).map((m) => m.step)).toEqual([1, 2, 3]);
    expect(await repo.checkpoints('rider').latest()).toBe('student-000003');
  });
});
