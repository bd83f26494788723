import { describe, expect, it } from 'vitest';
import { INITIAL_RUN_STATE, reduceRun, type RunState } from '../../src/app/train/liveRunState';
import { CONFIG, studentStep } from './runFixtures';

const started = (): RunState =>
  reduceRun(INITIAL_RUN_STATE, {
    type: 'sent',
    request: {
      type: 'start',
      id: 1,
      config: CONFIG,
      backend: 'wasm',
      control: null,
      record: { runId: 'r', resume: false },
    },
  });

describe('the run state with batched events and storage errors', () => {
  it('folds a batch of events in order: steps appended once per stage, other events as they come', () => {
    const s = reduceRun(started(), {
      type: 'received',
      response: {
        type: 'events',
        id: 1,
        events: [
          { type: 'stage', stage: 'student', status: 'start', totalSteps: 20 },
          studentStep(1, 0.25),
          { type: 'window', step: 1, window: { end_step: 1, mean: 0.5 } },
          studentStep(2, 0.5),
        ],
      },
    });
    expect(s.recordId).toBe('r');
    expect(s.steps.student.map((l) => l.step)).toEqual([1, 2]);
    expect(s.windows).toEqual([{ step: 1, mean: 0.5 }]);
    expect([s.stage, s.step, s.totalSteps]).toEqual(['student', 2, 20]);
  });

  it('ignores a batch of another run, and shows a storage failure without stopping the run', () => {
    const s0 = started();
    expect(reduceRun(s0, { type: 'received', response: { type: 'events', id: 9, events: [studentStep(1, 0)] } })).toBe(
      s0,
    );
    const s = reduceRun(s0, {
      type: 'received',
      response: { type: 'storage', id: 1, error: { name: 'StorageQuotaError', message: 'browser storage is full' } },
    });
    expect(s.storageError).toEqual({ name: 'StorageQuotaError', message: 'browser storage is full' });
    expect(s.status).toBe('starting');
    expect(s.log.at(-1)).toEqual({ level: 'error', text: 'StorageQuotaError: browser storage is full' });
  });
});
