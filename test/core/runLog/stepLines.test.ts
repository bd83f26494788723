import { describe, expect, it } from 'vitest';
import {
  checkStepLines,
  describeStepLineFault,
  endedStageSteps,
  resumableCheckpoint,
  stepOrderFault,
  type StepLinePlace,
} from '../../../src/core/runLog/stepLines';

const steps = (stage: StepLinePlace['stage'], from: number, to: number): StepLinePlace[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ stage, step: from + i }));

/** the hole a reload left in a lesson run: 397 of 400 student lines, 128–130 missing */
const holed = [...steps('sft', 1, 50), ...steps('student', 1, 127), ...steps('student', 131, 400)];

describe('the step lines check', () => {
  it("takes a stage's next step and names a repeat, a step back and a skip (the rule the CLI's log check shares)", () => {
    expect([0, 1, 2, 5].map((prev) => stepOrderFault(prev, prev + 1))).toEqual([null, null, null, null]);
    expect(stepOrderFault(3, 3)).toBe('repeated');
    expect(stepOrderFault(3, 2)).toBe('out of order');
    expect(stepOrderFault(3, 5)).toBe('missing');
    expect(stepOrderFault(0, 2)).toBe('missing');
  });

  it('passes whole lines and names the first missing step of a hole', () => {
    expect(checkStepLines([...steps('sft', 1, 50), ...steps('student', 1, 400)], { sft: 50, student: 400 })).toBeNull();
    const fault = checkStepLines(holed, { sft: 50, student: 400 });
    expect(fault).toEqual({ stage: 'student', step: 128, kind: 'missing' });
    expect(describeStepLineFault(fault!)).toBe('student step 128 is missing');
  });

  it('names a missing tail of a stage that ended, and a repeated or out-of-order line', () => {
    expect(checkStepLines(steps('student', 1, 397), { student: 400 })).toEqual({
      stage: 'student',
      step: 398,
      kind: 'missing',
    });
    expect(checkStepLines([...steps('student', 1, 3), { stage: 'student', step: 3 }])).toEqual({
      stage: 'student',
      step: 3,
      kind: 'repeated',
    });
    expect(checkStepLines([...steps('student', 1, 3), { stage: 'student', step: 2 }])).toMatchObject({
      step: 2,
      kind: 'out of order',
    });
    expect(checkStepLines([...steps('student', 1, 2), ...steps('sft', 1, 2)])).toMatchObject({
      stage: 'sft',
      kind: 'out of order',
    });
    // a stage with no line at all, though it ended after 10 steps
    expect(checkStepLines([], { sft: 10 })).toEqual({ stage: 'sft', step: 1, kind: 'missing' });
  });

  it('reads each trained stage’s length from its end event only', () => {
    expect(
      endedStageSteps([
        { type: 'stage', stage: 'sft', status: 'start', totalSteps: 50 },
        { type: 'stage', stage: 'sft', status: 'end', totalSteps: 50 },
        { type: 'stage', stage: 'student', status: 'start', totalSteps: 400 },
        { type: 'stage', stage: 'demonstrations', status: 'end', totalSteps: 0 },
      ]),
    ).toEqual({ sft: 50 });
  });
});

describe('the checkpoint a resume starts from', () => {
  const names = ['sft-000000', 'student-000000', 'student-000125', 'student-000130', 'student-000135'];

  it('is the newest one before the hole, not the newest one', () => {
    // the reload kept student-000130 but lost lines 128–130: resuming there would leave the hole
    expect(resumableCheckpoint(names, [...steps('sft', 1, 50), ...steps('student', 1, 127)], { sft: 50 })).toBe(
      'student-000125',
    );
    expect(resumableCheckpoint(names, holed, { sft: 50 })).toBe('student-000125');
  });

  it('is the newest one when every line before it is stored, and needs earlier stages whole', () => {
    expect(resumableCheckpoint(names, [...steps('sft', 1, 50), ...steps('student', 1, 133)], { sft: 50 })).toBe(
      'student-000130',
    );
    // SFT ended after 50 steps but only 40 lines are stored: only its own start qualifies
    expect(resumableCheckpoint(names, steps('sft', 1, 40), { sft: 50 })).toBe('sft-000000');
    expect(resumableCheckpoint(['student-000010'], steps('student', 1, 5))).toBeNull();
  });
});
