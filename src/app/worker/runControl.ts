// Pause and stop of a running trainer, seen from inside the worker (protocol.ts explains the two channels).
// Shared flags: checked at every step boundary (the trainer's step event) and before every rollout; a pause blocks
// the worker thread with Atomics.wait until the page clears the flag or asks to stop. Messages (fallback): pause
// holds the run before its next rollout; the worker yields one macrotask per rollout so the messages get read.
import { CONTROL_PAUSE, CONTROL_STOP, type RunControlState } from './protocol';

/** What the control needs of the trainer. */
export interface Stoppable {
  requestStop(): void;
}

/** Longest single Atomics.wait (ms): the loop re-checks the stop flag at least this often. */
const WAIT_SLICE_MS = 500;

const nextMacrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export class RunControl {
  private trainer: Stoppable | null = null;
  private stopMessage = false;
  private pauseMessage = false;
  private resumeWaiters: (() => void)[] = [];
  private reported: RunControlState = 'running';

  constructor(
    /** [CONTROL_SLOTS] flags shared with the page, or null for the message fallback */
    private readonly flags: Int32Array | null,
    private readonly report: (state: RunControlState) => void,
  ) {}

  /** The trainer to stop; a stop asked for before it existed applies now. */
  attach(trainer: Stoppable): void {
    this.trainer = trainer;
    this.applyStop();
  }

  get stopRequested(): boolean {
    return this.stopMessage || (this.flags !== null && Atomics.load(this.flags, CONTROL_STOP) === 1);
  }

  private get pausedByFlag(): boolean {
    return this.flags !== null && Atomics.load(this.flags, CONTROL_PAUSE) === 1;
  }

  private setState(state: RunControlState): void {
    if (state === this.reported) return;
    this.reported = state;
    this.report(state);
  }

  private applyStop(): boolean {
    if (!this.stopRequested) return false;
    this.trainer?.requestStop();
    this.setState('stopping');
    return true;
  }

  /** At a step boundary (synchronous): block while the shared pause flag is set, then honour a stop. */
  atStepBoundary(): void {
    if (this.pausedByFlag && !this.stopRequested) {
      this.setState('paused');
      while (this.pausedByFlag && !this.stopRequested)
        Atomics.wait(this.flags as Int32Array, CONTROL_PAUSE, 1, WAIT_SLICE_MS);
      if (!this.stopRequested) this.setState('running');
    }
    this.applyStop();
  }

  /** Before a rollout: let queued messages in, honour a pause by flag or by message, then a stop. */
  async beforeRollout(): Promise<void> {
    await nextMacrotask();
    this.atStepBoundary();
    if (this.pauseMessage && !this.stopRequested) {
      this.setState('paused');
      await new Promise<void>((resolve) => this.resumeWaiters.push(resolve));
      if (!this.stopRequested) this.setState('running');
    }
    this.applyStop();
  }

  // ---- the message fallback

  pause(): void {
    this.pauseMessage = true;
  }

  resume(): void {
    this.pauseMessage = false;
    for (const w of this.resumeWaiters.splice(0)) w();
  }

  stop(): void {
    this.stopMessage = true;
    this.resume();
    this.applyStop();
  }
}
