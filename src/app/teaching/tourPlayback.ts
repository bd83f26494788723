// The guided tour on a recording (its default): when the tour opens on an empty Train view it plays the shipped
// retire-shell recording, and each stop moves the playhead to its moment (tour.ts's recordedAt) — so a class sees
// every stage at once instead of waiting on training. "Train it live instead" on the tour card ends the playback.
import { frameOf, lastFrame, type PlaybackTimeline } from '../../core/runLog/runPlayback';
import { runStore } from '../train/liveRun';
import { INITIAL_RUN_STATE } from '../train/liveRunState';
import { openRecording } from '../train/PlaybackBar';
import { playbackStore } from '../train/playbackStore';
import type { RecordedMoment } from './tour';

/** The frame of a recorded run that shows `moment`. */
export function momentFrame(t: PlaybackTimeline, moment: RecordedMoment): number {
  const end = lastFrame(t);
  const retirement = t.events.find((e) => e.type === 'retirement');
  const trigger = retirement?.type === 'retirement' ? retirement.triggerStep : null;
  switch (moment) {
    case 'start':
      return 0;
    case 'sft-end':
      return t.positions.reduce((f, p, i) => (p.stage === 'sft' ? i : f), 0);
    case 'student-start':
      return frameOf(t, 'student', 1);
    case 'before-retirement':
      return trigger === null ? Math.floor(end / 2) : frameOf(t, 'student', Math.floor(trigger / 2));
    case 'retirement':
      return trigger === null ? end : frameOf(t, 'student', trigger);
    case 'end':
      return end;
  }
}

/**
 * Move the tour's recording to `moment`: opening the retire-shell recording first when the Train view shows nothing
 * (no run trained or shown). A run of the reader's own on screen keeps the tour on it.
 */
export async function tourOnRecording(moment: RecordedMoment): Promise<void> {
  let source = playbackStore.getState().source;
  if (!source) {
    if (runStore.getState().status !== 'idle') return;
    await openRecording('retire-shell');
    source = playbackStore.getState().source;
    if (!source) return;
  }
  playbackStore.getState().pause();
  playbackStore.getState().seek(momentFrame(source.timeline, moment));
}

/** "Train it live instead": end the playback and leave an empty view, ready for Start. */
export function tourLive(): void {
  if (!playbackStore.getState().source) return;
  playbackStore.getState().close();
  runStore.getState().show(INITIAL_RUN_STATE);
}
