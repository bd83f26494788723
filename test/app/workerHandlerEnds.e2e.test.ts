// How a run in the training worker's handler (src/app/worker/workerHandler.ts) ends early, in Node on the smoke
// preset (wasm): stop in the SFT stage (by message) and in the evaluation stage (by the shared flag) ends it
// 'interrupted'; a backend or a shipped teacher that fails ends it 'failed' with {name, message} and marks the stored
// run failed; a write the browser refuses for want of room ends it 'interrupted', continuable from its last stored
// checkpoint. Every wait is on a message. The runs that complete are in workerHandler.e2e.test.ts.

import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { CONTROL_STOP } from '../../src/app/worker/protocol';
import { initBackend } from '../../src/engine/backend';
import { freshRecord } from './runRecordFixtures';
import {
  atBoundary,
  type Harness,
  harness,
  isControl,
  isEnd,
  sharedFlags,
  SMOKE,
  start,
  summaryOf,
} from './workerHarness';

describe('the worker handler: runs that end early', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  it('stops a run by message during the SFT stage: the summary says interrupted', async () => {
    const h: Harness = harness(
      atBoundary((stage, step) => {
        if (stage === 'sft' && step === 2) h.send({ type: 'stop', id: 2 });
      }),
    );
    const stopping = h.next(isControl(1, 'stopping'));
    const ended = h.next(isEnd(1));
    h.send(start(1));
    await stopping;
    await ended;
    expect(summaryOf(h, 1).status).toBe('interrupted');
    // it stopped at the boundary after SFT step 2
    expect(h.steps(1).map((s) => `${s.stage} ${s.step}`)).toEqual(['sft 1', 'sft 2']);
    expect(h.events(1).some((e) => e.type === 'stage' && e.stage === 'teacher')).toBe(false);
  });

  it('stops a run by the shared flag during the evaluation stage: the summary says interrupted', async () => {
    const { buffer, flags } = sharedFlags();
    const h = harness();
    h.onMessage((m) => {
      if (
        m.type === 'events' &&
        m.events.some((e) => e.type === 'stage' && e.stage === 'evaluation' && e.status === 'start')
      )
        Atomics.store(flags, CONTROL_STOP, 1);
    });
    const ended = h.next(isEnd(1));
    h.send(start(1, { control: buffer }));
    await ended;
    const summary = summaryOf(h, 1);
    expect(summary.status).toBe('interrupted');
    expect(summary.test.successRate).toBeNaN();
    const events = h.events(1);
    expect(events.some((e) => e.type === 'stage' && e.stage === 'evaluation' && e.status === 'start')).toBe(true);
    expect(events.some((e) => e.type === 'stage' && e.stage === 'evaluation' && e.status === 'end')).toBe(false);
    expect(events.some((e) => e.type === 'evaluation' && e.kind === 'final')).toBe(false);
    expect(h.messages.some(isControl(1, 'stopping'))).toBe(true);
    // the student stage ran to its end
    expect(h.steps(1).at(-1)).toMatchObject({ stage: 'student', step: 20 });
  });

  it('fails with {name, message} when no backend starts, records the failure, and takes the next start', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun({ ...freshRecord('run-9'), config: SMOKE });
    const h = harness({
      startBackend: async (backend) => {
        throw new Error(`${backend} is broken in this test`);
      },
      openRepository: async () => repo,
    });
    const ended = h.next(isEnd(1));
    h.send(start(1, { backend: 'wasm', record: { runId: 'run-9', resume: false } }));
    expect(await ended).toEqual({
      type: 'failed',
      id: 1,
      error: expect.objectContaining({
        name: 'Error',
        message: 'no tfjs backend starts here: wasm: wasm is broken in this test; cpu: cpu is broken in this test',
      }),
    });
    // no backend: nothing was recorded into the run (the failure comes before the recorder opens)
    expect(await repo.getRun('run-9')).toMatchObject({ status: 'running' });
    const next = h.next(isEnd(2));
    h.send(start(2, { backend: 'cpu' }));
    expect(h.messages.at(-1)).toEqual({ type: 'ack', id: 2, of: 'start' });
    expect(await next).toMatchObject({ type: 'failed', id: 2, error: { name: 'Error' } });
  });

  it('fails with the error’s own name when the shipped teacher does not load, and marks the stored run failed', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun({ ...freshRecord('run-8'), config: SMOKE });
    class TeacherCheckpointError extends Error {
      override name = 'TeacherCheckpointError';
    }
    const h = harness({
      openRepository: async () => repo,
      loadTeacher: async () => {
        throw new TeacherCheckpointError('teacher.checkpoint: /teachers/x/model.json answered 404');
      },
    });
    const ended = h.next(isEnd(1));
    h.send(start(1, { record: { runId: 'run-8', resume: false } }));
    expect(await ended).toEqual({
      type: 'failed',
      id: 1,
      error: expect.objectContaining({
        name: 'TeacherCheckpointError',
        message: 'teacher.checkpoint: /teachers/x/model.json answered 404',
      }),
    });
    expect(await repo.getRun('run-8')).toMatchObject({
      status: 'failed',
      error: 'teacher.checkpoint: /teachers/x/model.json answered 404',
    });
  });

  it('leaves a run continuable from its last stored checkpoint when the browser refuses a write for want of room', async () => {
    // a repository whose second checkpoint write fails as Chromium's does on a full disk
    const repo = new MemoryRunRepository();
    await repo.putRun({ ...freshRecord('run-7'), config: SMOKE });
    const checkpoints = repo.checkpoints.bind(repo);
    let writes = 0;
    repo.checkpoints = (runId) => {
      const store = checkpoints(runId);
      return {
        ...store,
        write: async (name, files) => {
          if (++writes === 2) throw Object.assign(new Error('Failed to write blobs (IOError)'), { name: 'DataError' });
          return store.write(name, files);
        },
      };
    };
    const h = harness({ openRepository: async () => repo });
    const ended = h.next(isEnd(1));
    h.send(start(1, { record: { runId: 'run-7', resume: false } }));
    const end = await ended;
    expect(end).toMatchObject({ type: 'failed', id: 1, error: { name: 'StorageQuotaError' } });
    const stored = (await repo.getRun('run-7'))!;
    const first = await repo.checkpoints('run-7').latest();
    expect(first).not.toBeNull();
    expect(stored).toMatchObject({ status: 'interrupted', checkpoint: first });
    expect(stored.error).toMatch(
      /^browser storage is full while .*\(DataError: Failed to write blobs \(IOError\)\): delete runs in the runs table \(or free disk space\) and continue$/,
    );
  });
});
