import { describe, expect, it } from 'vitest';
import { ARMS, ARM_ORDER, armOfDemo, armOfSchedule } from '../../src/app/charts/armIdentity';
import { figureColor } from '../../src/app/charts/chartFrame';
import { DEMO_ARMS } from '../../src/core/experiment/demoRecording';

describe('armIdentity', () => {
  it('gives every arm its own name and its own colour, a theme variable with a figure fallback', () => {
    const names = ARM_ORDER.map((a) => ARMS[a].name);
    expect(names).toEqual(['RetireOPD', 'OPD throughout', 'GRPO', 'control']);
    const fallbacks = ARM_ORDER.map((a) => figureColor(ARMS[a].color));
    expect(new Set(fallbacks).size).toBe(ARM_ORDER.length);
    for (const c of fallbacks) expect(c).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('names a run by its student schedule: the gate, OPD that never retires, no teacher; other schedules none', () => {
    expect(armOfSchedule('adaptive')).toBe('retire');
    expect(armOfSchedule('never')).toBe('opd');
    expect(armOfSchedule('none')).toBe('grpo');
    expect(armOfSchedule('fixed:5')).toBeNull();
    expect(armOfSchedule('not a schedule')).toBeNull();
    expect(armOfSchedule(3)).toBeNull();
  });

  it('names every recorded demo run, the Overview and the queue agreeing', () => {
    expect(DEMO_ARMS.map(armOfDemo)).toEqual(['retire', 'opd', 'grpo', 'control']);
  });
});
