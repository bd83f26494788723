// The trajectory viewer's channel to the training worker: a BroadcastChannel, so that the run's message protocol
// (worker/protocol.ts) and its store need no new members. The page posts a request with a fresh nonce; the worker
// of the run answers it (only while the run is held at a step boundary: see RunControl.runWhileHeld).
// Limitation: two tabs of the lab training at once on one origin would both answer; the page takes the first.
import type { Split } from '../../core/env/types';
import type { ProbeEpisode } from '../../engine/trajectoryProbe';

export const PROBE_CHANNEL = 'retirelab-trajectory-probe';

export interface ProbeRequestMessage {
  type: 'probe';
  nonce: string;
  split: Split;
  taskIndices: number[];
  seed: number;
  teacherEpisodes: boolean;
}

export type ProbeResponseMessage =
  | { type: 'probe-result'; nonce: string; episodes: ProbeEpisode[]; stage: string | null; step: number | null }
  | { type: 'probe-error'; nonce: string; message: string };
