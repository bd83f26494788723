// A module worker that samples a recorded checkpoint for the trajectory viewer (engine/checkpointProbe.ts) on
// tfjs's wasm backend with the app's own wasm files, one thread: it never trains, and a page playing a recording
// has no training worker to ask.
// first: binds this worker to the app's origin before any other module runs (originGuard.ts)
import './originGuard';
import { initBackend } from '../../engine/backend';
import { probeCheckpoint } from '../../engine/checkpointProbe';
import type { CheckpointProbeRequest, CheckpointProbeResponse } from '../teaching/checkpointProbeProtocol';
import { WASM_FILE_URLS } from './wasmAssets';

interface WorkerScope {
  postMessage(message: CheckpointProbeResponse): void;
  onmessage: ((event: MessageEvent<CheckpointProbeRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;
let backend: Promise<unknown> | null = null;

scope.onmessage = (event) => {
  const m = event.data;
  if (m?.type !== 'probe-checkpoint') return;
  void (async () => {
    try {
      backend ??= initBackend('wasm', { wasmPath: WASM_FILE_URLS, wasmThreads: 1 });
      await backend;
      const answer = await probeCheckpoint(m.config, new Map(m.files), m.request, m.where);
      scope.postMessage({ type: 'probe-result', id: m.id, ...answer });
    } catch (e) {
      scope.postMessage({ type: 'probe-error', id: m.id, message: e instanceof Error ? e.message : String(e) });
    }
  })();
};
