// The page's start-up thread calibration: where the page is cross-origin isolated and has more than one logical core,
// one short-lived calibration worker per candidate (every core, then 1 thread; one after the other, so they do not
// compete) times W1-shaped products (engine/threadCalibration.ts), and training workers then take the faster count
// (workerThreads.ts). An explicit override wins: `?threads=N` in the page URL or localStorage `retirelab.wasmThreads`.
// The Train view's Start waits for a calibration still going (SETTLE_MS at most, then the default: one thread per
// logical core), so a Start clicked as the page opens gets the measured count too; other starts (the queue) do not
// wait and take the default until the calibration has its result.
import { chooseThreads, type ThreadCalibration, type ThreadTiming } from '../../core/threadChoice';

const OVERRIDE_KEY = 'retirelab.wasmThreads';
/** a calibration worker that has not answered after this long counts as failed */
const TIMEOUT_MS = 15_000;
/** how long a Start waits for a calibration still going */
const SETTLE_MS = 5_000;

let result: ThreadCalibration | null = null;
let running: Promise<ThreadCalibration> | null = null;
const listeners = new Set<() => void>();

/** The calibration's result once it has one (null before). */
export function threadCalibration(): ThreadCalibration | null {
  return result;
}

/** Resolves once the calibration has its result, after SETTLE_MS at most; at once when none was started. */
export async function calibrationSettled(): Promise<void> {
  if (result !== null || running === null) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    running.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, SETTLE_MS))),
  ]);
  clearTimeout(timer);
}

/** Calls `f` when the calibration finishes; returns the unsubscribe function. */
export function onThreadCalibration(f: () => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

function override(): number | null {
  try {
    const fromUrl = new URLSearchParams(globalThis.location?.search ?? '').get('threads');
    const raw = fromUrl ?? globalThis.localStorage?.getItem(OVERRIDE_KEY) ?? null;
    const n = raw === null ? NaN : Number(raw);
    return Number.isInteger(n) && n >= 1 ? n : null;
  } catch {
    return null;
  }
}

function timeOne(threads: number): Promise<ThreadTiming> {
  return new Promise((resolve) => {
    const w = new Worker(new URL('../worker/calibrationWorker.ts', import.meta.url), {
      type: 'module',
      name: `retirelab-calibration threads=${threads}`,
    });
    const done = (t: ThreadTiming): void => {
      clearTimeout(timer);
      w.terminate();
      resolve(t);
    };
    const timer = setTimeout(() => done({ threads, ms: NaN }), TIMEOUT_MS);
    w.onmessage = (e: MessageEvent<{ threads?: number; ms?: number; error?: string }>) =>
      done({ threads: e.data.threads ?? threads, ms: e.data.ms ?? NaN });
    w.onerror = () => done({ threads, ms: NaN });
  });
}

function finish(c: ThreadCalibration): ThreadCalibration {
  result = c;
  for (const f of listeners) f();
  return c;
}

/** Runs the calibration once per page (later calls return the same promise). */
export function calibrateWasmThreads(): Promise<ThreadCalibration> {
  running ??= (async () => {
    const forced = override();
    if (forced !== null) return finish({ chosen: forced, timings: [], reason: `override: ${forced}` });
    const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
    if (globalThis.crossOriginIsolated !== true) {
      return finish({ chosen: 1, timings: [], reason: 'not cross-origin isolated: no threads' });
    }
    if (cores < 2 || typeof Worker === 'undefined') {
      return finish({ chosen: 1, timings: [], reason: 'one logical core' });
    }
    const timings = [await timeOne(cores), await timeOne(1)];
    return finish(chooseThreads(timings));
  })();
  return running;
}
