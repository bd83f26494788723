// The trajectory viewer on a checkpoint rather than a held run: decode a run's checkpoint (its student, and its
// teacher when the checkpoint holds one), build the policies and sample them with trajectoryProbe.ts. Forward
// passes only; the policies are disposed before it returns. Used by the playback of recorded runs
// (src/app/worker/checkpointProbeWorker.ts).
import type { ExperimentConfig } from '../core/experiment/config';
import { createEnvFor } from '../core/experiment/envFactory';
import { weightsFromHost } from './hostTensor';
import { PolicyModel } from './model';
import { modelConfigFor } from './modelConfig';
import { decodeCheckpoint, type CheckpointFiles } from './trainer/checkpoint';
import { parseTrainerState } from './trainer/trainerState';
import { probeTrajectories, type ProbeEpisode, type ProbeRequest } from './trajectoryProbe';

export interface CheckpointProbeAnswer {
  episodes: ProbeEpisode[];
  stage: string;
  step: number;
}

/** Sample the policies of checkpoint `files` of a run with `config`; `where` names the checkpoint in errors. */
export async function probeCheckpoint(
  config: ExperimentConfig,
  files: CheckpointFiles,
  request: ProbeRequest,
  where: string,
): Promise<CheckpointProbeAnswer> {
  const content = decodeCheckpoint(files, (raw) => parseTrainerState(raw, config));
  const env = createEnvFor(config);
  const mc = modelConfigFor(config, env);
  // before the student stage a checkpoint holds π_init (the SFT policy), which the student starts from
  const host = content.models.student ?? content.models.init;
  if (!host) throw new Error(`${where}: the checkpoint holds no student policy`);
  const student = new PolicyModel(mc, 0, 'probe-student');
  const teacher = content.models.teacher ? new PolicyModel(mc, 0, 'probe-teacher') : null;
  try {
    student.setWeights(weightsFromHost(host));
    if (teacher && content.models.teacher) teacher.setWeights(weightsFromHost(content.models.teacher));
    const episodes = await probeTrajectories(env, student, teacher, request);
    return { episodes, stage: content.state.stage, step: content.state.step };
  } finally {
    student.dispose();
    teacher?.dispose();
  }
}
