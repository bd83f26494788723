// Pause and stop of a running trainer, seen from inside the worker (protocol.ts explains the two channels).
// Shared flags: checked at every step boundary (the trainer's step event) and before every rollout; a pause blocks
// the worker thread with Atomics.wait until the page clears the flag or asks to stop. Messages (fallback): pause
// holds the run before its next rollout; the worker yields one macrotask per rollout so the messages get read.
import { CONTROL_PAUSE, CONTROL_STEP, CONTROL_STOP, type RunControlState } from './protocol';

/** What the control needs of the trainer. */
export interface Stoppable {
  requestStop(): void;
}

/** Longest single Atomics.wait (ms): the loop re-checks the stop flag at least this often. */
const WAIT_SLICE_MS = 500;
/** Polling interval of a hold before a rollout (ms). */
const ASYNC_POLL_MS = 40;

const nextMacrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export class RunControl {
  private trainer: Stoppable | null = null;
  private stopMessage = false;
  private pauseMessage = false;
  private resumeWaiters: (() => void)[] = [];
  private reported: RunControlState = 'running';
  /** a step credit was taken: the run goes on, un-held, until the end of the current step (the step event) */
  private stepping = false;
  /** held in beforeRollout (the event loop turns: runWhileHeld can serve requests) */
  private heldAsync = false;
  /** work run while held; the hold releases the trainer only after it */
  private busy: Promise<void> | null = null;

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

  /**
   * At a step boundary (synchronous): block while the shared pause flag is set, then honour a stop. In the stages
   * that roll out (`stage` teacher or student) the hold waits for the next rollout instead, where it is asynchronous
   * and the worker can still serve requests on a held run (the trajectory viewer's probes, runWhileHeld).
   */
  atStepBoundary(stage?: string): void {
    this.stepping = false;
    if (stage !== 'teacher' && stage !== 'student') this.holdWhilePaused();
    this.applyStop();
  }

  /** Whether the run is held right now (paused at a step boundary or before a rollout). */
  get held(): boolean {
    return this.reported === 'paused';
  }

  /**
   * Run `work` (forward passes only: it must not train) while the run is held before a rollout; the hold does not
   * release the trainer until `work` is done. Throws when the run is not held there.
   */
  async runWhileHeld<T>(work: () => Promise<T>): Promise<T> {
    if (!this.held || !this.heldAsync) throw new Error('pause the run (in the teacher or student stage) first');
    const result = work();
    this.busy = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Take one step credit of the page's (protocol.ts CONTROL_STEP), if there is one. */
  private takeStepCredit(): boolean {
    const flags = this.flags;
    if (flags === null) return false;
    let credits = Atomics.load(flags, CONTROL_STEP);
    while (credits > 0) {
      const seen = Atomics.compareExchange(flags, CONTROL_STEP, credits, credits - 1);
      if (seen === credits) return true;
      credits = seen;
    }
    return false;
  }

  /**
   * Block while the shared pause flag is set, unless a step credit lets exactly one more step run: the page is told
   * 'running' for that step and 'paused' again at the next step boundary.
   */
  private holdWhilePaused(): void {
    if (this.stepping || !this.pausedByFlag || this.stopRequested) return;
    this.setState('paused');
    while (this.pausedByFlag && !this.stopRequested) {
      if (this.takeStepCredit()) {
        this.stepping = true;
        break;
      }
      Atomics.wait(this.flags as Int32Array, CONTROL_PAUSE, 1, WAIT_SLICE_MS);
    }
    if (!this.stopRequested) this.setState('running');
  }

  /** holdWhilePaused without blocking the thread: polls the flags, so messages are handled meanwhile. */
  private async holdWhilePausedAsync(): Promise<void> {
    if (this.stepping || !this.pausedByFlag || this.stopRequested) return;
    this.setState('paused');
    this.heldAsync = true;
    while (this.pausedByFlag && !this.stopRequested) {
      if (this.takeStepCredit()) {
        this.stepping = true;
        break;
      }
      await new Promise<void>((resolve) => setTimeout(resolve, ASYNC_POLL_MS));
    }
    this.heldAsync = false;
    while (this.busy) {
      const busy = this.busy;
      await busy;
      if (this.busy === busy) this.busy = null;
    }
    if (!this.stopRequested) this.setState('running');
  }

  /** Before a rollout: let queued messages in, honour a pause by flag or by message, then a stop. */
  async beforeRollout(): Promise<void> {
    await nextMacrotask();
    // a rollout inside a step (its training or validation rollouts) holds only when no step credit is running
    await this.holdWhilePausedAsync();
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
