// The WebGPU device the lab trains on, and how it fails loudly.
//
// tfjs-backend-webgpu 4.22 creates its device with WebGPU's default limits (8 storage buffers per shader stage) and
// its AddN kernel binds every input at once, so `tf.addN` of ≥ 8 tensors fails pipeline validation. WebGPU reports
// such failures as events, not exceptions: the op returns a stale buffer and training silently computes nothing.
// This module (1) registers the backend with the adapter's own storage-buffer limit, (2) replaces AddN with a
// version that sums in chunks the limit allows, and (3) records every validation / out-of-memory / internal error
// and a lost device, so the trainer can stop with a message naming the kernel instead of drawing flat lines.
import * as tf from '@tensorflow/tfjs';

/** A WebGPU error the run cannot continue after (validation, out of memory, internal, device lost). */
export class GpuError extends Error {
  constructor(
    message: string,
    /** the tfjs program named in the error ("AddNPackedProgram"), when the message names one */
    readonly kernel: string | null,
  ) {
    super(message);
    this.name = 'GpuError';
  }
}

/** Names of GPUs emulated on the CPU (what a machine without a GPU exposes): slower than WebAssembly here. */
export const SOFTWARE_RENDERER = /swiftshader|llvmpipe|softpipe|software|lavapipe/i;

/** What the adapter and device offer; shown by the app and recorded by the benchmarks. */
export interface WebgpuDeviceInfo {
  vendor: string;
  /** e.g. 'nvidia-h200' (empty where the adapter does not say) */
  device: string;
  architecture: string;
  description: string;
  isFallbackAdapter: boolean;
  maxStorageBuffersPerShaderStage: number;
}

interface DeviceLike {
  limits: { maxStorageBuffersPerShaderStage: number };
  lost: Promise<{ reason?: string; message?: string }>;
  addEventListener(type: 'uncapturederror', listener: (e: { error: { message: string } }) => void): void;
  pushErrorScope(filter: 'validation' | 'out-of-memory' | 'internal'): void;
  popErrorScope(): Promise<{ message: string } | null>;
}

interface WebgpuBackendLike {
  device: DeviceLike;
}

const errors: string[] = [];
/** errors reported by deferred scopes (withDeferredGpuErrorScope), with the work they are attributed to */
const scopedErrors: { message: string; where: string }[] = [];
/** pops of deferred scopes not yet collected by settleGpuErrorScopes */
let pendingScopes: Promise<void>[] = [];
let deviceInfo: WebgpuDeviceInfo | null = null;
let guardedDevice: DeviceLike | null = null;

/** Most errors Dawn/Chromium report name the pipeline by its label, which tfjs sets to the program's name. */
function kernelOf(message: string): string | null {
  const m = /"([A-Za-z0-9_]+Program)"/.exec(message) ?? /\b([A-Z][A-Za-z0-9]+Program)\b/.exec(message);
  return m ? (m[1] as string) : null;
}

