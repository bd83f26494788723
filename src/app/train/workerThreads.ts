// How many wasm threads a training worker takes, carried in its name (`retirelab-trainer threads=N`, read by
// trainingWorker.ts): the start-up calibration's choice (startupCalibration.ts) once it has one, else every core; an
// equal share of the cores while a queue runs two runs at a time.
import { threadCalibration } from './startupCalibration';
const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
let lanes = 1;

/** The number of runs that share the cores from now on (1, or 2 while a queue runs two at a time). */
export function shareCores(runs: number): void {
  lanes = Math.max(1, runs);
}

/** The name to give the next training worker. */
export function trainingWorkerName(): string {
  if (lanes > 1) return `retirelab-trainer threads=${Math.max(1, Math.floor(cores / lanes))}`;
  const c = threadCalibration();
  return c ? `retirelab-trainer threads=${c.chosen}` : 'retirelab-trainer';
}

/** The logical cores of this machine (navigator.hardwareConcurrency). */
export const logicalCores = cores;
