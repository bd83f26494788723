// Where a stored run resumes: its newest checkpoint with every step line before it stored (runRepository.ts
// resumeCheckpoint). Whatever came after that checkpoint is dropped from the store and trained again, so the resumed
// log has no hole and no duplicate. A rider that left its leader continues its student stage where it left.
import { checkpointName, parseCheckpointName } from '../../core/runLog/checkpointName';
import { restoreRunState } from './restoreRunState';
import type { RunRecord } from './runRecord';
import { resumeCheckpoint, stepLinesFault, type RunRepository } from './runRepository';

export interface ResumePoint {
  record: RunRecord;
  /** the checkpoint it resumes from */
  checkpoint: string;
  /** the page's run state folded from the kept lines and events */
  restored: ReturnType<typeof restoreRunState>;
  /** a rider that left its leader, continuing from the step it left at (unannounced) */
  continuation: boolean;
}

/**
 * Truncate stored run `id` after its resume checkpoint and mark it running again; throws a message a user can act
 * on where the run is gone or has no usable checkpoint.
 */
export async function takeResumePoint(r: RunRepository, id: string, now: number): Promise<ResumePoint> {
  const record = await r.getRun(id);
  if (!record) throw new Error(`run ${id} is no longer stored`);
  const name = await resumeCheckpoint(r, id);
  const at = name ? parseCheckpointName(name) : null;
  if (!name || !at)
    throw new Error(
      (await r.checkpoints(id).latest()) === null
        ? `run ${id} has no checkpoint to resume from (it stopped before its first checkpoint)`
        : `run ${id} has no checkpoint before its first missing line (${(await stepLinesFault(r, id)) ?? '?'}): start it again`,
    );
  await r.truncateAfter(id, at.stage, at.step);
  await r.putRun({ ...record, status: 'running', checkpoint: name, error: null, updatedAt: now });
  const restored = restoreRunState(record, await r.metrics(id), await r.events(id));
  const continuation =
    record.detachedAt !== undefined &&
    record.detachedAt !== null &&
    name === checkpointName('student', record.detachedAt);
  return { record, checkpoint: name, restored, continuation };
}
