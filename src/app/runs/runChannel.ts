// The runs' BroadcastChannel: the tab that trains a run tells the other tabs of this origin how far it is, so that
// they show it "running in another tab", live and read-only, and refresh their table when it ends. One message
// union; messages carry the run id. The stored record (IndexedDB) stays the truth: this only says when to look.
import type { StageName } from '../../engine/trainer/events';

export const RUN_CHANNEL = 'retirelab-runs';

export type RunChannelMessage =
  /** the owner's run moved on (sent at most as often as its worker's batches: ~10 a second) */
  | { type: 'progress'; runId: string; stage: StageName | null; step: number; totalSteps: number }
  /** the owner's run ended (completed, stopped or failed) and its record says so */
  | { type: 'ended'; runId: string };

/** Progress of a run another tab trains, as its last message said. */
export interface RemoteProgress {
  stage: StageName | null;
  step: number;
  totalSteps: number;
}
