// The guided tour on a recording (its default): when the tour opens on an empty Train view it plays the shipped
// retire-shell recording, and each stop moves the playhead to its moment (tour.ts's recordedAt) — so a class sees
// every stage at once instead of waiting on training. "Train it live instead" on the tour card ends the playback.
import { runStore } from '../train/liveRun';
import { INITIAL_RUN_STATE } from '../train/liveRunState';
import { openRecording } from '../demo/recordingPlayback';
import { playbackStore } from '../train/playbackStore';
import { momentFrame, type RecordedMoment } from './tour';

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
