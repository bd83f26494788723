// The channel on which the training worker announces the wasm binary it runs (backendProbe.ts posts, the page's
// BackendBadge listens). Kept free of tfjs imports so the page bundle does not pull the engine in.
import type { WasmRuntimeInfo } from '../../engine/backend';

export const WASM_RUNTIME_CHANNEL = 'retirelab-wasm-runtime';

/** The wasm flavour, XNNPACK's real thread count, and the worker's isolation and core count. */
export interface WasmRuntimeAnnouncement extends WasmRuntimeInfo {
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
}
