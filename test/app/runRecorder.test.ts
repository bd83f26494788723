import { describe, expect, it } from 'vitest';
import { EventBatch } from '../../src/app/worker/eventBatch';
import { restoreRunState } from '../../src/app/runs/restoreRunState';
import { isAfterCheckpoint, MemoryRunRepository } from '../../src/app/runs/runRepository';
import { RunRecorder } from '../../src/app/worker/runRecorder';
import type { TrainerEvent } from '../../src/engine/trainer/events';
import { evaluation, studentStep, summary } from './runFixtures';
import { freshRecord } from './runRecordFixtures';

const sftStep = (step: number): TrainerEvent => ({
  type: 'step',
  stage: 'sft',
  step,
  totalSteps: 8,
  metrics: { step, 'sft/loss': 1 / step },
});

describe('the run recorder (inside the worker)', () => {
  it('writes steps in batches by time, and stage changes, checkpoints and the end at once', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun(freshRecord());
    let t = 0;
    const rec = await RunRecorder.open(repo, 'run-1', { flushMs: 500, now: () => t });
    rec.record({ type: 'stage', stage: 'sft', status: 'start', totalSteps: 8 });
    await rec.flush();
    rec.record(sftStep(1));
    rec.record(sftStep(2));
    await Promise.resolve();
    expect(await repo.metrics('run-1')).toHaveLength(0); // 0 ms since the last write: waits
    t = 600;
    rec.record(sftStep(3)); // 600 ms later: the three go out together
    await rec.flush();
    expect((await repo.metrics('run-1', 'sft')).map((m) => m.step)).toEqual([1, 2, 3]);
    rec.record({ type: 'checkpoint', name: 'sft-000003', stage: 'sft', step: 3, reason: 'periodic' });
    await rec.flush();
    const stored = (await repo.getRun('run-1'))!;
    expect(stored).toMatchObject({ stage: 'sft', step: 3, totalSteps: 8, checkpoint: 'sft-000003', status: 'running' });
    rec.record({ type: 'done', summary: summary('completed', 10) });
    await rec.flush();
    expect(await repo.getRun('run-1')).toMatchObject({
      status: 'completed',
      triggerStep: 10,
      summary: { status: 'completed' },
    });
    expect((await repo.events('run-1')).map((e) => [e.seq, e.event.type, e.stage, e.step])).toEqual([
      [0, 'stage', 'sft', 0],
      [1, 'checkpoint', 'sft', 3],
    ]);
  });

  it('writes nothing more once a rider detached: the lane that continues the run owns its record from there', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun(freshRecord());
    const rider = await RunRecorder.open(repo, 'run-1');
    rider.record(sftStep(1));
    await rider.detach('student-000004', 4);
    expect(await repo.getRun('run-1')).toMatchObject({
      status: 'interrupted',
      detachedAt: 4,
      checkpoint: 'student-000004',
    });
    // another lane continues it …
    const continued = await RunRecorder.open(repo, 'run-1');
    continued.record(sftStep(2));
    await continued.flush();
    const now = (await repo.getRun('run-1'))!;
    expect(now.status).toBe('running');
    // … and the leader's end flushes its riders: the detached rider's recorder writes no stale record over it
    rider.record(sftStep(3));
    await rider.flush();
    expect(await repo.getRun('run-1')).toEqual(now);
    expect((await repo.metrics('run-1')).map((m) => m.step)).toEqual([1, 2]);
  });

  it('reports a full disk and keeps the rows for the next write', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun(freshRecord());
    const errors: string[] = [];
    let full = true;
    const append = repo.append.bind(repo);
    repo.append = async (m, e) => {
      if (full) throw Object.assign(new Error('quota'), { name: 'StorageQuotaError' });
      return append(m, e);
    };
    const rec = await RunRecorder.open(repo, 'run-1', { onError: (e) => errors.push((e as Error).name) });
    rec.record(studentStep(1, 0.5));
    await rec.flush();
    expect(errors).toEqual(['StorageQuotaError']);
    full = false;
    rec.record(studentStep(2, 0.5));
    await rec.flush();
    expect((await repo.metrics('run-1')).map((m) => m.step)).toEqual([1, 2]);
  });
});

describe('a stored run is called completed only with whole step lines', () => {
  const student = (step: number): TrainerEvent => ({
    type: 'step',
    stage: 'student',
    step,
    totalSteps: 8,
    metrics: { step },
  });

  it('stores a run whose student lines have a hole as needing a resume, naming the first missing step', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun(freshRecord());
    // a reload lost lines 4–5 (the checkpoint after them was kept); the resumed run went on from step 6
    const rec = await RunRecorder.open(repo, 'run-1');
    rec.record({ type: 'stage', stage: 'student', status: 'start', totalSteps: 8 });
    for (const k of [1, 2, 3, 6, 7, 8]) rec.record(student(k));
    rec.record({ type: 'stage', stage: 'student', status: 'end', totalSteps: 8 });
    rec.record({ type: 'done', summary: summary('completed', 10) });
    await rec.flush();
    expect(await repo.getRun('run-1')).toMatchObject({
      status: 'interrupted',
      error:
        'its step lines are not whole (student step 4 is missing): continue it to train them again from its last checkpoint before that step',
    });
  });

  it('stores a run with every line as completed', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun(freshRecord());
    const rec = await RunRecorder.open(repo, 'run-1');
    rec.record({ type: 'stage', stage: 'student', status: 'start', totalSteps: 8 });
    for (let k = 1; k <= 8; k++) rec.record(student(k));
    rec.record({ type: 'stage', stage: 'student', status: 'end', totalSteps: 8 });
    rec.record({ type: 'done', summary: summary('completed', 10) });
    await rec.flush();
    expect(await repo.getRun('run-1')).toMatchObject({ status: 'completed', error: null });
  });
});

