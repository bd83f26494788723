// One stored run as a zip of the CLI's run folder layout (runFolderFiles.ts), checkpoints included.
import { strToU8, zipSync, type Zippable } from 'fflate';
import type { CheckpointFiles } from '../../engine/trainer/checkpoint';
import type { RunRepository } from './runRepository';
import { runFolderFiles, runFolderName } from './runFolderFiles';

export async function runZip(repo: RunRepository, runId: string): Promise<{ name: string; bytes: Uint8Array } | null> {
  const record = await repo.getRun(runId);
  if (!record) return null;
  const store = repo.checkpoints(runId);
  const checkpoints = new Map<string, CheckpointFiles>();
  for (const name of await store.list()) {
    const files = await store.read(name);
    if (files) checkpoints.set(name, files);
  }
  const files = runFolderFiles(
    record,
    await repo.metrics(runId),
    await repo.events(runId),
    checkpoints,
    await store.latest(),
  );
  const folder = runFolderName(record);
  const zip: Zippable = {};
  for (const [path, content] of files)
    zip[`${folder}/${path}`] = typeof content === 'string' ? strToU8(content) : content;
  return { name: `${folder}.zip`, bytes: zipSync(zip, { level: 6 }) };
}
