// A preset's shipped trained teacher (teacher.checkpoint: a checkpoint folder under public/), fetched from this
// app's own server; the engine's checkShippedTeacher verifies and checks it, as it does for the CLI.
import type { AgentEnv } from '../../core/env/types';
import type { ExperimentConfig } from '../../core/experiment/config';
import { fileReferenceMessage } from '../../core/experiment/fileReference';
import { CheckpointError, type CheckpointFiles } from '../../engine/trainer/checkpoint';
import { checkShippedTeacher, TEACHER_FILES } from '../../engine/trainer/shippedTeacher';
import type { WeightRecord } from '../../engine/weights';
import { appRoot } from '../appRoot';

export async function loadTeacher(
  cfg: ExperimentConfig,
  env: AgentEnv,
  fetcher: typeof fetch = fetch,
  root: URL = appRoot(),
): Promise<WeightRecord[] | null> {
  if (cfg.teacher.checkpoint === '') return null;
  // only a path inside the app's own origin is fetched (core/experiment/fileReference.ts)
  const outside = fileReferenceMessage('teacher.checkpoint', cfg.teacher.checkpoint, 'app');
  if (outside !== null) throw new CheckpointError(outside);
  const rel = cfg.teacher.checkpoint.replace(/\/+$/g, '');
  const base = new URL(`${rel}/`, root);
  if (base.origin !== root.origin)
    throw new CheckpointError(`teacher.checkpoint: '${cfg.teacher.checkpoint}' is not a path inside this app`);
  const files: CheckpointFiles = new Map();
  for (const name of TEACHER_FILES) {
    const url = new URL(name, base);
    const res = await fetcher(url);
    if (!res.ok)
      throw new CheckpointError(
        `teacher.checkpoint: ${url.pathname} answered ${res.status} (expected ${TEACHER_FILES.join(', ')})`,
      );
    files.set(name, new Uint8Array(await res.arrayBuffer()));
  }
  return checkShippedTeacher(files, cfg, env, rel);
}
