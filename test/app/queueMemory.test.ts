import { describe, expect, it } from 'vitest';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import { browserMemoryBudget, queueMemoryRefusal } from '../../src/app/runs/queueMemory';
import { createQueue } from '../../src/app/runs/runQueue';
import { populationFootprint } from '../../src/engine/trainer/populationMemory';
import { lookupPreset } from '../support/presets';

const retireShell = () => loadPreset('retire-shell', lookupPreset, PRESET_NAMES);
const arms = { 'student.schedule': ['adaptive', 'never', 'competence-only', 'none'] };

describe('queueMemoryRefusal', () => {
  it('checks the largest population the queue packs: three riding arms, GRPO alone', () => {
    const queue = createQueue(retireShell(), [], 'wasm', [0], arms, undefined, 5);
    const three = populationFootprint(queue.items[0]!.config, 3).totalBytes;
    expect(queueMemoryRefusal(queue, { bytes: three, source: 'x' })).toBeNull();
    expect(queueMemoryRefusal(queue, { bytes: three - 1, source: 'x' })).toMatch(
      /^a population of 3 runs needs about .* at most 2 fit — make the population smaller$/,
    );
  });

  it('has nothing to refuse when every run trains alone', () => {
    const queue = createQueue(retireShell(), [], 'wasm', [0], arms, undefined, 1);
    expect(queueMemoryRefusal(queue, { bytes: 1, source: 'x' })).toBeNull();
  });
});

describe('browserMemoryBudget', () => {
  it('allows a quarter of the memory the browser reports, and 1 GiB where it reports none', () => {
    expect(browserMemoryBudget(8).bytes).toBe(2 * 1024 ** 3);
    expect(browserMemoryBudget(undefined)).toEqual({
      bytes: 1024 ** 3,
      source: 'this tab allows a population (the browser does not say its memory; 1 GiB assumed)',
    });
  });
});