/** The first line of a WebGPU message, at most ~300 characters (Dawn appends long "While …" traces). */
function firstLines(message: string): string {
  const text = message.replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function toGpuError(message: string, where: string): GpuError {
  const kernel = kernelOf(message);
  const named = kernel ? ` in kernel ${kernel}` : '';
  return new GpuError(
    `WebGPU error${named} during ${where}: ${firstLines(message)} — the run stopped because results after a GPU error are not computed; try another backend (wasm) or a smaller model`,
    kernel,
  );
}

/**
 * Registers 'webgpu' with tfjs (replacing tfjs's own registration) so that the device asks for the adapter's
 * maxStorageBuffersPerShaderStage instead of the default 8; every other limit and feature as tfjs requests them.
 * Call after `navigator.gpu` exists and `@tensorflow/tfjs-backend-webgpu` has been imported.
 */
export async function registerWebgpuBackend(): Promise<void> {
  const { WebGPUBackend } = await import('@tensorflow/tfjs-backend-webgpu');
  const gpu = (globalThis as unknown as { navigator: { gpu: GPU } }).navigator.gpu;
  // tfjs registered its own factory at import time only if navigator.gpu existed then
  if (tf.findBackendFactory('webgpu') !== null) tf.removeBackend('webgpu');
  tf.registerBackend(
    'webgpu',
    async () => {
      const adapter = await gpu.requestAdapter({
        powerPreference: tf.env().getBool('WEBGPU_USE_LOW_POWER_GPU') ? 'low-power' : 'high-performance',
      });
      if (adapter === null) throw new Error('navigator.gpu.requestAdapter() returned null (no WebGPU adapter)');
      const features: GPUFeatureName[] = [];
      if (adapter.features.has('timestamp-query')) features.push('timestamp-query');
      const l = adapter.limits;
      const device = await adapter.requestDevice({
        requiredFeatures: features,
        requiredLimits: {
          maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
          maxComputeWorkgroupsPerDimension: l.maxComputeWorkgroupsPerDimension,
          maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
          maxBufferSize: l.maxBufferSize,
          maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
          maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
          maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
        },
      });
      const info = (adapter as unknown as { info?: GPUAdapterInfo }).info;
      deviceInfo = {
        vendor: info?.vendor ?? '',
        device: info?.device ?? '',
        architecture: info?.architecture ?? '',
        description: info?.description ?? '',
        isFallbackAdapter: (adapter as unknown as { isFallbackAdapter?: boolean }).isFallbackAdapter ?? false,
        maxStorageBuffersPerShaderStage: device.limits.maxStorageBuffersPerShaderStage,
      };
      return new WebGPUBackend(device, info);
    },
    3,
  );
}

/**
 * AddN for webgpu that never binds more inputs than the device allows: sums in chunks of (limit − 1) inputs, then
 * sums the partial sums. Same result as tfjs's kernel wherever that one works (float addition in the same order
 * within a chunk).
 */
function installChunkedAddN(maxInputs: number): void {
  const original = tf.getKernel('AddN', 'webgpu');
  if (original === undefined) return;
  const kernelFunc = original.kernelFunc;
  tf.unregisterKernel('AddN', 'webgpu');
  tf.registerKernel({
    kernelName: 'AddN',
    backendName: 'webgpu',
    kernelFunc: (args) => {
      const backend = args.backend as unknown as { disposeData(id: object): void };
      let inputs = args.inputs as unknown as tf.TensorInfo[];
      const partials: tf.TensorInfo[] = [];
      while (inputs.length > maxInputs) {
        const next: tf.TensorInfo[] = [];
        for (let i = 0; i < inputs.length; i += maxInputs) {
          const chunk = inputs.slice(i, i + maxInputs);
          const out = (
            chunk.length === 1 ? chunk[0] : kernelFunc({ ...args, inputs: chunk as never })
          ) as tf.TensorInfo;
          if (chunk.length > 1) partials.push(out);
          next.push(out);
        }
        inputs = next;
      }
      const result = kernelFunc({ ...args, inputs: inputs as never }) as tf.TensorInfo;
      for (const p of partials) backend.disposeData(p.dataId);
      return result;
    },
  });
}

/**
 * After tf.setBackend('webgpu') succeeded: the chunked AddN, and error capture on the device. Idempotent per device.
 */
export function guardWebgpuDevice(): void {
  const backend = tf.backend() as unknown as WebgpuBackendLike;
  const device = backend.device;
  if (device === guardedDevice) return;
  guardedDevice = device;
  errors.length = 0;
  // one binding is the output
  installChunkedAddN(Math.max(2, device.limits.maxStorageBuffersPerShaderStage - 1));
  device.addEventListener('uncapturederror', (e) => errors.push(e.error.message));
  void device.lost.then((info) => {
    if (guardedDevice === device) errors.push(`device lost (${info.reason ?? 'unknown'}): ${info.message ?? ''}`);
  });
}

/** The adapter and device the webgpu backend runs on (null before the backend started). */
export function webgpuDeviceInfo(): WebgpuDeviceInfo | null {
  return deviceInfo;
}

/**
 * Throws GpuError when the active webgpu device reported an error since the last check (or was lost). A no-op on
 * other backends. Errors arrive as events; call this after a step's readback.
 */
export function assertGpuHealthy(where: string): void {
  if (tf.getBackend() !== 'webgpu') return;
  const scoped = scopedErrors[0];
  if (scoped !== undefined) {
    // one failure, reported once: what the failed work caused outside its scope (an invalid command buffer) too
    scopedErrors.length = 0;
    errors.length = 0;
    throw toGpuError(scoped.message, scoped.where);
  }
  if (errors.length === 0) return;
  const first = errors[0] as string;
  errors.length = 0;
  throw toGpuError(first, where);
}

/**
 * Runs the synchronous `fn` (work that only queues GPU commands) inside WebGPU error scopes (validation,
 * out-of-memory) WITHOUT waiting for them: the pops are collected later, by settleGpuErrorScopes or, once they have
 * resolved, by assertGpuHealthy, and an error is attributed to `where`. Awaiting a pop waits for the GPU to finish
 * the scope's work, so a per-step await would stall the queue; this does not. Plain call on other backends.
 */
export function withDeferredGpuErrorScope<T>(where: string, fn: () => T): T {
  if (tf.getBackend() !== 'webgpu') return fn();
  const device = (tf.backend() as unknown as WebgpuBackendLike).device;
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  try {
    return fn();
  } finally {
    const oom = device.popErrorScope();
    const validation = device.popErrorScope();
    pendingScopes.push(
      Promise.all([oom, validation]).then(
        ([o, v]) => {
          const e = o ?? v;
          if (e) scopedErrors.push({ message: e.message, where });
        },
        (e: unknown) => {
          scopedErrors.push({ message: e instanceof Error ? e.message : String(e), where });
        },
      ),
    );
  }
}

/**
 * Waits for the deferred scopes opened so far (cheap once the device has finished their work, e.g. after a
 * read-back) and throws GpuError, naming the scope's work, when one of them reported an error.
 */
export async function settleGpuErrorScopes(where: string): Promise<void> {
  if (pendingScopes.length > 0) {
    const pending = pendingScopes;
    pendingScopes = [];
    await Promise.all(pending);
  }
  assertGpuHealthy(where);
}

/**
 * Runs `fn` inside WebGPU error scopes (validation, out-of-memory) and throws GpuError if any call in it failed:
 * errors are then attributed to exactly this piece of work. Plain call on other backends.
 */
export async function withGpuErrorScope<T>(where: string, fn: () => Promise<T>): Promise<T> {
  if (tf.getBackend() !== 'webgpu') return fn();
  const device = (tf.backend() as unknown as WebgpuBackendLike).device;
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  let result: T;
  try {
    result = await fn();
  } finally {
    const oom = await device.popErrorScope();
    const validation = await device.popErrorScope();
    const e = oom ?? validation;
    // an exception from fn wins; a GPU error found here is reported once fn itself succeeded
    if (e) errors.unshift(e.message);
  }
  assertGpuHealthy(where);
  return result;
}
