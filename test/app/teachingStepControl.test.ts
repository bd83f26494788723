// The step credit of RunControl (runControl.ts, protocol.ts CONTROL_STEP), in Node: a held run with one credit runs
// exactly one training step — through the stage starts and evaluation boundaries inside it — consumes exactly one
// credit, reports 'running' for it and 'paused' at the boundary that ends the step.
import { describe, expect, it } from 'vitest';
import { CONTROL_PAUSE, CONTROL_SLOTS, CONTROL_STEP } from '../../src/app/worker/protocol';
import { RunControl } from '../../src/app/worker/runControl';

function setup() {
  const flags = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4));
  const reports: string[] = [];
  let waits = 0;
  let onWait: (() => void) | null = null;
  // a wait that never ends by itself: a hold that waits shows up in `waits`, and stays held
  const sleep = () =>
    new Promise<void>(() => {
      waits++;
      onWait?.();
    });
  const control = new RunControl(flags, (s) => reports.push(s), { sleep });
  const waiting = () => new Promise<void>((resolve) => (onWait = resolve));
  return { flags, reports, control, waits: () => waits, waiting };
}

describe('RunControl step credits', () => {
  it('let a paused run through exactly one training step, across a stage start, then hold again', async () => {
    const { flags, reports, control, waits, waiting } = setup();
    Atomics.store(flags, CONTROL_PAUSE, 1);
    Atomics.store(flags, CONTROL_STEP, 2);
    await control.atStepBoundary('sft', 8); // held after sft step 8: one credit lets the next step run
    expect(Atomics.load(flags, CONTROL_STEP)).toBe(1);
    await control.atStepBoundary('teacher', 0); // the teacher stage starts inside that step: no hold, no credit
    expect(Atomics.load(flags, CONTROL_STEP)).toBe(1);
    await control.atStepBoundary('teacher', 1); // the step ended: held again, the second credit runs the next one
    expect(Atomics.load(flags, CONTROL_STEP)).toBe(0);
    expect(reports).toEqual(['paused', 'running', 'paused', 'running']);
    expect(waits()).toBe(0);
    let passed = false;
    const held = waiting();
    void control.atStepBoundary('teacher', 2).then(() => (passed = true)); // no credit left: held
    await held;
    expect(passed).toBe(false);
    expect(reports).toEqual(['paused', 'running', 'paused', 'running', 'paused']);
  });

  it('let a credited last step run through the evaluation boundaries to the end', async () => {
    const { flags, reports, control, waits } = setup();
    Atomics.store(flags, CONTROL_PAUSE, 1);
    Atomics.store(flags, CONTROL_STEP, 1);
    await control.atStepBoundary('student', 20);
    for (let i = 0; i < 4; i++) await control.atStepBoundary('evaluation', 0);
    expect(waits()).toBe(0);
    expect(reports).toEqual(['paused', 'running']);
  });

  it('holds nothing and takes no credit when the run is not paused', async () => {
    const { flags, reports, control, waits } = setup();
    Atomics.store(flags, CONTROL_STEP, 1);
    await control.atStepBoundary('student', 4);
    await control.atStepBoundary('student', 5);
    expect(Atomics.load(flags, CONTROL_STEP)).toBe(1);
    expect(reports).toEqual([]);
    expect(waits()).toBe(0);
  });
});
