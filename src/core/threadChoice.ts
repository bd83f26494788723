// The choice of the wasm thread count from start-up timings (the probe is engine/threadCalibration.ts, the workers
// app/train/startupCalibration.ts). Pure, so the page can use it without pulling tfjs into its bundle.

export interface ThreadTiming {
  /** the thread count XNNPACK really used (as the backend reports it) */
  threads: number;
  /** median ms of the probe */
  ms: number;
}

export interface ThreadCalibration {
  chosen: number;
  timings: ThreadTiming[];
  /** why this count: 'measured', or the reason nothing was measured (override, no isolation, one core, failure) */
  reason: string;
}

/** more threads must beat fewer by this fraction to be chosen (a pool on busy cores is slower, not equal) */
const MARGIN = 0.05;

/** The fastest candidate; one with more threads wins only when it is more than MARGIN faster than one with fewer. */
export function chooseThreads(timings: readonly ThreadTiming[]): ThreadCalibration {
  const valid = timings.filter((t) => Number.isFinite(t.ms) && t.ms > 0 && t.threads >= 1);
  if (valid.length === 0) return { chosen: 1, timings: [...timings], reason: 'no valid timing: 1 thread' };
  const byThreads = [...valid].sort((a, b) => a.threads - b.threads);
  let best = byThreads[0] as ThreadTiming;
  for (const t of byThreads.slice(1)) if (t.ms < best.ms * (1 - MARGIN)) best = t;
  return { chosen: best.threads, timings: [...timings], reason: 'measured' };
}
