// A preset's shipped trained teacher (teacher.checkpoint: a checkpoint folder under public/), fetched from this
// app's own server and checked against the run's model and environment — the browser twin of the CLI's loader.
import type { AgentEnv } from '../../core/env/types';
import type { ExperimentConfig } from '../../core/experiment/config';
import { decodeCheckpoint, type CheckpointFiles } from '../../engine/trainer/checkpoint';
import { weightsFromHost } from '../../engine/hostTensor';
import { modelConfigFor } from '../../engine/modelConfig';
import type { WeightRecord } from '../../engine/weights';
import { appRoot } from '../appRoot';

const FILES = ['model.json', 'weights.bin', 'state.json'] as const;

export class TeacherCheckpointError extends Error {
  override name = 'TeacherCheckpointError';
}

export async function loadTeacher(
  cfg: ExperimentConfig,
  env: AgentEnv,
  fetcher: typeof fetch = fetch,
  root: URL = appRoot(),
): Promise<WeightRecord[] | null> {
  const rel = cfg.teacher.checkpoint.replace(/^\/+|\/+$/g, '');
  if (rel === '') return null;
  const base = new URL(`${rel}/`, root);
  const files: CheckpointFiles = new Map();
  for (const name of FILES) {
    const url = new URL(name, base);
    const res = await fetcher(url);
    if (!res.ok)
      throw new TeacherCheckpointError(
        `teacher.checkpoint: ${url.pathname} answered ${res.status} (expected ${FILES.join(', ')})`,
      );
    files.set(name, new Uint8Array(await res.arrayBuffer()));
  }
  const content = decodeCheckpoint(files, (raw) => raw);
  const weights = content.models.teacher;
  if (!weights) throw new TeacherCheckpointError(`teacher.checkpoint: ${rel} holds no teacher weights`);
  const have = (content.topology as { policy?: Record<string, unknown> } | null)?.policy ?? {};
  const want = modelConfigFor(cfg, env);
  const diff = Object.entries(want)
    .filter(([k, v]) => have[k] !== v)
    .map(([k, v]) => `${k} ${String(have[k])} ≠ ${String(v)}`);
  if (diff.length > 0)
    throw new TeacherCheckpointError(`teacher.checkpoint ${rel} was trained for another model/env: ${diff.join(', ')}`);
  return weightsFromHost(weights);
}
