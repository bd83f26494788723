// 'auto' picks the fastest backend that is really hardware: a software GPU (SwiftShader, llvmpipe — what a machine
// without a GPU exposes) runs WebGPU and WebGL slower than WebAssembly (docs/platform-notes.md: ~3,600 and ~420 vs
// ~275 ms per step), so auto skips them. An explicit choice is always honoured.
import { wasmRuntimeInfo } from '../../engine/backend';
import { SOFTWARE_RENDERER } from '../../engine/webgpuDevice';
import { WASM_RUNTIME_CHANNEL, type WasmRuntimeAnnouncement } from './wasmRuntimeChannel';

interface GpuAdapterLike {
  isFallbackAdapter?: boolean;
  info?: { isFallbackAdapter?: boolean; vendor?: string; architecture?: string; description?: string };
}
interface GpuLike {
  requestAdapter(): Promise<GpuAdapterLike | null>;
}

/** Why `backend` is a software emulation here (a reason to skip it under 'auto'), or null. */
export async function softwareEmulation(backend: 'webgpu' | 'webgl'): Promise<string | null> {
  try {
    if (backend === 'webgpu') {
      const gpu = (globalThis.navigator as { gpu?: GpuLike } | undefined)?.gpu;
      if (!gpu) return null; // initBackend reports the missing API itself
      const adapter = await gpu.requestAdapter();
      if (!adapter) return null;
      const info = adapter.info ?? {};
      const name = [info.vendor, info.architecture, info.description].filter(Boolean).join(' ');
      if (adapter.isFallbackAdapter === true || info.isFallbackAdapter === true || SOFTWARE_RENDERER.test(name)) {
        return `WebGPU here is a software adapter (${name || 'fallback'}): slower than WebAssembly; choose webgpu to use it anyway`;
      }
      return null;
    }
    if (typeof OffscreenCanvas === 'undefined') return null;
    const gl = new OffscreenCanvas(1, 1).getContext('webgl2');
    if (!gl) return null;
    const ext = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return SOFTWARE_RENDERER.test(renderer)
      ? `WebGL here is a software renderer (${renderer}): slower than WebAssembly; choose webgl to use it anyway`
      : null;
  } catch {
    return null;
  }
}

/**
 * Announces the active wasm backend's flavour and thread count to the page (a BroadcastChannel, so the run protocol
 * stays as it is; every same-origin page of this browser runs the same binary with the same count).
 */
export async function broadcastWasmRuntime(): Promise<void> {
  const info = await wasmRuntimeInfo();
  if (info === null || typeof BroadcastChannel === 'undefined') return;
  const message: WasmRuntimeAnnouncement = {
    ...info,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    hardwareConcurrency: navigator.hardwareConcurrency,
  };
  const channel = new BroadcastChannel(WASM_RUNTIME_CHANNEL);
  channel.postMessage(message);
  channel.close();
}
