import { describe, expect, it } from 'vitest';
import { EMPTY_RUN_LOG, foldRunLog, type TrainedStage } from '../../../src/core/runLog/runLogFold';
import {
  foldToFrame,
  frameOf,
  lastFrame,
  playbackTimeline,
  recordedStream,
  runLogAt,
  type RecordedRun,
} from '../../../src/core/runLog/runPlayback';
import type { MetricsLine, TrainerEvent } from '../../../src/core/runLog/trainerEvent';
import { RUN_EVENTS, summary } from '../../app/runFixtures';

/** Split a trainer stream the way a run folder stores it (cli/runFolder.ts): step lines per stage, the rest in order. */
function asFolder(events: readonly TrainerEvent[]): RecordedRun {
  const steps: Record<TrainedStage, MetricsLine[]> = { sft: [], teacher: [], student: [] };
  const rest: TrainerEvent[] = [];
  let done = null;
  for (const e of events) {
    if (e.type === 'step') steps[e.stage as TrainedStage].push(e.metrics);
    else if (e.type === 'done') done = e.summary;
    else rest.push(e);
  }
  return { steps, events: rest, summary: done };
}

const studentStep = (k: number, val?: number): TrainerEvent => ({
  type: 'step',
  stage: 'student',
  step: k,
  totalSteps: 4,
  metrics: val === undefined ? { step: k } : { step: k, 'val/success_rate': val },
});

/** A run in the trainer's own order: a step's gate events before its line, its checkpoint after it. */
const STREAM: TrainerEvent[] = [
  { type: 'stage', stage: 'sft', status: 'start', totalSteps: 2 },
  { type: 'step', stage: 'sft', step: 1, totalSteps: 2, metrics: { step: 1 } },
  { type: 'step', stage: 'sft', step: 2, totalSteps: 2, metrics: { step: 2 } },
  { type: 'checkpoint', name: 'sft-000002', stage: 'sft', step: 2, reason: 'stage-end' },
  { type: 'stage', stage: 'sft', status: 'end', totalSteps: 2 },
  { type: 'stage', stage: 'teacher', status: 'skipped', totalSteps: 0 },
  { type: 'stage', stage: 'student', status: 'start', totalSteps: 4 },
  studentStep(1),
  { type: 'window', step: 2, window: { end_step: 2, mean: 0.4 } },
  studentStep(2, 0.5),
  { type: 'retirement', step: 3, triggerStep: 3, schedule: 'adaptive', teacherPerformance: 0.5 },
  studentStep(3),
  { type: 'checkpoint', name: 'student-000003', stage: 'student', step: 3, reason: 'periodic' },
  studentStep(4, 0.75),
  { type: 'stage', stage: 'student', status: 'end', totalSteps: 4 },
  { type: 'done', summary: summary('completed', 3) },
];

describe('run playback', () => {
  it('rebuilds the trainer’s stream from a run folder’s split logs, event for event', () => {
    expect(recordedStream(asFolder(STREAM))).toEqual(STREAM);
  });

  it('rebuilds the shared run fixture too, up to its warning (a warning carries no step: it stays after the event it followed)', () => {
    const rebuilt = recordedStream(asFolder(RUN_EVENTS));
    expect(rebuilt.filter((e) => e.type !== 'warning')).toEqual(RUN_EVENTS.filter((e) => e.type !== 'warning'));
    const at = rebuilt.findIndex((e) => e.type === 'warning');
    expect(rebuilt[at - 1]).toMatchObject({ type: 'checkpoint', name: 'student-000010' });
  });

  it('cuts one frame per trained step, frame 0 before the first', () => {
    const t = playbackTimeline(asFolder(STREAM));
    expect(lastFrame(t)).toBe(6);
    expect(t.positions).toEqual([
      { stage: null, step: 0 },
      { stage: 'sft', step: 1 },
      { stage: 'sft', step: 2 },
      { stage: 'student', step: 1 },
      { stage: 'student', step: 2 },
      { stage: 'student', step: 3 },
      { stage: 'student', step: 4 },
    ]);
    expect(frameOf(t, 'student', 3)).toBe(5);
    expect(frameOf(t, 'student', 0)).toBe(2);
  });

  it('shows the retirement at its trigger step and not one frame earlier, and the summary only at the end', () => {
    const t = playbackTimeline(asFolder(STREAM));
    expect(runLogAt(t, 4).retirement).toBeNull();
    expect(runLogAt(t, 5).retirement?.triggerStep).toBe(3);
    expect(runLogAt(t, 5).checkpoint).toBe('student-000003');
    expect(runLogAt(t, 5).summary).toBeNull();
    expect(runLogAt(t, 6).summary?.status).toBe('completed');
    expect(runLogAt(t, 4).windows).toEqual([{ step: 2, mean: 0.4 }]);
  });

  it('ends, played to its last frame, where the live fold of the whole stream ends', () => {
    const t = playbackTimeline(asFolder(STREAM));
    expect(runLogAt(t, lastFrame(t))).toEqual(foldRunLog(EMPTY_RUN_LOG, STREAM));
  });

  it('gives the same log stepping forward frame by frame, jumping, and scrubbing back', () => {
    const t = playbackTimeline(asFolder(STREAM));
    let s = runLogAt(t, 0);
    for (let f = 1; f <= lastFrame(t); f++) s = foldToFrame(t, s, f - 1, f, EMPTY_RUN_LOG);
    expect(s).toEqual(runLogAt(t, lastFrame(t)));
    expect(foldToFrame(t, s, lastFrame(t), 2, EMPTY_RUN_LOG)).toEqual(runLogAt(t, 2));
    expect(foldToFrame(t, runLogAt(t, 1), 1, 99, EMPTY_RUN_LOG)).toEqual(runLogAt(t, lastFrame(t)));
  });
});
