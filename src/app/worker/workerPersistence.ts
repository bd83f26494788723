// The training worker's side of a stored run: the recorder that saves its events, the IndexedDB checkpoint storage
// the trainer writes to, and for a resume the decoded latest checkpoint (validated against the run's config, as the
// CLI's --resume does) after the stored lines past it were dropped — the newest checkpoint before which every line is
// stored, so a resume leaves no hole.
import type { ExperimentConfig } from '../../core/experiment/config';
import { decodeCheckpoint, type CheckpointContent, type CheckpointStorage } from '../../engine/trainer/checkpoint';
import { parseTrainerState, type TrainerState } from '../../engine/trainer/trainerState';
import { resumeCheckpoint, type RunRepository } from '../runs/runRepository';
import { RunRecorder } from './runRecorder';

export interface WorkerPersistence {
  /** the run repository it was opened on (riders of the run are stored there too) */
  repo: RunRepository;
  recorder: RunRecorder;
  storage: CheckpointStorage;
  resume: CheckpointContent<TrainerState> | null;
}

class ResumeError extends Error {
  override name = 'ResumeError';
}

export async function openWorkerPersistence(
  repo: RunRepository,
  runId: string,
  config: ExperimentConfig,
  resume: boolean,
  onError: (error: unknown) => void,
): Promise<WorkerPersistence> {
  const storage = repo.checkpoints(runId);
  let content: CheckpointContent<TrainerState> | null = null;
  if (resume) {
    // the newest checkpoint with every line before it stored (the page chose the same one: resumeCheckpoint)
    const name = await resumeCheckpoint(repo, runId);
    if (!name) throw new ResumeError(`run ${runId}: no checkpoint to resume from (it stopped before its first one)`);
    const files = await storage.read(name);
    if (!files) throw new ResumeError(`run ${runId}: checkpoint ${name} is missing from browser storage`);
    content = decodeCheckpoint(files, (raw) => parseTrainerState(raw, config));
    await repo.truncateAfter(runId, content.state.stage, content.state.step);
  }
  const recorder = await RunRecorder.open(repo, runId, { onError });
  // a checkpoint is stored only after every line before it: a reload between the two then leaves no hole
  const ordered: CheckpointStorage = {
    ...storage,
    write: async (name, files) => {
      await recorder.flush();
      await storage.write(name, files);
    },
  };
  return { repo, recorder, storage: ordered, resume: content };
}
