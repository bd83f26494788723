// A GRPO stage's next training rollout, queued early: on webgpu a step starts the one read of its update statistics,
// then queues step k+1's rollout behind the update, then awaits the read (policyUpdate's `whileReading`), so the
// device has work while the host waits. The rollout depends on the step's seed and the weights only — never on the
// gate's plan — and the device runs it after the update, so it is the rollout step k+1 would have made itself.
// Read-backs: the rollout's turns are step k+1's, so step k's blocking count closes when the rollout is queued; the
// overlapped read is counted apart (time/readbacks_async).
import type { Task } from '../../../core/env/types';
import { METRIC } from '../../../core/runLog/metricKeys';
import { asyncReadbackCount, readbackCount } from '../../kernelCounter';
import type { RolloutOutput } from '../enginePort';

export interface StepRollout {
  tasks: Task[];
  rollout: RolloutOutput;
}

interface Queued {
  rollout: Promise<StepRollout>;
  /** the read-back count when it was queued: where the next step's count starts */
  reads0: number;
}

/** What a step takes at its start: its rollout if queued early, and the read-back counts it starts from. */
export interface StepStart {
  rollout: Promise<StepRollout> | null;
  reads0: number;
  asyncReads0: number;
}

export class NextRollout {
  private queued: Queued | null = null;

  /** Step k's start: the rollout queued during step k−1 (or null), and where step k's read-backs start. */
  take(): StepStart {
    const q = this.queued;
    this.queued = null;
    return { rollout: q?.rollout ?? null, reads0: q?.reads0 ?? readbackCount(), asyncReads0: asyncReadbackCount() };
  }

  /** Queue the next step's rollout now (a policyUpdate `whileReading` callback). */
  queue(start: () => Promise<StepRollout>): void {
    const reads0 = readbackCount();
    const rollout = start();
    rollout.catch(() => undefined); // awaited by the next step, or by settle() when this step fails or stops
    this.queued = { rollout, reads0 };
  }

  /**
   * The step's read-back keys: `time/readbacks`, the blocking reads from its start up to the moment the next rollout
   * was queued (if it was), and `time/readbacks_async` when a read overlapped that rollout.
   */
  readbacks(start: StepStart): Record<string, number> {
    const blocking = (this.queued?.reads0 ?? readbackCount()) - start.reads0;
    const overlapped = asyncReadbackCount() - start.asyncReads0;
    return {
      [METRIC.timeReadbacks]: blocking,
      ...(overlapped > 0 ? { [METRIC.timeReadbacksAsync]: overlapped } : {}),
    };
  }

  /** At the stage's end, normal or not: a rollout still queued is waited for (its output is host arrays only). */
  async settle(): Promise<void> {
    const q = this.queued;
    this.queued = null;
    if (q !== null) await q.rollout.catch(() => undefined);
  }
}
