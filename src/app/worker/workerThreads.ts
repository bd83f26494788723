// How many wasm threads a training worker takes, carried in its name (`retirelab-trainer threads=N`, read by
// trainingWorker.ts): every core, or an equal share of them while a queue runs two runs at a time.
const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
let lanes = 1;

/** The number of runs that share the cores from now on (1, or 2 while a queue runs two at a time). */
export function shareCores(runs: number): void {
  lanes = Math.max(1, runs);
}

/** The name to give the next training worker. */
export function trainingWorkerName(): string {
  return lanes > 1 ? `retirelab-trainer threads=${Math.max(1, Math.floor(cores / lanes))}` : 'retirelab-trainer';
}

/** The logical cores of this machine (navigator.hardwareConcurrency). */
export const logicalCores = cores;
