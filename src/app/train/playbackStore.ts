// Playback of a recorded, stored or imported run in the Train view, as if live: a playhead over the run's frames
// (one per trained step, core/runLog/runPlayback.ts) that plays at 1×–50× the run's own pace, pauses, steps and
// scrubs. Each move folds the run's events up to the playhead and shows the result through the run store's show()
// — so every chart, marker, the gate inspector, the what-if and the summary follow the playhead with no code of
// their own. A live run taking the view (or another stored run shown) ends the playback.
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import type { ExperimentConfig } from '../../core/experiment/config';
import type { DemoArm } from '../../core/experiment/demoRecording';
import { checkpointRunOrder, parseCheckpointName } from '../../core/runLog/checkpointName';
import { EMPTY_RUN_LOG, type RunLog } from '../../core/runLog/runLogFold';
import {
  foldToFrame,
  lastFrame,
  playbackTimeline,
  runLogAt,
  type PlaybackTimeline,
  type RecordedRun,
} from '../../core/runLog/runPlayback';
import type { BackendName } from '../../engine/backend';
import { runStore } from './liveRun';
import { INITIAL_RUN_STATE, isActive, type RunState } from './liveRunState';

/** Speeds offered, as multiples of the run's own pace. */
export const MIN_SPEED = 1;
export const MAX_SPEED = 50;
/** Frames per second at 1× when the run does not say how long it took. */
const DEFAULT_PACE = 4;
/** How often a playing playhead moves (ms). */
const TICK_MS = 100;

export interface PlaybackSource {
  /** shown in the bar: "recording retire-shell (seed 1000)", a stored run's label */
  label: string;
  config: ExperimentConfig;
  timeline: PlaybackTimeline;
  backend: BackendName | null;
  /** the stored run it is, or null for a shipped recording */
  recordId: string | null;
  /** the shipped recording it is, or null */
  arm: DemoArm | null;
  /** checkpoints the trajectory viewer can open, in run order: a recording's shipped ones, a stored run's kept ones */
  checkpoints: { name: string; stage: string; step: number }[];
  /** frames per second at 1×: the run's own pace */
  pace: number;
}

export interface PlaybackState {
  source: PlaybackSource | null;
  frame: number;
  playing: boolean;
  speed: number;
}

export interface PlaybackActions {
  open(source: PlaybackSource, frame?: number): void;
  play(): void;
  pause(): void;
  /** move by `frames` (±) and hold */
  step(frames: number): void;
  seek(frame: number): void;
  setSpeed(speed: number): void;
  close(): void;
}

/** A playable source from a recorded run. */
export function playbackSource(
  run: RecordedRun,
  config: ExperimentConfig,
  meta: Pick<PlaybackSource, 'label' | 'backend' | 'recordId' | 'arm'> & { checkpoints?: readonly string[] },
): PlaybackSource {
  const timeline = playbackTimeline(run);
  const frames = lastFrame(timeline);
  const seconds = run.summary?.wallSeconds;
  return {
    ...meta,
    config,
    timeline,
    // a stored run lists its checkpoints by name ("sft-…" before "demonstrations-…"): put them in run order
    checkpoints: [...(meta.checkpoints ?? [])]
      .sort((a, b) => checkpointRunOrder(a) - checkpointRunOrder(b))
      .flatMap((name) => {
        const at = parseCheckpointName(name);
        return at ? [{ name, stage: at.stage, step: at.step }] : [];
      }),
    pace: seconds && seconds > 0 && frames > 0 ? frames / seconds : DEFAULT_PACE,
  };
}

function shownState(source: PlaybackSource, log: RunLog, frame: number): RunState {
  return {
    ...INITIAL_RUN_STATE,
    ...log,
    recordId: source.recordId,
    status: frame >= lastFrame(source.timeline) ? 'completed' : 'stopped',
    config: source.config,
    backend: source.backend,
  };
}

export function createPlaybackStore(runs: typeof runStore) {
  let log: RunLog = EMPTY_RUN_LOG;
  let timer: ReturnType<typeof setInterval> | null = null;
  let shownSteps: RunLog['steps'] | null = null;
  let carry = 0;
  const store = createStore<PlaybackState & PlaybackActions>()((set, get) => {
    const stopTimer = () => {
      if (timer !== null) clearInterval(timer);
      timer = null;
    };
    /** Fold to `frame` and show it; false when a live run holds the view. */
    const showFrame = (frame: number): boolean => {
      const { source, frame: from } = get();
      if (!source || isActive(runs.getState().status)) return false;
      const to = Math.max(0, Math.min(lastFrame(source.timeline), frame));
      log = foldToFrame(source.timeline, log, from, to, EMPTY_RUN_LOG);
      shownSteps = log.steps;
      runs.getState().show(shownState(source, log, to));
      set({ frame: to });
      return true;
    };
    const end = () => {
      stopTimer();
      shownSteps = null;
      set({ source: null, playing: false, frame: 0 });
    };
    const tick = () => {
      const { source, frame, speed } = get();
      if (!source) return end();
      carry += (speed * source.pace * TICK_MS) / 1000;
      const by = Math.floor(carry);
      carry -= by;
      if (by === 0) return;
      if (!showFrame(frame + by)) return end();
      if (get().frame >= lastFrame(source.timeline)) {
        stopTimer();
        set({ playing: false });
      }
    };
    return {
      source: null,
      frame: 0,
      playing: false,
      speed: 10,
      open(source, frame = 0) {
        if (isActive(runs.getState().status)) return;
        stopTimer();
        log = runLogAt(source.timeline, frame);
        set({ source, frame, playing: false });
        shownSteps = log.steps;
        runs.getState().show(shownState(source, log, frame));
      },
      play() {
        const { source, frame } = get();
        if (!source) return;
        if (frame >= lastFrame(source.timeline)) showFrame(0);
        stopTimer();
        carry = 0;
        timer = setInterval(tick, TICK_MS);
        set({ playing: true });
      },
      pause() {
        stopTimer();
        set({ playing: false });
      },
      step(frames) {
        stopTimer();
        set({ playing: false });
        showFrame(get().frame + frames);
      },
      seek(frame) {
        showFrame(frame);
      },
      setSpeed(speed) {
        set({ speed: Math.max(MIN_SPEED, Math.min(MAX_SPEED, Math.round(speed))) });
      },
      close: end,
    };
  });
  // another stored run shown, or a live run started: the playback no longer owns the view
  runs.subscribe((s) => {
    if (store.getState().source && (s.steps !== shownSteps || isActive(s.status))) store.getState().close();
  });
  return store;
}

export const playbackStore = createPlaybackStore(runStore);

export const usePlayback = <T>(selector: (s: PlaybackState & PlaybackActions) => T): T =>
  useStore(playbackStore, selector);
