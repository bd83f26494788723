// The run locks this page's worker holds (runLocks.ts): the run it trains and the riders along it. A lock says "this
// lane of this tab writes this run"; another lane or tab may neither train nor delete a run while it is held. The
// runs store takes the run's lock before starting it and drops every lock once the run's record is final.
import type { RunLocks } from './runLocks';
import { runLockName } from './runLocks';

export class RunOwnership {
  /** the lock of the run this page's worker trains (released when it ends) */
  private own: { runId: string; release: () => void } | null = null;
  /** the locks of the runs riding along it (released with it, or when the rider leaves), by run id */
  private readonly riderLocks = new Map<string, () => void>();
  /** the queue index of each rider this page created, by run id */
  private readonly riderIndex = new Map<string, number | null>();

  constructor(private readonly locks: RunLocks) {}

  /** the run whose lock this page holds, or null */
  get runId(): string | null {
    return this.own?.runId ?? null;
  }

  /** Take run `runId`'s lock (the one this page held before is released); false while another holder has it. */
  async take(runId: string): Promise<boolean> {
    const release = await this.locks.tryAcquire(runLockName(runId));
    if (release === null) return false;
    this.own?.release();
    this.own = { runId, release };
    return true;
  }

  /** Lock a rider's fresh run (nobody else knows its id yet) and remember its queue index. */
  async takeRider(runId: string, queueIndex: number | null): Promise<void> {
    const release = await this.locks.tryAcquire(runLockName(runId));
    if (release) this.riderLocks.set(runId, release);
    this.riderIndex.set(runId, queueIndex);
  }

  /** A rider left its leader: release its lock (another lane may continue it); returns its queue index. */
  releaseRider(runId: string): number | null {
    this.riderLocks.get(runId)?.();
    this.riderLocks.delete(runId);
    return this.riderIndex.get(runId) ?? null;
  }

  /** every rider this page created for its current run (left or riding) */
  riderIds(): string[] {
    return [...this.riderIndex.keys()];
  }

  /** Release the run's lock and every rider's. */
  drop(): void {
    this.own?.release();
    this.own = null;
    for (const release of this.riderLocks.values()) release();
    this.riderLocks.clear();
    this.riderIndex.clear();
  }
}
