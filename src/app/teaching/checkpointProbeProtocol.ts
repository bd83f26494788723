// Messages between the page and the checkpoint probe worker (checkpointProbeWorker.ts): sample a recorded run's
// checkpoint for the trajectory viewer. One request, one answer, matched by id.
import type { ExperimentConfig } from '../../core/experiment/config';
import type { ProbeEpisode, ProbeRequest } from '../../engine/trajectoryProbe';

export type CheckpointProbeRequest = {
  type: 'probe-checkpoint';
  id: number;
  config: ExperimentConfig;
  /** the checkpoint's files (model.json, weights.bin, state.json, manifest.json) */
  files: [string, Uint8Array][];
  /** names the checkpoint in errors: "demo/retire-shell/checkpoints/student-000250" */
  where: string;
  request: ProbeRequest;
};

export type CheckpointProbeResponse =
  | { type: 'probe-result'; id: number; episodes: ProbeEpisode[]; stage: string; step: number }
  | { type: 'probe-error'; id: number; message: string };
