// Backend selection for the engine, in Node and in a browser worker alike. Node-only modules are imported
// dynamically behind an environment check so this file also bundles for the browser.
import * as tf from '@tensorflow/tfjs';
import { BackendError } from '../core/errors';
import { BACKEND_NAMES, type BackendName, isOneOf } from '../core/methodVocabulary';
import { registerWebgpuKernels } from './kernels/registerWebgpuKernels';
import { installWasmKernelFixes } from './wasmKernels';
import { vulkanIcdToUse } from './vulkanDriver';
import { guardWebgpuDevice, registerWebgpuBackend } from './webgpuDevice';

// The backend names are declared in core/methodVocabulary.ts; the type is re-exported for the engine's many users.
export type { BackendName };

export interface InitBackendOptions {
  /**
   * wasm only: folder (URL or path, ending in '/') that serves tfjs-backend-wasm's `.wasm` files. In Node the
   * default is node_modules/@tensorflow/tfjs-backend-wasm/dist/; in a browser the app must pass its own URL, or a
   * map from each `.wasm` file name to its URL (what a bundler's hashed asset URLs give).
   */
  wasmPath?: string | Readonly<Record<string, string>>;
  /** wasm only: XNNPACK thread count (threads need crossOriginIsolated in a browser; Node runs single-threaded) */
  wasmThreads?: number;
  /**
   * webgpu in Node only: the Vulkan driver manifest. Default: a GPU's manifest when the machine has one, else
   * Chromium's SwiftShader (vulkanDriver.ts); VK_ICD_FILENAMES or VK_DRIVER_FILES set in the environment win.
   */
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

/** A backend that cannot start here; the message says why and what to do (a user error: core/errors.ts). */
export class BackendUnavailableError extends BackendError {
  constructor(
    readonly backend: BackendName,
    reason: string,
  ) {
    super(`backend '${backend}' is not available: ${reason}`);
    this.name = 'BackendUnavailableError';
  }
}

/** An environment variable in Node (undefined in a browser). */
function nodeEnv(name: string): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
}

function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string';
}

export function parseBackendName(s: string): BackendName {
  const name = s.trim().toLowerCase();
  if (isOneOf(BACKEND_NAMES, name)) return name;
  throw new Error(`unknown backend '${s}': expected one of ${BACKEND_NAMES.join(', ')}`);
}

// Hide specifiers from bundlers: these modules exist only in Node.
const nodeImport = (specifier: string): Promise<unknown> => import(/* @vite-ignore */ specifier);

/**
 * tfjs-backend-wasm 4.22 caps its XNNPACK thread pool at emscripten_num_logical_cores() / 2, i.e.
 * navigator.hardwareConcurrency / 2 ("2 threads per core"), read once by a static initializer when the module is
 * instantiated; setThreadsCount(n) is then silently clamped to it. On a 2-core machine every request became 1
 * thread (getThreadsCount() === 1, no speed-up). While the module starts, report 2·threads logical cores so the
 * cap equals the requested count, then restore the real navigator.hardwareConcurrency.
 */
async function withWasmCoreCountFor<T>(threads: number | undefined, start: () => Promise<T>): Promise<T> {
  const nav = (globalThis as { navigator?: object }).navigator;
  if (threads === undefined || threads <= 1 || nav === undefined) return start();
  const own = Object.getOwnPropertyDescriptor(nav, 'hardwareConcurrency');
  try {
    Object.defineProperty(nav, 'hardwareConcurrency', { value: 2 * threads, configurable: true });
  } catch {
    return start(); // a navigator that cannot be shadowed: tfjs's own cap applies
  }
  try {
    return await start();
  } finally {
    if (own) Object.defineProperty(nav, 'hardwareConcurrency', own);
    else delete (nav as { hardwareConcurrency?: number }).hardwareConcurrency;
  }
}

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
    if (typeof path === 'object') wasm.setWasmPaths({ ...path });
    else if (path !== undefined) wasm.setWasmPaths(path.endsWith('/') || path.endsWith('.wasm') ? path : path + '/');
    // Threads need the threaded-SIMD binary (browser, crossOriginIsolated); 1 thread selects the plain SIMD
    // binary so no pthread helper workers start at all. Both must be decided before the module first loads.
    if (options.wasmThreads !== undefined && options.wasmThreads <= 1) {
      tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    } else if (options.wasmThreads !== undefined) wasm.setThreadsCount(options.wasmThreads);
    installWasmKernelFixes();
    wasmRegistered = true;
  }
}

