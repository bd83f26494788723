// RunControl (src/app/worker/runControl.ts) in Node: the trainer's step-boundary hook holds a paused run without
// blocking the thread, wakes on a resume or stop message at once, re-reads the shared flags at each wait, passes a
// stop on to the trainer and reports paused / running / stopping to the page once each. Waits are injected (`sleep`)
// so every test knows exactly when a hold is waiting.
import { describe, expect, it } from 'vitest';
import {
  CONTROL_PAUSE,
  CONTROL_SLOTS,
  CONTROL_STEP,
  CONTROL_STOP,
  type RunControlState,
} from '../../src/app/worker/protocol';
import { RunControl } from '../../src/app/worker/runControl';

/** A sleep the test ends by hand: `waiting` resolves when a hold starts a wait, `wake()` ends that wait. */
function manualSleep() {
  let calls = 0;
  let release: (() => void) | null = null;
  let waiting: (() => void) | null = null;
  return {
    sleep: () =>
      new Promise<void>((resolve) => {
        calls++;
        release = resolve;
        waiting?.();
      }),
    /** resolves once the hold is waiting (now, if it already is) */
    waiting: () =>
      new Promise<void>((resolve) => {
        if (release) resolve();
        else waiting = resolve;
      }),
    wake() {
      const r = release;
      release = null;
      waiting = null;
      r?.();
    },
    get calls() {
      return calls;
    },
  };
}

function setup(shared: boolean) {
  const flags = shared ? new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4)) : null;
  const reports: (RunControlState | `${RunControlState} in validation`)[] = [];
  const clock = manualSleep();
  const control = new RunControl(flags, (s, within) => reports.push(within ? `${s} in ${within}` : s), {
    sleep: clock.sleep,
  });
  const trainer = {
    stops: 0,
    requestStop() {
      this.stops++;
    },
  };
  return { flags, reports, control, trainer, clock };
}

