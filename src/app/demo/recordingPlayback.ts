// Opening a shipped recording (public/demo/) in the Train view's playback: used by the playback bar, the Overview
// and the guided tour (a module, so the tour's logic does not import a view).
import { DEMO_SEED, type DemoArm } from '../../core/experiment/demoRecording';
import type { BackendName } from '../../engine/backend';
import { playbackSource, playbackStore } from '../train/playbackStore';
import { demoRecording } from './demoRecordings';

/** Open a shipped recording in the playback, at `frame` (default: its start). */
export async function openRecording(arm: DemoArm, frame = 0): Promise<void> {
  const r = await demoRecording(arm);
  playbackStore.getState().open(
    playbackSource(r.run, r.config, {
      label: `recording ${arm} (seed ${DEMO_SEED})`,
      backend: (r.run.summary?.backend ?? null) as BackendName | null,
      recordId: null,
      arm,
      checkpoints: r.entry.checkpoints,
    }),
    frame,
  );
}
