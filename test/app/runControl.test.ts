import { describe, expect, it } from 'vitest';
import { CONTROL_PAUSE, CONTROL_SLOTS, CONTROL_STOP, type RunControlState } from '../../src/app/worker/protocol';
import { RunControl } from '../../src/app/worker/runControl';

function setup(shared: boolean) {
  const flags = shared ? new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4)) : null;
  const reports: RunControlState[] = [];
  const control = new RunControl(flags, (s) => reports.push(s));
  const trainer = {
    stops: 0,
    requestStop() {
      this.stops++;
    },
  };
  return { flags, reports, control, trainer };
}

describe('run control inside the worker', () => {
  it('stops the trainer at the step boundary after the shared stop flag is set, reporting it once', () => {
    const { flags, reports, control, trainer } = setup(true);
    control.attach(trainer);
    control.atStepBoundary();
    expect(trainer.stops).toBe(0);
    Atomics.store(flags!, CONTROL_STOP, 1);
    control.atStepBoundary();
    control.atStepBoundary();
    expect(trainer.stops).toBeGreaterThan(0);
    expect(reports).toEqual(['stopping']);
  });

  it('applies a stop asked for before the trainer existed as soon as it is attached', () => {
    const { control, trainer, reports } = setup(false);
    control.stop();
    control.attach(trainer);
    expect(trainer.stops).toBe(1);
    expect(reports).toEqual(['stopping']);
  });

  it('does not block on a pause flag when a stop is also set', () => {
    const { flags, control, trainer, reports } = setup(true);
    control.attach(trainer);
    Atomics.store(flags!, CONTROL_PAUSE, 1);
    Atomics.store(flags!, CONTROL_STOP, 1);
    control.atStepBoundary(); // would block the test forever if it waited
    expect(reports).toEqual(['stopping']);
  });

  it('holds a rollout while paused by message and lets it go on resume', async () => {
    const { control, trainer, reports } = setup(false);
    control.attach(trainer);
    control.pause();
    let passed = false;
    const rollout = control.beforeRollout().then(() => (passed = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(passed).toBe(false);
    expect(reports).toEqual(['paused']);
    control.resume();
    await rollout;
    expect(reports).toEqual(['paused', 'running']);
  });

  it('releases a paused rollout on stop, and the run ends instead of resuming', async () => {
    const { control, trainer, reports } = setup(false);
    control.attach(trainer);
    control.pause();
    const rollout = control.beforeRollout();
    await new Promise((r) => setTimeout(r, 5));
    control.stop();
    await rollout;
    expect(trainer.stops).toBeGreaterThan(0);
    expect(reports).toEqual(['paused', 'stopping']);
  });
});