describe('the run repository', () => {
  it('orders rows against a checkpoint: later steps of its stage and every later stage come after it', () => {
    expect(isAfterCheckpoint('student', 6, 'student', 5)).toBe(true);
    expect(isAfterCheckpoint('student', 5, 'student', 5)).toBe(false);
    expect(isAfterCheckpoint('sft', 100, 'student', 0)).toBe(false);
    expect(isAfterCheckpoint('evaluation', 0, 'student', 20)).toBe(true);
  });

  it('drops what came after a checkpoint before a resume, and deletes a run with everything it holds', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun(freshRecord());
    await repo.append(
      [
        ...[1, 2, 3].map((step) => ({ runId: 'run-1', stage: 'sft' as const, step, line: { step } })),
        ...[1, 2, 3, 4, 5, 6, 7].map((step) => ({ runId: 'run-1', stage: 'student' as const, step, line: { step } })),
      ],
      [
        {
          runId: 'run-1',
          seq: 0,
          stage: 'student',
          step: 5,
          event: { type: 'evaluation', kind: 'gate', step: 5, evaluation: evaluation(5, 1, 1) },
        },
        { runId: 'run-1', seq: 1, stage: 'student', step: 7, event: { type: 'warning', message: 'late' } },
      ],
    );
    await repo.checkpoints('run-1').write('student-000005', new Map([['state.json', new Uint8Array([1])]]));
    await repo.truncateAfter('run-1', 'student', 5);
    expect((await repo.metrics('run-1', 'student')).map((m) => m.step)).toEqual([1, 2, 3, 4, 5]);
    expect((await repo.metrics('run-1', 'sft')).map((m) => m.step)).toEqual([1, 2, 3]);
    expect((await repo.events('run-1')).map((e) => e.seq)).toEqual([0]);
    expect(await repo.checkpoints('run-1').latest()).toBe('student-000005');
    await repo.deleteRun('run-1');
    expect(await repo.listRuns()).toEqual([]);
    expect(await repo.metrics('run-1')).toEqual([]);
    expect(await repo.checkpoints('run-1').latest()).toBeNull();
  });

  it('rebuilds the Train view’s state of a stored run: lines per stage, gate evaluations, retirement', () => {
    const state = restoreRunState(
      { ...freshRecord(), status: 'running', stage: 'student', step: 2, totalSteps: 20 },
      [
        { runId: 'run-1', stage: 'student', step: 1, line: { step: 1 } },
        { runId: 'run-1', stage: 'sft', step: 1, line: { step: 1 } },
      ],
      [
        {
          runId: 'run-1',
          seq: 0,
          stage: 'student',
          step: 1,
          event: { type: 'evaluation', kind: 'gate', step: 1, evaluation: evaluation(1, 0.5, 1) },
        },
        {
          runId: 'run-1',
          seq: 1,
          stage: 'student',
          step: 1,
          event: { type: 'retirement', step: 1, triggerStep: 1, schedule: 'adaptive', teacherPerformance: 0.5 },
        },
      ],
    );
    // a stored run that was 'running' (no worker now) shows as stopped, resumable
    expect(state.status).toBe('stopped');
    expect(state.recordId).toBe('run-1');
    expect(state.steps.student).toEqual([{ step: 1 }]);
    expect(state.steps.sft).toEqual([{ step: 1 }]);
    expect(state.evaluations).toHaveLength(1);
    expect(state.retirement?.triggerStep).toBe(1);
  });
});

describe('the event batch (worker → page)', () => {
  it('sends steps at most every interval, and anything else at once with what waits', () => {
    const sent: string[][] = [];
    let t = 0;
    const batch = new EventBatch(
      (evs) => sent.push(evs.map((e) => (e.type === 'step' ? `s${e.step}` : e.type))),
      100,
      () => t,
    );
    batch.add(studentStep(1, 0));
    t = 50;
    batch.add(studentStep(2, 0));
    t = 99;
    batch.add(studentStep(3, 0));
    t = 100;
    batch.add(studentStep(4, 0));
    t = 120;
    batch.add(studentStep(5, 0));
    batch.add({ type: 'warning', message: 'w' });
    batch.add(studentStep(6, 0));
    batch.flush();
    expect(sent).toEqual([['s1'], ['s2', 's3', 's4'], ['s5', 'warning'], ['s6']]);
  });
});
