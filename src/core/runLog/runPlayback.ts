// A finished (or stored, or imported) run played back as if live: its logs rebuilt into the one event stream the
// trainer emitted, cut into frames (one per trained step), and the run log at any frame as the fold of the events up
// to it (runLogFold.ts) — the same reading the live view applies to the worker's events, so a played run and a live
// run show the same charts, gate rows and markers at the same step.
//
// A run folder splits the stream: step lines go to sft.jsonl / teacher.jsonl / metrics.jsonl and every other event,
// in order, to events.jsonl (cli/runFolder.ts; the tab stores them the same way). The trainer's order, which the
// merge below restores (src/engine/trainer/stages/student.ts): within student step k the gate's window, evaluation
// and retirement events come before the step's own line, and the checkpoint taken after step k comes after it.
import type { RunSummary } from '../experiment/summary';
import { STAGE_NAMES, type StageName } from './checkpointName';
import {
  EMPTY_RUN_LOG,
  foldRunLog,
  isTrainedStage,
  TRAINED_STAGES,
  type RunLog,
  type TrainedStage,
} from './runLogFold';
import type { MetricsLine, TrainerEvent } from './trainerEvent';

/** What a recording holds: each stage's metrics lines, the other events in order, and the summary if it ended. */
export interface RecordedRun {
  steps: Record<TrainedStage, readonly MetricsLine[]>;
  /** every event but 'step' and 'done', in the order they were written */
  events: readonly TrainerEvent[];
  summary: RunSummary | null;
}

/** Where in the run a frame is. */
export interface FramePosition {
  stage: TrainedStage | null;
  step: number;
}

export interface PlaybackTimeline {
  /** the whole stream, in the trainer's order, ending with 'done' when the run has a summary */
  events: TrainerEvent[];
  /** ends[f]: how many events frame f has played (frame 0: what came before the first step; frame F: all) */
  ends: number[];
  /** positions[f]: the stage and step frame f shows */
  positions: FramePosition[];
}

/** A sort key in run order: stage first, then a position within the stage measured in steps. */
const key = (stage: StageName, at: number) => STAGE_NAMES.indexOf(stage) * 1e7 + at;

/**
 * The key up to which step lines must have been played before `event`, or null when it carries no position (a
 * warning stays where it was written).
 */
function flushKey(event: TrainerEvent): number | null {
  switch (event.type) {
    case 'stage':
      return event.status === 'start' ? key(event.stage, 0) : key(event.stage, 1e6);
    case 'window':
    case 'retirement':
      return key('student', event.step - 0.5);
    case 'evaluation':
      return event.kind === 'gate' ? key('student', event.step - 0.5) : key('evaluation', 0);
    case 'checkpoint':
      return key(event.stage, event.step);
    case 'error':
      return key(event.stage, event.step - 0.5);
    default:
      return null;
  }
}

/** Rebuild the trainer's event stream from a recording (its step lines merged back between the other events). */
export function recordedStream(run: RecordedRun): TrainerEvent[] {
  const totals: Record<TrainedStage, number> = { sft: 0, teacher: 0, student: 0 };
  for (const e of run.events)
    if (e.type === 'stage' && e.status === 'start' && isTrainedStage(e.stage)) totals[e.stage] = e.totalSteps;
  const pending: { key: number; event: TrainerEvent }[] = TRAINED_STAGES.flatMap((stage) =>
    run.steps[stage].map((metrics) => ({
      key: key(stage, metrics.step),
      event: {
        type: 'step' as const,
        stage,
        step: metrics.step,
        totalSteps: totals[stage] || run.steps[stage].length,
        metrics,
      },
    })),
  );
  pending.sort((a, b) => a.key - b.key);
  const out: TrainerEvent[] = [];
  let next = 0;
  for (const event of run.events) {
    const upTo = flushKey(event);
    if (upTo !== null) while (next < pending.length && pending[next]!.key <= upTo) out.push(pending[next++]!.event);
    out.push(event);
  }
  while (next < pending.length) out.push(pending[next++]!.event);
  if (run.summary) out.push({ type: 'done', summary: run.summary });
  return out;
}

/** Events that belong to the step just played (shown with it) rather than to the next one. */
const trailsStep = (e: TrainerEvent) =>
  e.type === 'checkpoint' || e.type === 'warning' || (e.type === 'stage' && e.status !== 'start');

/** Cut a recording into frames: frame f shows the run right after its f-th trained step. */
export function playbackTimeline(run: RecordedRun): PlaybackTimeline {
  const events = recordedStream(run);
  const stepAt: number[] = [];
  events.forEach((e, i) => {
    if (e.type === 'step' && isTrainedStage(e.stage)) stepAt.push(i);
  });
  const ends: number[] = [stepAt[0] ?? events.length];
  const positions: FramePosition[] = [{ stage: null, step: 0 }];
  stepAt.forEach((at, f) => {
    let end = at + 1;
    if (f === stepAt.length - 1) end = events.length;
    else while (end < events.length && trailsStep(events[end]!)) end++;
    ends.push(end);
    const e = events[at] as Extract<TrainerEvent, { type: 'step' }>;
    positions.push({ stage: e.stage as TrainedStage, step: e.step });
  });
  return { events, ends, positions };
}

/** The number of the last frame (the whole run). */
export const lastFrame = (t: PlaybackTimeline) => t.ends.length - 1;

/** The frame showing `stage` step `step` (the nearest played one at or before it; 0 when none). */
export function frameOf(t: PlaybackTimeline, stage: TrainedStage, step: number): number {
  let found = 0;
  t.positions.forEach((p, f) => {
    if (p.stage !== null && key(p.stage, p.step) <= key(stage, step)) found = f;
  });
  return found;
}

/**
 * The run log at frame `to`, given `state`, the log at frame `from`, and `empty`, the log before any event. Moving
 * forward folds only the events in between; moving back refolds from the start.
 */
export function foldToFrame<R extends RunLog>(t: PlaybackTimeline, state: R, from: number, to: number, empty: R): R {
  const target = Math.max(0, Math.min(lastFrame(t), to));
  if (target >= from) return foldRunLog(state, t.events.slice(t.ends[from] ?? 0, t.ends[target]));
  return foldRunLog(empty, t.events.slice(0, t.ends[target]));
}

/** The run log at frame `f` (folded from the start). */
export const runLogAt = (t: PlaybackTimeline, f: number): RunLog =>
  foldRunLog(EMPTY_RUN_LOG, t.events.slice(0, t.ends[Math.max(0, Math.min(lastFrame(t), f))]));
