// What the footer says about threads: how many the lab's WebAssembly runs actually use, and why — the start-up thread
// calibration's choice (src/app/train/startupCalibration.ts, src/core/threadChoice.ts), an override, or one logical
// core. An isolated page only makes threads possible; on a busy or small machine the calibration often finds one
// thread faster, and then "threads on" would be untrue. Pure: the shell passes the calibration in.
import type { ThreadCalibration } from '../../core/threadChoice';

const threads = (n: number) => `${n} thread${n === 1 ? '' : 's'}`;

/**
 * One line: "wasm runs use 1 thread: the start-up calibration timed 2 threads at 140 ms and 1 thread at 120 ms (more
 * threads must be 5 % faster)". `calibration` null: not finished yet (runs then take one thread per logical core).
 */
export function threadUseText(calibration: ThreadCalibration | null, cores: number): string {
  if (calibration === null) {
    return `wasm runs use ${threads(cores)} (one per logical core) until the start-up thread calibration finishes`;
  }
  const n = calibration.chosen;
  const reason = calibration.reason;
  if (reason === 'measured') {
    const timed = calibration.timings.map((t) => `${threads(t.threads)} at ${t.ms.toFixed(0)} ms`).join(' and ');
    return `wasm runs use ${threads(n)}: the start-up calibration timed ${timed} (more threads must be 5 % faster)`;
  }
  if (reason.startsWith('override')) {
    return `wasm runs use ${threads(n)}, as set by ?threads= in the address or localStorage retirelab.wasmThreads`;
  }
  if (reason === 'one logical core') return `wasm runs use ${threads(n)}: this machine has one logical core`;
  return `wasm runs use ${threads(n)} (${reason})`;
}
