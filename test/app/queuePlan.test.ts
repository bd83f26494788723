// The queue form's plan, as its worker makes it (src/app/runs/queuePlan.ts): the same queue, populations and refusals
// the form computed on the main thread.
import { describe, expect, it } from 'vitest';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import { answerPlanRequest, planQueue } from '../../src/app/runs/queuePlan';
import type { QueueFormInput } from '../../src/app/runs/queuePlanProtocol';
import { createQueue, parseAxes, parseSeeds, populationPlan } from '../../src/app/runs/runQueue';
import { lookupPreset } from '../support/presets';

const GIB = 1024 ** 3;
const input = (over: Partial<QueueFormInput> = {}): QueueFormInput => ({
  preset: loadPreset('retire-shell', lookupPreset, PRESET_NAMES),
  overrides: '',
  backend: 'wasm',
  seeds: '0,1',
  axes: 'student.schedule=adaptive,never,none',
  population: '3',
  budget: { bytes: 64 * GIB, source: 'test' },
  now: 1_000,
  ...over,
});

describe('planQueue', () => {
  it('plans 999 runs as createQueue and populationPlan do, counting populations and riders', () => {
    const seeds = Array.from({ length: 333 }, (_, i) => i).join(',');
    const { queue, populations, riding } = planQueue(input({ seeds }));
    const axes = parseAxes('student.schedule=adaptive,never,none');
    const expected = createQueue(input().preset, [], 'wasm', parseSeeds(seeds), axes, 1_000, 3);
    expect(queue.items).toHaveLength(999);
    expect(queue.items.map((i) => i.label)).toEqual(expected.items.map((i) => i.label));
    expect(queue.items[998]!.config).toEqual(expected.items[998]!.config);
    expect({ ...queue, id: '', items: [] }).toEqual({ ...expected, id: '', items: [] });
    const plan = populationPlan(expected);
    expect(populations).toBe(plan.length);
    expect(riding).toBe(plan.reduce((n, p) => n + p.riders.length, 0));
    // adaptive leads, never rides along it; none (GRPO alone) trains alone: 333 × 2 populations, 333 riders
    expect([populations, riding]).toEqual([666, 333]);
  });

  it('keeps the preset’s own axes where the axes were not edited', () => {
    const schedules = loadPreset('schedules', lookupPreset, PRESET_NAMES);
    const { queue } = planQueue(input({ preset: schedules, axes: null, seeds: '0' }));
    expect(queue.spec.axes).toEqual(schedules.sweep!.axes);
  });
});

describe('the planning worker’s answer', () => {
  it('crosses a bad seed, a bad override and a population too large as {name, message} naming the field', () => {
    const error = (over: Partial<QueueFormInput>) => {
      const r = answerPlanRequest({ type: 'plan', id: 7, input: input(over) });
      if (r.type !== 'error') throw new Error(`planned: ${JSON.stringify(r.type)}`);
      expect(r.id).toBe(7);
      return r.error;
    };
    expect(error({ seeds: '0,x' }).message).toMatch(/^seeds: /);
    const override = error({ overrides: 'student.nope=1' });
    expect(override.name).toBe('ConfigError');
    expect(override.message).toContain('student.nope');
    const full = error({ budget: { bytes: 1, source: 'test' } });
    expect(full).toEqual({
      name: 'PopulationTooLargeError',
      message: expect.stringMatching(/^population: a population of 2 runs needs about/),
    });
  });
});
