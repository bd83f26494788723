// Pause, step and stop of a running trainer, seen from inside the worker (protocol.ts explains the two channels).
// The trainer awaits atStepBoundary at every step boundary of every stage (TrainerOptions.atStepBoundary: after a
// step's event, at each stage start, between evaluation passes). A paused run is held there without blocking the
// thread: the hold re-reads the shared flags every POLL_MS and wakes at once on a resume or stop message, so the
// worker keeps reading its messages and can serve work on the held run (runWhileHeld: the trajectory viewer's probes).
// A pause asked for during a long validation holds inside it (withinStep, between decode steps), so that Pause takes
// effect within one training step; the run then holds inside the step, where probes are not served, and a Step
// credit finishes that step and holds at its boundary.
import type { StageName } from '../../engine/trainer/events';
import { CONTROL_PAUSE, CONTROL_STEP, CONTROL_STOP, type RunControlState } from './protocol';

/** What the control needs of the trainer. */
export interface Stoppable {
  requestStop(): void;
}

/** Interval (ms) at which a hold re-reads the shared flags. */
const POLL_MS = 40;

export interface RunControlOptions {
  /** resolves after `ms` milliseconds (default setTimeout); each wait of a hold is one call */
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Boundaries that end a training step (step > 0 of sft, teacher, student); stage starts and evaluation do not. */
const endsTrainingStep = (stage: StageName, step: number): boolean =>
  step > 0 && (stage === 'sft' || stage === 'teacher' || stage === 'student');

export class RunControl {
  private trainer: Stoppable | null = null;
  private stopMessage = false;
  private pauseMessage = false;
  private reported: RunControlState = 'running';
  /** a step credit was taken: the run goes on, un-held, until the boundary that ends the current training step */
  private stepping = false;
  /** inside a hold's waiting loop (runWhileHeld may start work) */
  private holding = false;
  /** ends the current wait of a hold early (a resume or stop message arrived) */
  private wake: (() => void) | null = null;
  /** work run while held; the hold releases the trainer only after it */
  private busy: Promise<void> | null = null;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    /** [CONTROL_SLOTS] flags shared with the page, or null for the message fallback */
    private readonly flags: Int32Array | null,
    private readonly report: (state: RunControlState, within?: 'validation') => void,
    options: RunControlOptions = {},
  ) {
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** The trainer to stop; a stop asked for before it existed applies now. */
  attach(trainer: Stoppable): void {
    this.trainer = trainer;
    this.applyStop();
  }

  get stopRequested(): boolean {
    return this.stopMessage || (this.flags !== null && Atomics.load(this.flags, CONTROL_STOP) === 1);
  }

  private get pauseRequested(): boolean {
    return this.pauseMessage || (this.flags !== null && Atomics.load(this.flags, CONTROL_PAUSE) === 1);
  }

  /** Whether the run is held right now (paused at a step boundary). */
  get held(): boolean {
    return this.reported === 'paused';
  }

  private setState(state: RunControlState, within?: 'validation'): void {
    if (state === this.reported) return;
    this.reported = state;
    if (within) this.report(state, within);
    else this.report(state);
  }

  private applyStop(): boolean {
    if (!this.stopRequested) return false;
    this.trainer?.requestStop();
    this.setState('stopping');
    return true;
  }

  /**
   * The trainer's hook at a step boundary: hold while paused (unless a step credit runs the current step), then
   * pass a stop on to the trainer, which honours it as soon as this returns.
   */
  async atStepBoundary(stage: StageName, step: number): Promise<void> {
    if (endsTrainingStep(stage, step)) this.stepping = false;
    await this.holdWhilePaused();
    this.applyStop();
  }

  /**
   * The trainer's hook inside a step (between the decode steps of a validation): hold while paused, unless a step
   * credit is running this step. Nothing is served while held here (runWhileHeld refuses), and a stop is passed on
   * at the step boundary, as always; a step credit taken here finishes the current step.
   */
  async withinStep(): Promise<void> {
    if (this.stepping || !this.pauseRequested || this.stopRequested) return;
    this.setState('paused', 'validation');
    await this.waitWhilePaused();
    if (!this.stopRequested) this.setState('running');
  }

  /**
   * Run `work` (forward passes only: it must not train) on the held run; the hold does not release the trainer
   * until `work` is done. Throws when the run is not held.
   */
  async runWhileHeld<T>(work: () => Promise<T>): Promise<T> {
    if (!this.held || !this.holding) throw new Error('pause the run first: it must be held at a step boundary');
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
   * The wait of a hold: until the pause is lifted or a stop is asked for, or until a step credit lets the current
   * step run (then `stepping`).
   */
  private async waitWhilePaused(): Promise<void> {
    while (this.pauseRequested && !this.stopRequested) {
      if (this.takeStepCredit()) {
        this.stepping = true;
        break;
      }
      await this.nextPoll();
    }
    this.wake = null;
  }

  /** One wait of a hold: POLL_MS, or less when a message wakes it. */
  private nextPoll(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      void this.sleep(POLL_MS).then(resolve);
    });
  }

  /**
   * Hold while a pause is asked for (flag or message), unless a step credit lets exactly one more training step
   * run: the page is told 'paused' at the hold, 'running' when it lets go, and 'paused' again at the next hold.
   */
  private async holdWhilePaused(): Promise<void> {
    if (this.stepping || !this.pauseRequested || this.stopRequested) return;
    this.setState('paused');
    this.holding = true;
    await this.waitWhilePaused();
    this.holding = false;
    while (this.busy) {
      const busy = this.busy;
      await busy;
      if (this.busy === busy) this.busy = null;
    }
    if (!this.stopRequested) this.setState('running');
  }

  // ---- the message fallback

  pause(): void {
    this.pauseMessage = true;
  }

  resume(): void {
    this.pauseMessage = false;
    this.wake?.();
  }

  stop(): void {
    this.stopMessage = true;
    this.wake?.();
    this.applyStop();
  }
}
