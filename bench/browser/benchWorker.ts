// The bench worker: starts one backend exactly as the app's training worker does (same wasm asset map), then runs
// the shared workloads (src/engine/benchWorkloads.ts) and posts one JSON result. Backends that cannot start
// report available: false with the reason.
import * as tf from '@tensorflow/tfjs';
import { BackendUnavailableError, initBackend, wasmRuntimeInfo, type BackendName } from '../../src/engine/backend';
import { runWorkloads } from '../../src/engine/benchWorkloads';
import { WASM_FILE_URLS } from '../../src/app/worker/wasmAssets';
import { softwareEmulation } from '../../src/app/worker/backendProbe';
import type { BenchReply, BenchRequest } from './protocol';

interface Scope {
  postMessage(message: BenchReply): void;
  onmessage: ((event: MessageEvent<BenchRequest>) => void) | null;
}
const scope = self as unknown as Scope;

interface AdapterInfo {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}

/** The WebGPU adapter's identity (what a real GPU reports; SwiftShader says google/swiftshader). */
async function webgpuAdapter(): Promise<AdapterInfo | null> {
  const gpu = (
    navigator as { gpu?: { requestAdapter(): Promise<{ info?: AdapterInfo; isFallbackAdapter?: boolean } | null> } }
  ).gpu;
  const adapter = await gpu?.requestAdapter();
  if (!adapter) return null;
  const i = adapter.info ?? {};
  return {
    vendor: i.vendor,
    architecture: i.architecture,
    device: i.device,
    description: i.description,
    isFallbackAdapter: i.isFallbackAdapter ?? adapter.isFallbackAdapter,
  };
}

/** The WebGL renderer string (unmasked where the browser allows). */
function webglRenderer(): string | null {
  const gl = new OffscreenCanvas(1, 1).getContext('webgl2');
  if (!gl) return null;
  const ext = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return renderer;
}

async function bench(request: BenchRequest): Promise<Record<string, unknown>> {
  const tfBackend: BackendName = request.backend === 'wasm-threaded' ? 'wasm' : request.backend;
  const threads = request.backend === 'wasm-threaded' ? (request.threads ?? navigator.hardwareConcurrency) : 1;
  const header: Record<string, unknown> = { backend: request.backend };
  try {
    await initBackend(tfBackend, { wasmPath: WASM_FILE_URLS, wasmThreads: threads });
  } catch (e) {
    if (!(e instanceof BackendUnavailableError)) throw e;
    return { ...header, available: false, reason: e.message };
  }
  const wasm = await wasmRuntimeInfo();
  if (wasm !== null) {
    header.wasm = { ...wasm, requestedThreads: threads };
    if (request.backend === 'wasm-threaded' && wasm.flavour !== 'threaded-simd') {
      return {
        ...header,
        available: false,
        reason: `threaded wasm did not start: the ${wasm.flavour} binary loaded (crossOriginIsolated: ${String(globalThis.crossOriginIsolated)})`,
      };
    }
  }
  if (tfBackend === 'webgpu') header.adapter = await webgpuAdapter();
  if (tfBackend === 'webgl') header.renderer = webglRenderer();
  let options = request.options;
  const software = tfBackend === 'webgpu' || tfBackend === 'webgl' ? await softwareEmulation(tfBackend) : null;
  if (software !== null) {
    header.softwareGpu = software;
    if (request.softwareGpuMinimal === true) {
      options = { ...options, steps: 1, rollouts: 1, warmup: 0 };
      header.countsReducedForSoftwareGpu = { steps: 1, rollouts: 1, warmup: 0 };
    }
  }
  const progress = (message: string) => scope.postMessage({ type: 'progress', message });
  const result = await runWorkloads({ ...options, progress });
  return { ...header, available: true, tfjs: tf.version.tfjs, ...result };
}

scope.onmessage = (event) => {
  bench(event.data).then(
    (result) => scope.postMessage({ type: 'result', result }),
    (e: unknown) =>
      scope.postMessage({ type: 'error', message: e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e) }),
  );
};
