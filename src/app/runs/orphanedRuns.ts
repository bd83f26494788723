// Runs a page left 'running' when it closed or reloaded: on load, each such run is either trained by another tab
// (that tab holds its lock: shown read-only, with its last stored progress), trained by another lane of this page
// (this page holds its lock: left running), or nobody's — then it is stored 'interrupted', continuable from its
// last checkpoint.
import type { RemoteProgress } from './runChannel';
import { runLockName, type RunLocks } from './runLocks';
import type { RunRepository } from './runRepository';

/**
 * Interrupt every orphaned 'running' run of `r` except `liveId` (this page's worker trains it); returns the runs
 * another tab trains, with their stored progress.
 */
export async function settleOrphanedRuns(
  r: RunRepository,
  locks: RunLocks,
  liveId: string | null,
  now: number,
): Promise<Record<string, RemoteProgress>> {
  const others = await locks.heldElsewhere();
  const elsewhere: Record<string, RemoteProgress> = {};
  for (const run of await r.listRuns()) {
    if (run.status !== 'running' || run.id === liveId) continue;
    if (others.has(runLockName(run.id))) {
      elsewhere[run.id] = { stage: run.stage, step: run.step, totalSteps: run.totalSteps };
      continue;
    }
    const release = await locks.tryAcquire(runLockName(run.id));
    if (release === null) continue;
    try {
      await r.putRun({ ...run, status: 'interrupted', updatedAt: now });
    } finally {
      release();
    }
  }
  return elsewhere;
}
