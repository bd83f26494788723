import { describe, expect, it, vi } from 'vitest';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import { trajectoryKeyOf } from '../../src/core/experiment/trajectoryKey';
import { browserMemoryBudget, queueMemoryRefusal } from '../../src/app/runs/queueMemory';
import { createQueue, populationPlan, type RunQueue } from '../../src/app/runs/runQueue';
import { populationFootprint } from '../../src/engine/trainer/populationMemory';
import { lookupPreset } from '../support/presets';

// counts the trajectory keys the plan computes (the real function underneath)
vi.mock('../../src/core/experiment/trajectoryKey', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/core/experiment/trajectoryKey')>();
  return { ...real, trajectoryKeyOf: vi.fn(real.trajectoryKeyOf) };
});

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

/** The plan as populationOf packs it, item by item, scanning forward (the run's own rule; quadratic). */
function forwardScanPlan(q: RunQueue): { leader: number; riders: number[] }[] {
  const size = q.populationSize ?? 1;
  const taken = new Set<number>();
  const plan: { leader: number; riders: number[] }[] = [];
  q.items.forEach((item, index) => {
    if (taken.has(index)) return;
    const riders: number[] = [];
    if (size > 1 && !q.spec.matchTemperature && item.status !== 'completed')
      for (let i = index + 1; i < q.items.length && riders.length < size - 1; i++) {
        const other = q.items[i]!;
        if (
          other.status === 'pending' &&
          !taken.has(i) &&
          trajectoryKeyOf(other.config) === trajectoryKeyOf(item.config)
        )
          riders.push(i);
      }
    for (const i of riders) taken.add(i);
    plan.push({ leader: index, riders });
  });
  return plan;
}

describe('populationPlan, which the memory check and the queue form use', () => {
  it('computes each item’s trajectory key once: linear in the queue’s runs', () => {
    const values = Array.from({ length: 100 }, (_, i) => 0.001 + i * 1e-6);
    const queue = createQueue(retireShell(), [], 'wasm', [0, 1], { 'student.lambdaOpd': values }, undefined, 3);
    const counted = vi.mocked(trajectoryKeyOf);
    counted.mockClear();
    queueMemoryRefusal(queue, { bytes: 2 ** 40, source: 'x' });
    // 200 items, each its own key: the forward scan computed 2 keys per pair (about 40,000)
    expect(counted).toHaveBeenCalledTimes(200);
  });

  it('packs as the run does (each item scanning forward), whatever the items’ statuses and sizes', () => {
    const statuses = ['pending', 'pending', 'completed', 'failed', 'stopped', 'pending'] as const;
    const base = createQueue(retireShell(), [], 'wasm', [0, 1], arms, undefined, 3);
    for (let trial = 0; trial < 60; trial++) {
      const queue: RunQueue = {
        ...base,
        populationSize: 1 + (trial % 5),
        items: base.items.map((item, i) => ({
          ...item,
          status: statuses[(i * 7 + trial * 3 + ((i * trial) % 5)) % 6]!,
        })),
      };
      expect(populationPlan(queue)).toEqual(forwardScanPlan(queue));
    }
  });
});
