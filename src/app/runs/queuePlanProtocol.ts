// The one contract between the queue form and its planning worker (queuePlanWorker.ts), which expands a preset ×
// axes × seeds into the queue's runs, packs them into populations and checks the largest against the tab's memory
// off the main thread (999 runs took ≈ 1 s of the page's main thread under load). Requests carry an id; every
// response names it; a failure crosses as {name, message} (a ConfigError's messages joined with "; "). The answer
// is runs/queuePlan.ts's.
import type { Preset } from '../../core/experiment/preset';
import type { MemoryBudget } from '../../engine/trainer/populationMemory';
import type { BackendChoice } from '../../core/methodVocabulary';
import type { RunQueue } from './runQueue';

/** What the queue form holds, as typed (the worker parses it as the form did). */
export interface QueueFormInput {
  preset: Preset;
  /** the overrides text area: one key=value per line */
  overrides: string;
  backend: BackendChoice;
  /** the seeds field, e.g. "0,1,2" */
  seeds: string;
  /** the axes text area (one key=v1,v2 per line), or null to keep the preset's own axes and temperature matching */
  axes: string | null;
  /** the population size field, as typed */
  population: string;
  /** what one population may use in this tab (queueMemory.ts: browserMemoryBudget) */
  budget: MemoryBudget;
  /** the queue's creation time (ms since the epoch): its id is made from it */
  now: number;
}

/** A planned queue: its runs, and how they pack (populations: leaders; riding: runs that ride along a leader). */
export interface QueuePlan {
  queue: RunQueue;
  populations: number;
  riding: number;
}

export type QueuePlanRequest = { type: 'plan'; id: number; input: QueueFormInput };

export type QueuePlanResponse =
  | { type: 'planned'; id: number; plan: QueuePlan }
  /** the form's input makes no queue (a bad seed, axis or override, or a population too large): why */
  | { type: 'error'; id: number; error: { name: string; message: string } };
