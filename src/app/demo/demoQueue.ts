// "Train these three live" on the Overview: the recorded arms as one queue of the runs table (one queue runs at a
// time, runQueue.ts) — retire-shell's config under each arm's student.schedule (opd-shell and grpo-shell extend
// retire-shell and change only that key), on the recordings' seed. Each queued run trains what its recording
// trained, so the Train view races the recording behind it (raceRecording.ts, beside it).
import { DEMO_SEED } from '../../core/experiment/demoRecording';
import type { ExperimentConfig } from '../../core/experiment/config';
import type { Preset } from '../../core/experiment/preset';
import type { BackendChoice } from '../../core/methodVocabulary';
import { createQueue, type RunQueue } from '../runs/runQueue';

/** A queue of `base` (retire-shell) under the schedules of `arms` (the recordings' configs), seed DEMO_SEED. */
export function demoQueue(base: Preset, arms: readonly ExperimentConfig[], backend: BackendChoice = 'auto'): RunQueue {
  const schedules = [...new Set(arms.map((a) => a.student.schedule))];
  return createQueue(base, [], backend, [DEMO_SEED], { 'student.schedule': schedules });
}
