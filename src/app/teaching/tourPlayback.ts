// The guided tour on a recording (its default): when the tour opens on an empty Train view it plays the shipped
// retire-shell recording, and each stop moves the playhead to its moment (tour.ts's recordedAt) — so a class sees
// every stage at once instead of waiting on training. At the what-if stop the Gate replay opens on the recording's own
// log and settings. "Train it live instead" on the tour card ends the playback.
import { runStore } from '../train/liveRun';
import { INITIAL_RUN_STATE } from '../train/liveRunState';
import { openRecording } from '../demo/recordingPlayback';
import { playbackStore } from '../train/playbackStore';
import { handToReplay } from '../replay/replayInbox';
import { metricsJsonl, replaySettingsFor } from '../train/runExport';
import { liveTeacherPerformance } from './inspectionModel';
import { momentFrame, type RecordedMoment, type TourStop } from './tour';

/**
 * Move the tour's recording to `moment`: opening the retire-shell recording first when the Train view shows nothing
 * (no run trained or shown). A run of the reader's own on screen keeps the tour on it.
 */
export async function tourOnRecording(moment: RecordedMoment, view?: TourStop['view']): Promise<void> {
  let source = playbackStore.getState().source;
  if (!source) {
    if (runStore.getState().status !== 'idle') return;
    await openRecording('retire-shell');
    source = playbackStore.getState().source;
    if (!source) return;
  }
  playbackStore.getState().pause();
  playbackStore.getState().seek(momentFrame(source.timeline, moment));
  if (view === 'replay') replayShownRun();
}

/**
 * Hand the run on screen (the recording, at the playhead) to the Gate replay view: its own student log, replayed
 * with its own gate settings — W, δ, γ, ε from its config, S_T as it measured it — so that the what-if starts from
 * the run the class has just watched, not from the form's defaults.
 */
function replayShownRun(): void {
  const state = runStore.getState();
  if (!state.config || state.steps.student.length === 0) return;
  const settings = replaySettingsFor(state.config, state.summary?.teacherPerformance ?? liveTeacherPerformance(state));
  if (!settings) return;
  const blob = new Blob([metricsJsonl(state.steps.student)], { type: 'application/jsonl' });
  const name = `${state.config.name}-seed${state.config.seed}-metrics.jsonl`;
  handToReplay({ logs: [{ name, bytes: blob.size, blob }], settings });
}

/** "Train it live instead": end the playback and leave an empty view, ready for Start. */
export function tourLive(): void {
  if (!playbackStore.getState().source) return;
  playbackStore.getState().close();
  runStore.getState().show(INITIAL_RUN_STATE);
}