async function registerWebgpu(options: InitBackendOptions): Promise<void> {
  if (webgpuRegistered) return;
  const g = globalThis as { navigator?: { gpu?: unknown } };
  if (isNode() && g.navigator?.gpu === undefined) {
    const env = (globalThis as unknown as { process: { env: Record<string, string | undefined> } }).process.env;
    const fs = (await nodeImport('node:fs')) as typeof import('node:fs');
    const list = (folder: string): string[] => (fs.existsSync(folder) ? fs.readdirSync(folder) : []);
    const icd = vulkanIcdToUse(env, options.vulkanIcd, list);
    if (icd !== null) env.VK_ICD_FILENAMES = icd;
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
  // …then replace its registration by one that requests the adapter's storage-buffer limit (webgpuDevice.ts)
  await registerWebgpuBackend();
  registerWebgpuKernels(); // the lab's fused WGSL kernels (kernels/README.md)
  webgpuRegistered = true;
}

/**
 * Makes `name` the active tfjs backend and checks that it really is (tf.setBackend falls back silently).
 * Throws BackendUnavailableError with the reason when it cannot start.
 */
export async function initBackend(name: BackendName, options: InitBackendOptions = {}): Promise<BackendName> {
  if (!isOneOf(BACKEND_NAMES, name)) parseBackendName(name);
  if (name === 'wasm') await registerWasm(options);
  if (name === 'webgpu') await registerWebgpu(options);
  if (name === 'webgl' && isNode()) {
    throw new BackendUnavailableError('webgl', 'WebGL needs a browser (OffscreenCanvas); Node has none');
  }
  let ok = false;
  let cause = '';
  try {
    const start = async () => {
      ok = await tf.setBackend(name);
      await tf.ready();
    };
    await (name === 'wasm' && !isNode() ? withWasmCoreCountFor(options.wasmThreads, start) : start());
  } catch (e) {
    cause = String(e instanceof Error ? e.message : e);
  }
  const active = tf.getBackend();
  if (!ok || active !== name) {
    const hint =
      name !== 'webgpu'
        ? ''
        : isNode()
          ? ` (no WebGPU adapter: VK_ICD_FILENAMES is ${JSON.stringify(nodeEnv('VK_ICD_FILENAMES') ?? null)}; it must name a Vulkan driver manifest that exists, a GPU's such as /usr/share/vulkan/icd.d/nvidia_icd.json, or /usr/lib/chromium/vk_swiftshader_icd.json from the chromium package, a CPU emulation)`
          : ' (no WebGPU adapter in this browser)';
    throw new BackendUnavailableError(
      name,
      `tf.setBackend('${name}') ${ok ? 'succeeded' : 'failed'} but the active backend is '${active}'${cause ? `: ${cause}` : ''}${hint}`,
    );
  }
  if (name === 'webgpu') guardWebgpuDevice();
  return name;
}

/** Which tfjs-backend-wasm binary runs and how many threads XNNPACK really uses (as the backend reports it). */
export interface WasmRuntimeInfo {
  flavour: 'plain' | 'simd' | 'threaded-simd';
  threads: number;
}

/** The active wasm backend's binary and thread count; null when the active backend is not wasm. */
export async function wasmRuntimeInfo(): Promise<WasmRuntimeInfo | null> {
  if (tf.getBackend() !== 'wasm') return null;
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  // the threaded binary is the only one built with pthreads (emscripten's PThread object on the module)
  const module = (tf.backend() as unknown as { wasm?: object }).wasm;
  const threaded = module !== undefined && 'PThread' in module;
  const simd = (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) === true;
  return { flavour: threaded ? 'threaded-simd' : simd ? 'simd' : 'plain', threads: wasm.getThreadsCount() };
}