describe('run control inside the worker', () => {
  it('stops the trainer at the step boundary after the shared stop flag is set, reporting it once', async () => {
    const { flags, reports, control, trainer } = setup(true);
    control.attach(trainer);
    await control.atStepBoundary('sft', 1);
    expect(trainer.stops).toBe(0);
    Atomics.store(flags!, CONTROL_STOP, 1);
    await control.atStepBoundary('sft', 2);
    expect(trainer.stops).toBe(1);
    await control.atStepBoundary('sft', 3);
    expect(reports).toEqual(['stopping']);
  });

  it('applies a stop asked for before the trainer existed as soon as it is attached', () => {
    const { control, trainer, reports } = setup(false);
    control.stop();
    control.attach(trainer);
    expect(trainer.stops).toBe(1);
    expect(reports).toEqual(['stopping']);
  });

  it('does not hold on a pause flag when a stop is also set', async () => {
    const { flags, control, trainer, reports, clock } = setup(true);
    control.attach(trainer);
    Atomics.store(flags!, CONTROL_PAUSE, 1);
    Atomics.store(flags!, CONTROL_STOP, 1);
    await control.atStepBoundary('evaluation', 0);
    expect(clock.calls).toBe(0);
    expect(trainer.stops).toBe(1);
    expect(reports).toEqual(['stopping']);
  });

  it('holds at a step boundary while paused by message and lets go on resume without waiting for a poll', async () => {
    const { control, trainer, reports, clock } = setup(false);
    control.attach(trainer);
    control.pause();
    let passed = false;
    const boundary = control.atStepBoundary('teacher', 2).then(() => (passed = true));
    await clock.waiting();
    expect(passed).toBe(false);
    expect(control.held).toBe(true);
    expect(reports).toEqual(['paused']);
    control.resume(); // the injected sleep never ends by itself: only the message can let the run go
    await boundary;
    expect(reports).toEqual(['paused', 'running']);
    expect(trainer.stops).toBe(0);
  });

  it('holds while the shared pause flag is set, re-reading it at every wait', async () => {
    const { flags, control, trainer, reports, clock } = setup(true);
    control.attach(trainer);
    Atomics.store(flags!, CONTROL_PAUSE, 1);
    let passed = false;
    const boundary = control.atStepBoundary('student', 7).then(() => (passed = true));
    await clock.waiting();
    clock.wake(); // the flag is still set: the hold waits again
    await clock.waiting();
    expect(clock.calls).toBe(2);
    expect(passed).toBe(false);
    Atomics.store(flags!, CONTROL_PAUSE, 0);
    clock.wake();
    await boundary;
    expect(reports).toEqual(['paused', 'running']);
  });

  it('releases a held run on stop, and the run ends instead of resuming', async () => {
    const { control, trainer, reports, clock } = setup(false);
    control.attach(trainer);
    control.pause();
    const boundary = control.atStepBoundary('sft', 4);
    await clock.waiting();
    control.stop();
    await boundary;
    expect(trainer.stops).toBeGreaterThan(0);
    expect(reports).toEqual(['paused', 'stopping']);
  });

  it('runs work on the held run only, and lets the run go only once that work is done', async () => {
    const { control, trainer, reports, clock } = setup(false);
    control.attach(trainer);
    await expect(control.runWhileHeld(async () => 1)).rejects.toThrow(/pause the run first/);
    control.pause();
    let passed = false;
    const boundary = control.atStepBoundary('student', 3).then(() => (passed = true));
    await clock.waiting();
    let finish: (value: string) => void = () => undefined;
    const work = control.runWhileHeld(() => new Promise<string>((resolve) => (finish = resolve)));
    control.resume();
    // the hold ended its waiting, but the work holds the trainer until it is done
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(passed).toBe(false);
    expect(reports).toEqual(['paused']);
    finish('sampled');
    expect(await work).toBe('sampled');
    await boundary;
    expect(reports).toEqual(['paused', 'running']);
  });

  it('holds inside a validation when paused there, serves no probe there, and lets go on resume', async () => {
    const { flags, control, trainer, reports, clock } = setup(true);
    control.attach(trainer);
    await control.withinStep(); // not paused: passes at once
    expect(reports).toEqual([]);
    Atomics.store(flags!, CONTROL_PAUSE, 1);
    let passed = false;
    const within = control.withinStep().then(() => (passed = true));
    await clock.waiting();
    expect(reports).toEqual(['paused in validation']);
    expect(control.held).toBe(true);
    await expect(control.runWhileHeld(async () => 1)).rejects.toThrow(/held at a step boundary/);
    Atomics.store(flags!, CONTROL_PAUSE, 0);
    clock.wake();
    await within;
    expect(passed).toBe(true);
    expect(reports).toEqual(['paused in validation', 'running']);
  });

  it('finishes the step on a step credit taken inside a validation, then holds at its boundary', async () => {
    const { flags, control, trainer, reports, clock } = setup(true);
    control.attach(trainer);
    Atomics.store(flags!, CONTROL_PAUSE, 1);
    const within = control.withinStep();
    await clock.waiting();
    Atomics.store(flags!, CONTROL_STEP, 1);
    clock.wake();
    await within;
    // the rest of the step's validation runs without holding again
    await control.withinStep();
    expect(reports).toEqual(['paused in validation', 'running']);
    // the step's boundary ends the credit: held there
    const boundary = control.atStepBoundary('student', 5);
    await clock.waiting();
    expect(reports).toEqual(['paused in validation', 'running', 'paused']);
    expect(Atomics.load(flags!, CONTROL_STEP)).toBe(0);
    Atomics.store(flags!, CONTROL_PAUSE, 0);
    clock.wake();
    await boundary;
  });

  it('does not hold inside a validation once a stop is asked for: the stop waits for the step boundary', async () => {
    const { flags, control, trainer, reports } = setup(true);
    control.attach(trainer);
    Atomics.store(flags!, CONTROL_PAUSE, 1);
    Atomics.store(flags!, CONTROL_STOP, 1);
    await control.withinStep();
    expect(reports).toEqual([]);
    await control.atStepBoundary('student', 6);
    expect(trainer.stops).toBeGreaterThan(0);
    expect(reports).toEqual(['stopping']);
  });
});
