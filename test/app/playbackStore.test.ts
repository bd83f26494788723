import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunStore } from '../../src/app/train/liveRunStore';
import { createPlaybackStore, playbackSource } from '../../src/app/train/playbackStore';
import type { WorkerLike } from '../../src/app/worker/protocol';
import type { RecordedRun } from '../../src/core/runLog/runPlayback';
import { CONFIG, summary } from './runFixtures';

const idleWorker = (): WorkerLike => ({
  postMessage: () => undefined,
  terminate: () => undefined,
  onmessage: null,
  onerror: null,
});

/** Two SFT steps, then four student steps with the retirement at step 3; 6 s of wall time (1 frame/s at 1×). */
const RUN: RecordedRun = {
  steps: {
    sft: [{ step: 1 }, { step: 2 }],
    teacher: [],
    student: [1, 2, 3, 4].map((k) => ({ step: k })),
  },
  events: [
    { type: 'stage', stage: 'sft', status: 'start', totalSteps: 2 },
    { type: 'stage', stage: 'student', status: 'start', totalSteps: 4 },
    { type: 'retirement', step: 3, triggerStep: 3, schedule: 'adaptive', teacherPerformance: 0.5 },
  ],
  summary: { ...summary('completed', 3), wallSeconds: 6 },
};

function setup() {
  const runs = createRunStore(idleWorker, { sharedControl: false });
  const playback = createPlaybackStore(runs);
  const source = playbackSource(RUN, CONFIG, { label: 'test', backend: 'cpu', recordId: null, arm: null });
  return { runs, playback, source };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the playback store', () => {
  it('lists a stored run’s checkpoints in run order, whatever order their names sort in, and drops other names', () => {
    const stored = playbackSource(RUN, CONFIG, {
      label: 'stored',
      backend: 'cpu',
      recordId: 'r1',
      arm: null,
      checkpoints: ['student-000010', 'sft-000020', 'LATEST', 'demonstrations-000000', 'student-000002'],
    });
    expect(stored.checkpoints).toEqual([
      { name: 'demonstrations-000000', stage: 'demonstrations', step: 0 },
      { name: 'sft-000020', stage: 'sft', step: 20 },
      { name: 'student-000002', stage: 'student', step: 2 },
      { name: 'student-000010', stage: 'student', step: 10 },
    ]);
  });
  it('plays at the run’s own pace: frames over wall seconds at 1×', () => {
    expect(setup().source.pace).toBe(1);
  });

  it('shows the fold up to the playhead in the run store, and the retirement exactly at its step', () => {
    const { runs, playback, source } = setup();
    playback.getState().open(source, 4);
    expect(runs.getState().steps.student.map((l) => l.step)).toEqual([1, 2]);
    expect(runs.getState().retirement).toBeNull();
    expect(runs.getState().status).toBe('stopped');
    playback.getState().step(1);
    expect(runs.getState().retirement?.triggerStep).toBe(3);
    playback.getState().seek(99);
    expect(playback.getState().frame).toBe(6);
    expect(runs.getState().status).toBe('completed');
    playback.getState().step(-5);
    expect(runs.getState().steps.sft.map((l) => l.step)).toEqual([1]);
    expect(runs.getState().steps.student).toEqual([]);
  });

  it('moves speed × pace frames a second while playing, and stops at the end', () => {
    vi.useFakeTimers();
    const { playback, source } = setup();
    playback.getState().open(source);
    playback.getState().setSpeed(20);
    playback.getState().play();
    vi.advanceTimersByTime(200); // 20 frames/s × 0.2 s = 4 frames
    expect(playback.getState().frame).toBe(4);
    vi.advanceTimersByTime(1000);
    expect(playback.getState().frame).toBe(6);
    expect(playback.getState().playing).toBe(false);
  });

  it('keeps the speed within 1× and 50×', () => {
    const { playback } = setup();
    playback.getState().setSpeed(500);
    expect(playback.getState().speed).toBe(50);
    playback.getState().setSpeed(0);
    expect(playback.getState().speed).toBe(1);
  });

  it('ends when another run is shown in the view', () => {
    const { runs, playback, source } = setup();
    playback.getState().open(source, 3);
    runs.getState().show({ ...runs.getState(), steps: { sft: [], teacher: [], student: [] } });
    expect(playback.getState().source).toBeNull();
  });
});
