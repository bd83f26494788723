// Which WebAssembly build the training worker runs, beside the backend name: "threaded-simd × 2 threads" (the
// multi-threaded SIMD binary; needs a cross-origin-isolated page) or "simd × 1 thread". The worker announces it on
// a BroadcastChannel (backendProbe.ts) once the wasm backend has started; this module listens from import time on,
// so a badge mounted later still shows the latest announcement. Its tooltip also gives the start-up thread
// calibration's timings and choice (startupCalibration.ts).
import { useSyncExternalStore } from 'react';
import type { ThreadCalibration } from '../../core/threadChoice';
import { onThreadCalibration, threadCalibration } from './startupCalibration';
import { WASM_RUNTIME_CHANNEL, type WasmRuntimeAnnouncement } from '../worker/wasmRuntimeChannel';

let latest: WasmRuntimeAnnouncement | null = null;
const listeners = new Set<() => void>();

if (typeof BroadcastChannel !== 'undefined') {
  new BroadcastChannel(WASM_RUNTIME_CHANNEL).onmessage = (event: MessageEvent<WasmRuntimeAnnouncement>) => {
    latest = event.data;
    for (const listener of listeners) listener();
  };
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** "calibration: 2 threads 120 ms, 1 thread 140 ms → 2 (measured)" */
export function calibrationText(c: ThreadCalibration | null): string {
  if (c === null) return 'thread calibration: not finished when the run started (default: one thread per core)';
  const t = c.timings.map((x) => `${x.threads} thread${x.threads === 1 ? '' : 's'} ${x.ms.toFixed(0)} ms`).join(', ');
  return `thread calibration: ${t ? `${t} → ` : ''}${c.chosen} (${c.reason})`;
}

/** Shown only while the run's backend is wasm and the worker has announced its build. */
export function BackendBadge({ backend }: { backend: string | null | undefined }) {
  const wasm = useSyncExternalStore(subscribe, () => latest);
  const calibration = useSyncExternalStore(onThreadCalibration, threadCalibration);
  if (backend !== 'wasm' || wasm === null) return null;
  const why = wasm.crossOriginIsolated
    ? `${wasm.hardwareConcurrency} logical cores`
    : 'the page is not cross-origin isolated, so no threads';
  return (
    <span
      className="badge"
      data-testid="run-wasm"
      title={`WebAssembly build and XNNPACK threads (${why}); ${calibrationText(calibration)}`}
    >
      {wasm.flavour} × {wasm.threads} {wasm.threads === 1 ? 'thread' : 'threads'}
    </span>
  );
}
