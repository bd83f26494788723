// The page's start-up thread calibration: where the page is cross-origin isolated and has more than one logical core,
// one short-lived calibration worker per candidate (every core, then 1 thread; one after the other, so they do not
// compete) times W1-shaped products (engine/threadCalibration.ts), and training workers then take the faster count
// (workerThreads.ts). An explicit override wins: `?threads=N` in the page URL or localStorage `retirelab.wasmThreads`.
// A run started before the calibration has finished takes the default (one thread per logical core).
import { chooseThreads, type ThreadCalibration, type ThreadTiming } from '../../core/threadChoice';

const OVERRIDE_KEY = 'retirelab.wasmThreads';
/** a calibration worker that has not answered after this long counts as failed */
const TIMEOUT_MS = 15_000;

let result: ThreadCalibration | null = null;
let running: Promise<ThreadCalibration> | null = null;
const listeners = new Set<() => void>();

/** The calibration's result once it has one (null before). */
export function threadCalibration(): ThreadCalibration | null {
  return result;
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
    const w = new Worker(new URL('./calibrationWorker.ts', import.meta.url), {
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
