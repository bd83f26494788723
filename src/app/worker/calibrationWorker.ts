// A short-lived worker of the start-up thread calibration (train/startupCalibration.ts): starts the wasm backend with
// the thread count its name carries (`retirelab-calibration threads=N`), times the probe once
// (engine/threadCalibration.ts), posts {threads, ms} — the threads XNNPACK really used — or {error}, and closes.
// first: binds this worker to the app's origin before any other module runs (originGuard.ts)
import './originGuard';
import { initBackend, wasmRuntimeInfo } from '../../engine/backend';
import { timeProbe } from '../../engine/threadCalibration';
import { WASM_FILE_URLS } from './wasmAssets';

const named = /threads=(\d+)/.exec((self as { name?: string }).name ?? '');
const threads = named ? Math.max(1, Number(named[1])) : 1;
const scope = self as unknown as { postMessage(m: unknown): void; close(): void };

void (async () => {
  try {
    await initBackend('wasm', { wasmPath: WASM_FILE_URLS, wasmThreads: threads });
    const ms = await timeProbe();
    const info = await wasmRuntimeInfo();
    scope.postMessage({ threads: info?.threads ?? threads, ms });
  } catch (e) {
    scope.postMessage({ error: e instanceof Error ? e.message : String(e) });
  } finally {
    scope.close();
  }
})();
