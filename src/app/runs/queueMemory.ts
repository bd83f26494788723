// A queue's largest population must fit in the tab's memory (engine/trainer/populationMemory.ts): refused in the
// queue form, with the figure, before anything is queued.
import type { MemoryBudget } from '../../engine/trainer/populationMemory';
import { populationRefusal } from '../../engine/trainer/populationMemory';
import { populationPlan, type RunQueue } from './runQueue';

const GIB = 1024 ** 3;

/**
 * What a population may use in this tab: a quarter of the device's memory where the browser says it
 * (navigator.deviceMemory, GiB, Chromium only and capped at 8), else 1 GiB.
 */
export function browserMemoryBudget(deviceMemory: number | undefined = deviceMemoryGiB()): MemoryBudget {
  return deviceMemory !== undefined && Number.isFinite(deviceMemory) && deviceMemory > 0
    ? { bytes: (deviceMemory * GIB) / 4, source: `this tab allows a population (a quarter of ${deviceMemory} GiB)` }
    : { bytes: GIB, source: 'this tab allows a population (the browser does not say its memory; 1 GiB assumed)' };
}

function deviceMemoryGiB(): number | undefined {
  return typeof navigator === 'undefined'
    ? undefined
    : (navigator as Navigator & { deviceMemory?: number }).deviceMemory;
}

/** Why the queue's largest population does not fit `budget`, or null (`plan`: its populationPlan, when made). */
export function queueMemoryRefusal(
  queue: RunQueue,
  budget: MemoryBudget,
  plan: readonly { leader: number; riders: number[] }[] = populationPlan(queue),
): string | null {
  let largest: { leader: number; riders: number[] } | null = null;
  for (const p of plan) if (!largest || p.riders.length > largest.riders.length) largest = p;
  if (!largest || largest.riders.length === 0) return null;
  return populationRefusal(queue.items[largest.leader]!.config, 1 + largest.riders.length, budget);
}
