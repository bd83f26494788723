// The locks the runs store holds for its worker's run and riders (src/app/runs/runOwnership.ts), on in-memory locks
// that two "tabs" share.
import { describe, expect, it } from 'vitest';
import { LockRegistry, MemoryLocks, runLockName } from '../../src/app/runs/runLocks';
import { RunOwnership } from '../../src/app/runs/runOwnership';

describe('RunOwnership', () => {
  it('takes a run another holder does not have, and is refused one it has', async () => {
    const registry = new LockRegistry();
    const other = new MemoryLocks(registry);
    const held = await other.tryAcquire(runLockName('b'));
    const mine = new RunOwnership(new MemoryLocks(registry));
    expect(await mine.take('a')).toBe(true);
    expect(mine.runId).toBe('a');
    expect(await mine.take('b')).toBe(false);
    expect(mine.runId).toBe('a');
    held!();
  });

  it('releases the previous run when it takes another, and every lock on drop', async () => {
    const registry = new LockRegistry();
    const mine = new RunOwnership(new MemoryLocks(registry));
    const other = new MemoryLocks(registry);
    await mine.take('a');
    await mine.take('b');
    expect(await other.heldElsewhere()).toEqual(new Set([runLockName('b')]));
    await mine.takeRider('r1', 3);
    expect(await other.heldElsewhere()).toEqual(new Set([runLockName('b'), runLockName('r1')]));
    mine.drop();
    expect(mine.runId).toBeNull();
    expect(mine.riderIds()).toEqual([]);
    expect(await other.heldElsewhere()).toEqual(new Set());
  });

  it("releases a rider that left its leader and answers the rider's queue index, keeping the leader's lock", async () => {
    const registry = new LockRegistry();
    const mine = new RunOwnership(new MemoryLocks(registry));
    const other = new MemoryLocks(registry);
    await mine.take('lead');
    await mine.takeRider('r1', 4);
    await mine.takeRider('r2', null);
    expect(mine.releaseRider('r1')).toBe(4);
    expect(await other.heldElsewhere()).toEqual(new Set([runLockName('lead'), runLockName('r2')]));
    expect(mine.releaseRider('r2')).toBeNull();
    // the left riders stay listed until the run ends: their records were written by this run's worker
    expect(mine.riderIds()).toEqual(['r1', 'r2']);
  });
});
