// A queue's items, as stored after every change (runQueue.ts runs them, queueExecution.ts one item at a time).
import type { SweepRun, SweepSpec } from '../../core/experiment/sweep';
import type { BackendChoice } from '../worker/protocol';
import type { StoredQueue } from './runRepository';

/** 'interrupted': its run stopped without a summary but can continue from a checkpoint (a full browser storage) */
export type QueueItemStatus = 'pending' | 'running' | 'completed' | 'stopped' | 'interrupted' | 'failed';

export interface QueueItem extends SweepRun {
  runId: string | null;
  status: QueueItemStatus;
}

export interface RunQueue extends StoredQueue {
  id: string;
  createdAt: number;
  preset: string;
  overrides: string[];
  backendChoice: BackendChoice;
  spec: SweepSpec;
  items: QueueItem[];
  /** running: goes on after a reload; paused: a run was stopped by hand; done: every run has ended */
  state: 'running' | 'paused' | 'done';
  /**
   * the most runs one training worker trains at once, as a leader and the runs that ride along its student stage
   * (populationOf below); absent or 1: one run at a time
   */
  populationSize?: number;
}
