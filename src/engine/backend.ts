// Backend selection for the engine, in Node and in a browser worker alike. Node-only modules are imported
// dynamically behind an environment check so this file also bundles for the browser.
import * as tf from '@tensorflow/tfjs';
import { installWasmKernelFixes } from './wasmKernels';

export type BackendName = 'cpu' | 'wasm' | 'webgl' | 'webgpu';
export const BACKEND_NAMES: readonly BackendName[] = ['cpu', 'wasm', 'webgl', 'webgpu'];

export interface InitBackendOptions {
  /**
   * wasm only: folder (URL or path, ending in '/') that serves tfjs-backend-wasm's `.wasm` files. In Node the
   * default is node_modules/@tensorflow/tfjs-backend-wasm/dist/; in a browser the app must pass its own URL.
   */
  wasmPath?: string;
  /** wasm only: XNNPACK thread count (threads need crossOriginIsolated in a browser; Node runs single-threaded) */
  wasmThreads?: number;
  /** webgpu in Node only: Vulkan ICD (default /usr/lib/chromium/vk_swiftshader_icd.json unless already set) */
  vulkanIcd?: string;
  /**
   * webgpu in Node on Linux only: Vulkan loader preloaded when the system has none (libvulkan1 not installed).
   * Default: the copy Chromium ships, /usr/lib/chromium/libvulkan.so.1.
   */
  vulkanLoader?: string;
}

const SYSTEM_VULKAN_LOADERS = [
  '/usr/lib/x86_64-linux-gnu/libvulkan.so.1',
  '/usr/lib/aarch64-linux-gnu/libvulkan.so.1',
  '/usr/lib64/libvulkan.so.1',
  '/usr/lib/libvulkan.so.1',
];

/**
 * Dawn dlopen()s "libvulkan.so.1" by soname. Without the system package, load Chromium's copy into the process
 * first (RTLD_GLOBAL | RTLD_NODELETE, so it stays after Node's addon check fails), and Dawn's dlopen finds it.
 */
async function preloadVulkanLoader(loader: string): Promise<void> {
  const fs = (await nodeImport('node:fs')) as typeof import('node:fs');
  const proc = (globalThis as unknown as { process: NodeJS.Process }).process;
  if (proc.platform !== 'linux') return;
  if (SYSTEM_VULKAN_LOADERS.some((f) => fs.existsSync(f)) || !fs.existsSync(loader)) return;
  const RTLD_NOW = 2;
  const RTLD_GLOBAL = 0x100;
  const RTLD_NODELETE = 0x1000; // glibc value; os.constants.dlopen does not list it
  try {
    proc.dlopen({ exports: {} } as NodeJS.Module, loader, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  } catch {
    // "Module did not self-register" is expected: the library is not a Node addon, but it is now loaded.
  }
}

/** A backend that cannot start here; the message says why and what to do. */
export class BackendUnavailableError extends Error {
  constructor(
    readonly backend: BackendName,
    reason: string,
  ) {
    super(`backend '${backend}' is not available: ${reason}`);
    this.name = 'BackendUnavailableError';
  }
}

export function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string';
}

export function parseBackendName(s: string): BackendName {
  const name = s.trim().toLowerCase();
  if ((BACKEND_NAMES as readonly string[]).includes(name)) return name as BackendName;
  throw new Error(`unknown backend '${s}': expected one of ${BACKEND_NAMES.join(', ')}`);
}

// Hide specifiers from bundlers: these modules exist only in Node.
const nodeImport = (specifier: string): Promise<unknown> => import(/* @vite-ignore */ specifier);

let wasmRegistered = false;
let webgpuRegistered = false;

async function registerWasm(options: InitBackendOptions): Promise<void> {
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  if (!wasmRegistered) {
    let path = options.wasmPath;
    if (path === undefined && isNode()) {
      const { createRequire } = (await nodeImport('node:module')) as typeof import('node:module');
      const { dirname } = (await nodeImport('node:path')) as typeof import('node:path');
      const require = createRequire(import.meta.url);
      // resolves to …/tfjs-backend-wasm/dist/<main>.js; the .wasm files sit beside it
      path = dirname(require.resolve('@tensorflow/tfjs-backend-wasm')) + '/';
    }
    if (path !== undefined) wasm.setWasmPaths(path.endsWith('/') || path.endsWith('.wasm') ? path : path + '/');
    if (options.wasmThreads !== undefined) wasm.setThreadsCount(options.wasmThreads);
    installWasmKernelFixes();
    wasmRegistered = true;
  }
}

