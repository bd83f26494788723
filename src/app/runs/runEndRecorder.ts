// What the runs store does as the page's own run goes on and ends, following the run store (liveRunStore.ts):
// tells other tabs its progress (runChannel.ts), releases a rider that left its leader so another lane may continue
// it, and — once the run ends — marks a run the worker could not mark (failed before it saved anything, or stopped by
// a full browser storage: interrupted, continuable), reads the records back into the table, releases the locks and
// tells other tabs the record is final.
import { isActive, type RunState } from '../train/liveRunState';
import type { RunStore } from '../train/liveRunStore';
import type { RunChannelMessage } from './runChannel';
import type { RunOwnership } from './runOwnership';
import { asStorageFull, isStorageFull, type RunRepository } from './runRepository';

export interface RunEndDeps {
  runStore: RunStore;
  repo: () => Promise<RunRepository>;
  ownership: RunOwnership;
  broadcast(message: RunChannelMessage): void;
  now(): number;
  /** a rider left its leader (stored, resumable from where it left): its queue index and run id */
  riderLeft(queueIndex: number | null, runId: string): void;
  refreshRuns(ids: readonly string[]): Promise<void>;
  refresh(): Promise<void>;
  setError(message: string): void;
}

const message = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/**
 * Mark run `id` (and, for a full storage, its riders `riders`) as its ending says, where the worker left it
 * 'running'. Returns the storage-full message to show, or null.
 */
async function markEnded(
  r: RunRepository,
  id: string,
  error: RunState['error'],
  riders: readonly string[],
  now: number,
): Promise<string | null> {
  const rec = await r.getRun(id);
  // a full browser storage leaves it continuable ('interrupted') from its last stored checkpoint
  const full = isStorageFull(error);
  const said = full ? asStorageFull(error, `saving run ${id}`) : error;
  const text = (said as { message?: string } | null)?.message ?? 'failed';
  if (rec && rec.status === 'running')
    await r.putRun({ ...rec, status: full ? 'interrupted' : 'failed', error: text, updatedAt: now });
  // riders the worker could not mark (the storage refused that write too): interrupted with their leader
  for (const riderId of full ? riders : []) {
    const rider = await r.getRun(riderId);
    if (rider && rider.status === 'running')
      await r.putRun({ ...rider, status: 'interrupted', error: text, updatedAt: now });
  }
  return full ? text : null;
}

/** Follow `deps.runStore` for the runs store; returns the unsubscribe. */
export function recordRunEnds(deps: RunEndDeps): () => void {
  const { runStore, ownership } = deps;
  let wasActive = false;
  let lastSent = '';
  let ridesSeen = 0;
  return runStore.subscribe((s) => {
    // a new run starts with no rides
    if (s.rides.length < ridesSeen) ridesSeen = 0;
    for (const ride of s.rides.slice(ridesSeen))
      if (ride.end === 'detached') deps.riderLeft(ownership.releaseRider(ride.runId), ride.runId);
    ridesSeen = s.rides.length;
    const active = isActive(s.status);
    if (active && s.recordId !== null && ownership.runId === s.recordId) {
      const sent = `${s.recordId} ${s.stage} ${s.step} ${s.totalSteps}`;
      if (sent !== lastSent) {
        lastSent = sent;
        deps.broadcast({ type: 'progress', runId: s.recordId, stage: s.stage, step: s.step, totalSteps: s.totalSteps });
      }
    }
    if (wasActive && !active) void afterEnd(deps, s);
    wasActive = active;
  });
}

async function afterEnd(deps: RunEndDeps, s: RunState): Promise<void> {
  const ended = deps.ownership.runId;
  // ended without a summary: failed, or interrupted by a full browser storage (its riders with it)
  const failed = (s.status === 'failed' || s.status === 'interrupted') && s.recordId !== null ? s.recordId : null;
  const interruptedRiders = s.rides.filter((x) => x.end === 'interrupted').map((x) => x.runId);
  // the records its worker wrote: the run's and its riders'
  const written =
    s.recordId === null ? null : [s.recordId, ...deps.ownership.riderIds(), ...s.rides.map((ride) => ride.runId)];
  try {
    // a run that failed before the worker could save anything (no backend, storage did not open) is marked here
    if (failed !== null) {
      const full = await markEnded(await deps.repo(), failed, s.error, interruptedRiders, deps.now());
      if (full !== null) deps.setError(full);
    }
    await (written ? deps.refreshRuns(written) : deps.refresh());
  } catch (e) {
    deps.setError(message(e));
  } finally {
    // the record is final: other tabs may continue the run from here on
    if (deps.ownership.runId === ended) deps.ownership.drop();
    if (ended !== null) deps.broadcast({ type: 'ended', runId: ended });
  }
}
