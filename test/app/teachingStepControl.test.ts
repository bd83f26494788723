// The step credit of RunControl (runControl.ts, protocol.ts CONTROL_STEP), in Node: a held run with one credit runs
// on — through every rollout of that step (its training and validation rollouts) — without blocking, consumes
// exactly one credit, and reports 'paused' then 'running' to the page.
import { describe, expect, it } from 'vitest';
import { CONTROL_PAUSE, CONTROL_SLOTS, CONTROL_STEP } from '../../src/app/worker/protocol';
import { RunControl } from '../../src/app/worker/runControl';

describe('RunControl step credits', () => {
  it('let a paused run through exactly one step, its validation rollouts included', async () => {
    const flags = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4));
    const reports: string[] = [];
    const control = new RunControl(flags, (s) => reports.push(s));
    Atomics.store(flags, CONTROL_PAUSE, 1);
    Atomics.store(flags, CONTROL_STEP, 2);
    await control.beforeRollout(); // the step's training rollout: takes one credit instead of blocking
    expect(Atomics.load(flags, CONTROL_STEP)).toBe(1);
    await control.beforeRollout(); // its validation rollout: same step, no second credit
    expect(Atomics.load(flags, CONTROL_STEP)).toBe(1);
    control.atStepBoundary(); // the step ended: held again, the second credit starts the next step
    expect(Atomics.load(flags, CONTROL_STEP)).toBe(0);
    expect(reports).toEqual(['paused', 'running', 'paused', 'running']);
  });

  it('holds nothing and takes no credit when the run is not paused', async () => {
    const flags = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4));
    const reports: string[] = [];
    const control = new RunControl(flags, (s) => reports.push(s));
    Atomics.store(flags, CONTROL_STEP, 1);
    await control.beforeRollout();
    control.atStepBoundary();
    expect(Atomics.load(flags, CONTROL_STEP)).toBe(1);
    expect(reports).toEqual([]);
  });
});