async function registerWebgpu(options: InitBackendOptions): Promise<void> {
  if (webgpuRegistered) return;
  const g = globalThis as { navigator?: { gpu?: unknown } };
  if (isNode() && g.navigator?.gpu === undefined) {
    const env = (globalThis as unknown as { process: { env: Record<string, string | undefined> } }).process.env;
    if (env.VK_ICD_FILENAMES === undefined) {
      env.VK_ICD_FILENAMES = options.vulkanIcd ?? '/usr/lib/chromium/vk_swiftshader_icd.json';
    }
    await preloadVulkanLoader(options.vulkanLoader ?? '/usr/lib/chromium/libvulkan.so.1');
    let webgpu: { create: (o: string[]) => unknown; globals: object };
    try {
      webgpu = (await nodeImport('webgpu')) as typeof webgpu;
    } catch (e) {
      throw new BackendUnavailableError('webgpu', `the npm package 'webgpu' could not be loaded (${String(e)})`);
    }
    Object.assign(globalThis, webgpu.globals);
    const gpu = webgpu.create([]);
    // globalThis.navigator is a getter-only property from Node 21 on, absent before: define, never assign.
    if (g.navigator === undefined) {
      Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true, writable: true });
    } else {
      Object.defineProperty(g.navigator, 'gpu', { value: gpu, configurable: true });
    }
  }
  if (g.navigator?.gpu === undefined) {
    throw new BackendUnavailableError('webgpu', 'navigator.gpu is undefined (this browser exposes no WebGPU)');
  }
  // registers the backend at import time, only when navigator.gpu exists: so import it only now
  await import('@tensorflow/tfjs-backend-webgpu');
  webgpuRegistered = true;
}

/**
 * Makes `name` the active tfjs backend and checks that it really is (tf.setBackend falls back silently).
 * Throws BackendUnavailableError with the reason when it cannot start.
 */
export async function initBackend(name: BackendName, options: InitBackendOptions = {}): Promise<BackendName> {
  if (!BACKEND_NAMES.includes(name)) parseBackendName(name);
  if (name === 'wasm') await registerWasm(options);
  if (name === 'webgpu') await registerWebgpu(options);
  if (name === 'webgl' && isNode()) {
    throw new BackendUnavailableError('webgl', 'WebGL needs a browser (OffscreenCanvas); Node has none');
  }
  let ok = false;
  let cause = '';
  try {
    ok = await tf.setBackend(name);
    await tf.ready();
  } catch (e) {
    cause = String(e instanceof Error ? e.message : e);
  }
  const active = tf.getBackend();
  if (!ok || active !== name) {
    const hint =
      name === 'webgpu'
        ? ' (no WebGPU adapter; in Node the Vulkan ICD must exist, e.g. VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json from the chromium package)'
        : '';
    throw new BackendUnavailableError(
      name,
      `tf.setBackend('${name}') ${ok ? 'succeeded' : 'failed'} but the active backend is '${active}'${cause ? `: ${cause}` : ''}${hint}`,
    );
  }
  return name;
}

/**
 * The backends that start here, tried in order (each is initialised once; the active backend afterwards is the
 * one that was active before, or the last one that worked when none was).
 */
export async function availableBackends(
  candidates: readonly BackendName[] = BACKEND_NAMES,
  options: InitBackendOptions = {},
): Promise<{ available: BackendName[]; unavailable: { backend: BackendName; reason: string }[] }> {
  const before = tf.getBackend() as BackendName | undefined;
  const available: BackendName[] = [];
  const unavailable: { backend: BackendName; reason: string }[] = [];
  for (const b of candidates) {
    try {
      await initBackend(b, options);
      available.push(b);
    } catch (e) {
      unavailable.push({ backend: b, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  if (before !== undefined && available.includes(before)) await tf.setBackend(before);
  return { available, unavailable };
}
