// The runs another tab trains, as this tab sees them (runChannel.ts carries their progress, runLocks.ts says who
// holds each): each shown read-only with its last progress, interrupted once that tab lets go of it while it was
// still 'running' (the tab closed), and followed in the Train view while this tab shows nothing of its own — the
// next run of the other tab's queue taking the place of the one that ended.
import type { RunStore } from '../train/liveRunStore';
import { isActive } from '../train/liveRunState';
import type { RemoteProgress, RunChannelMessage } from './runChannel';
import { runLockName, type RunLocks } from './runLocks';
import type { RunOwnership } from './runOwnership';
import type { RunRepository } from './runRepository';

/** What the runs store lends: its state of other tabs' runs, its error guard and its reads. */
export interface OtherTabStore {
  elsewhere(): Record<string, RemoteProgress>;
  setElsewhere(elsewhere: Record<string, RemoteProgress>): void;
  /** runs `f`, storing its error for the page (null then) */
  guard<T>(f: () => Promise<T>): Promise<T | null>;
  refresh(): Promise<void>;
  refreshRuns(ids: readonly string[]): Promise<void>;
  showRun(id: string): Promise<void>;
}

/** Redraw a followed run from its stored steps at most this often (ms). */
const RESHOW_MS = 2000;

export class OtherTabRuns {
  /** whether the Train view shows another tab's runs because this tab showed nothing (it follows that tab's queue) */
  following = false;
  private lastReshow = 0;

  constructor(
    private readonly store: OtherTabStore,
    private readonly repo: () => Promise<RunRepository>,
    private readonly locks: RunLocks,
    private readonly ownership: RunOwnership,
    private readonly runStore: RunStore,
    private readonly now: () => number,
  ) {}

  /** Once another tab lets go of run `id`: a record it left 'running' (the tab closed) is interrupted. */
  watch(id: string): void {
    void this.locks.whenFree(runLockName(id)).then(async () => {
      await this.store.guard(async () => {
        const r = await this.repo();
        const rec = await r.getRun(id);
        if (rec && rec.status === 'running' && this.ownership.runId !== id)
          await r.putRun({ ...rec, status: 'interrupted', updatedAt: this.now() });
      });
      this.forget(id);
      await this.store.refreshRuns([id]);
    });
  }

  /** A message of the runs channel. */
  receive(m: RunChannelMessage): void {
    switch (m.type) {
      case 'progress':
        this.progress(m);
        return;
      case 'ended':
        this.forget(m.runId);
        void this.store.refresh();
        return;
      default: {
        const never: never = m;
        throw new Error(`unknown runs channel message ${JSON.stringify(never)}`);
      }
    }
  }

  /** Another tab's run progressed: keep its row live, and follow it while this tab shows nothing of its own. */
  private progress(m: Extract<RunChannelMessage, { type: 'progress' }>): void {
    if (this.ownership.runId === m.runId) return;
    const elsewhere = this.store.elsewhere();
    const known = elsewhere[m.runId] !== undefined;
    this.store.setElsewhere({ ...elsewhere, [m.runId]: { stage: m.stage, step: m.step, totalSteps: m.totalSteps } });
    const shown = this.runStore.getState();
    if (!known) {
      // a run another tab started (or resumed) since this table was read
      this.watch(m.runId);
      void this.store.refresh();
      // the Train view follows another tab's runs while it shows nothing else: the next run of its queue
      const idle = shown.status === 'idle';
      const followed = this.following && !isActive(shown.status) && (shown.recordId ?? '') in this.store.elsewhere();
      if (idle || (this.following && !followed && !isActive(shown.status))) {
        this.following = true;
        this.lastReshow = this.now();
        void this.store.showRun(m.runId);
        return;
      }
    }
    // the Train view shows that run (read-only): redraw it from the stored steps, at most every RESHOW_MS
    if (shown.recordId === m.runId && !isActive(shown.status) && this.now() - this.lastReshow > RESHOW_MS) {
      this.lastReshow = this.now();
      void this.store.showRun(m.runId);
    }
  }

  private forget(id: string): void {
    const { [id]: _gone, ...rest } = this.store.elsewhere();
    this.store.setElsewhere(rest);
  }
}
