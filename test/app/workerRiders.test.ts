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

  it('ends a rider lost with its leader interrupted when storage filled up, failed otherwise', async () => {
    const ends: string[] = [];
    const ride = async (storageFull: string | null) => {
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
        (runId, end, step) => ends.push(`${runId} ${end} ${step}`),
        () => {},
      );
      const [spec] = await riders.specs();
      for (const k of [1, 2, 3]) spec!.onEvent(studentStep(k, 0.5));
      await spec!.storage!.write('student-000002', new Map());
      // the trainer abandons its followers as its run fails; why it failed is known once the run is over
      spec!.end({ kind: 'lost', reason: 'the leader failed' });
      await riders.finish(storageFull);
      return repo.getRun('rider');
    };
    const full =
      'browser storage is full while saving run leader (…): delete runs in the runs table (or free disk space) and continue';
    expect(await ride(full)).toMatchObject({ status: 'interrupted', error: full, step: 3 });
    expect(await ride(null)).toMatchObject({
      status: 'failed',
      error: 'its leader failed while it rode along (the leader failed); it runs alone',
    });
    expect(ends).toEqual(['rider interrupted 3', 'rider lost null']);
  });

  it('ends a rider whose ride storage cut short before it began interrupted too', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun(freshRecord('leader'));
    await repo.putRun(freshRecord('rider'));
    const ends: string[] = [];
    const riders = new WorkerRiders(
      repo,
      'leader',
      await RunRecorder.open(repo, 'leader'),
      [{ runId: 'rider', config: CONFIG }],
      'cpu',
      (runId, end) => ends.push(`${runId} ${end}`),
      () => {},
    );
    await riders.specs();
    await riders.finish('browser storage is full');
    expect(await repo.getRun('rider')).toMatchObject({ status: 'interrupted', error: 'browser storage is full' });
    expect(ends).toEqual(['rider interrupted']);
  });
});
