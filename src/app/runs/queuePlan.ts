// A queue's plan from the queue form's input: the queue (createQueue: the core's sweep expansion, as `npm run sweep`),
// how its runs pack into populations, and the memory check of its largest population — what the form once computed
// on the main thread on every keystroke. The planning worker (worker/queuePlanWorker.ts) answers with it; where there
// is no Worker the planner (queuePlanner.ts) calls it in the page.
import { ConfigError } from '../../core/experiment/config';
import { overrideLines } from '../overrideLines';
import type { QueueFormInput, QueuePlan, QueuePlanRequest, QueuePlanResponse } from './queuePlanProtocol';
import { queueMemoryRefusal } from './queueMemory';
import { createQueue, parseAxes, parseSeeds, populationPlan } from './runQueue';

/** Thrown where the queue's largest population does not fit the tab's memory (the message gives the figure). */
export class PopulationTooLargeError extends Error {
  override name = 'PopulationTooLargeError';
}

/** The plan of `input`; throws what the form shows (a ConfigError, a seeds/axes Error, PopulationTooLargeError). */
export function planQueue(input: QueueFormInput): QueuePlan {
  const queue = createQueue(
    input.preset,
    overrideLines(input.overrides),
    input.backend,
    parseSeeds(input.seeds),
    // the preset's own axes (and its temperature matching) unless the axes were edited, as the CLI's --vary
    input.axes === null && input.preset.sweep !== null ? null : parseAxes(input.axes ?? ''),
    input.now,
    Number(input.population),
  );
  const plan = populationPlan(queue);
  const tooLarge = queueMemoryRefusal(queue, input.budget, plan);
  if (tooLarge) throw new PopulationTooLargeError(`population: ${tooLarge}`);
  return { queue, populations: plan.length, riding: plan.reduce((n, p) => n + p.riders.length, 0) };
}

/** The form's words for a failure (a ConfigError's messages joined, as the form showed them), as it crosses. */
function crossing(e: unknown): { name: string; message: string } {
  if (e instanceof ConfigError) return { name: e.name, message: e.messages.join('; ') };
  if (e instanceof Error) return { name: e.name, message: e.message };
  return { name: 'Error', message: String(e) };
}

/** The planning worker's answer to `request`. */
export function answerPlanRequest(request: QueuePlanRequest): QueuePlanResponse {
  switch (request.type) {
    case 'plan':
      try {
        return { type: 'planned', id: request.id, plan: planQueue(request.input) };
      } catch (e) {
        return { type: 'error', id: request.id, error: crossing(e) };
      }
    default: {
      const never: never = request.type;
      throw new Error(`unknown queue planning request ${String(never)}`);
    }
  }
}
