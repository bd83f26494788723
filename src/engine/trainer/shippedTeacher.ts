// A trained teacher shipped as a checkpoint folder (the config's teacher.checkpoint): its files verified against
// their manifest, decoded, and checked against the run's model and environment. The one check for both readers:
// the CLI reads the folder from disk (cli/experimentRunner.ts) and the worker fetches it from the app's own origin
// (src/app/worker/teacherLoader.ts); each hands the files here.
import type { AgentEnv } from '../../core/env/types';
import type { ExperimentConfig } from '../../core/experiment/config';
import { weightsFromHost } from '../hostTensor';
import { parameterSpecs } from '../model';
import { modelConfigFor } from '../modelConfig';
import { checkWeightRecords, type WeightRecord } from '../weights';
import { CheckpointError, decodeCheckpoint, verifyCheckpoint, type CheckpointFiles, type Sha256 } from './checkpoint';

/** The files a shipped teacher's folder holds (`npm run experiment -- --export-teacher DIR` writes them). */
export const TEACHER_FILES = ['manifest.json', 'model.json', 'weights.bin', 'state.json'] as const;

/**
 * The teacher's weights from its checkpoint files, after checking them: every file against manifest.json (length and
 * SHA-256), the policy topology against the model the config and environment imply, and every weight's name and shape.
 * `where` names the folder in messages. Throws CheckpointError saying what differs.
 */
export async function checkShippedTeacher(
  files: CheckpointFiles,
  cfg: ExperimentConfig,
  env: AgentEnv,
  where: string,
  sha256?: Sha256,
): Promise<WeightRecord[]> {
  await verifyCheckpoint(files, `teacher.checkpoint ${where}`, { sha256, requireManifest: true });
  const content = decodeCheckpoint(files, (raw) => raw);
  const weights = content.models.teacher;
  if (!weights) throw new CheckpointError(`teacher.checkpoint: ${where} holds no teacher weights`);
  const topo = content.topology as { policy?: Record<string, unknown> } | null;
  const have = topo !== null && typeof topo === 'object' && topo.policy ? topo.policy : {};
  const want = modelConfigFor(cfg, env);
  const diff = Object.entries(want)
    .filter(([k, v]) => have[k] !== v)
    .map(([k, v]) => `${k} ${String(have[k])} ≠ ${String(v)}`);
  if (diff.length > 0)
    throw new CheckpointError(`teacher.checkpoint ${where} was trained for another model/env: ${diff.join(', ')}`);
  const records = weightsFromHost(weights);
  try {
    checkWeightRecords(parameterSpecs(want), records, `teacher.checkpoint ${where}`);
  } catch (e) {
    throw new CheckpointError((e as Error).message);
  }
  return records;
}
