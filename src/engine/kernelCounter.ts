// Counts kernel dispatches: every registered-kernel invocation that goes through the tfjs engine (forward ops,
// gradient ops and optimizer updates alike). One backend kernel may launch more than one GPU program on webgpu
// (e.g. softmax), and some launch none (Reshape, Identity and same-dtype Cast only relabel a buffer), so on webgpu
// `total` is not the number of GPU dispatches: `gpuPrograms` counts those (every WGSL program the webgpu backend
// dispatches while counting, the lab's own kernels included); it is null on other backends.
//
// Readbacks: every read of a tensor's values that goes through the tfjs engine (data, dataSync, array, arraySync,
// bytes, buffer all end in engine.read or engine.readSync). On a GPU each one waits for the device to finish the
// queued work and copies the result to the host, so it is the number of times the host and the device meet.
// `readbackCount()` is a running total since the hook was installed (a step measures the difference); counters
// report the readbacks made while they count. The hook stays installed once made (one increment per read).
// A read started with `readAsync` is counted apart (`asyncReadbackCount()`): its caller queues more device work
// before it awaits the values, so the device does not sit idle while the host waits (a student step's statistics,
// policyUpdate.ts).
import * as tf from '@tensorflow/tfjs';

export interface KernelCounts {
  /** kernel invocations while counting */
  total: number;
  /** invocations per kernel name, most frequent first */
  byName: Record<string, number>;
  /** WGSL programs dispatched by the webgpu backend while counting; null when the active backend is not webgpu */
  gpuPrograms: number | null;
  /** tensor reads to the host (engine.read / engine.readSync) while counting, on every backend */
  readbacks: number;
}

type ReadingEngine = { read: (dataId: object) => unknown; readSync: (dataId: object) => unknown };

let readbacks = 0;
let asyncReadbacks = 0;
/** set while `readAsync` starts its read: the hook counts that one read as asynchronous */
let nextReadAsync = false;
let readHookInstalled = false;

/** Wraps engine.read and engine.readSync once (own properties over the prototype's methods). */
function installReadHook(): void {
  if (readHookInstalled) return;
  readHookInstalled = true;
  const engine = tf.engine() as unknown as ReadingEngine;
  const read = engine.read;
  const readSync = engine.readSync;
  engine.read = function (this: unknown, dataId: object): unknown {
    if (nextReadAsync) asyncReadbacks++;
    else readbacks++;
    nextReadAsync = false;
    return read.call(this, dataId);
  };
  engine.readSync = function (this: unknown, dataId: object): unknown {
    readbacks++;
    return readSync.call(this, dataId);
  };
}

/**
 * Tensor reads to the host since the hook was installed (the first call installs it and returns 0): take the
 * difference of two calls to count the readbacks of a span of code, e.g. a training step's time/readbacks.
 */
export function readbackCount(): number {
  installReadHook();
  return readbacks;
}

/** Reads started with `readAsync` since the hook was installed (not in `readbackCount()`). */
export function asyncReadbackCount(): number {
  installReadHook();
  return asyncReadbacks;
}

/**
 * Starts reading `t` to the host and returns the pending values, counted as an asynchronous read: the caller queues
 * further device work before awaiting them. (`data()` calls engine.read synchronously, before its promise.)
 */
export function readAsync(t: tf.Tensor): ReturnType<tf.Tensor['data']> {
  installReadHook();
  nextReadAsync = true;
  try {
    return t.data();
  } finally {
    nextReadAsync = false;
  }
}

type KernelParams = { kernelName?: string };
type EngineLike = { runKernelFunc: (p: KernelParams) => unknown };

type ProgramRunner = { runWebGPUProgram?: (...args: unknown[]) => unknown };

let active: Map<string, number>[] = [];
let original: EngineLike['runKernelFunc'] | null = null;
/** the webgpu backend whose runWebGPUProgram is wrapped while counting (null on other backends) */
let gpuBackend: ProgramRunner | null = null;
/** an own runWebGPUProgram the backend had before (restored on uninstall), or undefined */
let gpuOwnBefore: PropertyDescriptor | undefined;
/** key of the per-counter program count inside each counter's map (not a kernel name: kernels never start with #) */
const GPU_PROGRAMS = '#gpuPrograms';

function install(): void {
  if (original !== null) return;
  const engine = tf.engine() as unknown as EngineLike;
  const base = engine.runKernelFunc;
  original = base;
  // an own property on the engine instance shadows the prototype method; removed again when the last counter stops
  engine.runKernelFunc = function (this: unknown, p: KernelParams): unknown {
    const name = p.kernelName;
    if (name !== undefined) for (const m of active) m.set(name, (m.get(name) ?? 0) + 1);
    return base.call(this, p);
  };
  const backend = tf.backend() as unknown as ProgramRunner;
  const run = backend.runWebGPUProgram;
  if (typeof run === 'function') {
    gpuBackend = backend;
    gpuOwnBefore = Object.getOwnPropertyDescriptor(backend, 'runWebGPUProgram');
    backend.runWebGPUProgram = function (this: unknown, ...args: unknown[]): unknown {
      for (const m of active) m.set(GPU_PROGRAMS, (m.get(GPU_PROGRAMS) ?? 0) + 1);
      return run.apply(this, args);
    };
  }
}

function uninstall(): void {
  if (original === null || active.length > 0) return;
  delete (tf.engine() as unknown as Partial<EngineLike>).runKernelFunc;
  if (gpuBackend !== null) {
    delete gpuBackend.runWebGPUProgram; // the prototype method shows through again…
    if (gpuOwnBefore !== undefined) Object.defineProperty(gpuBackend, 'runWebGPUProgram', gpuOwnBefore); // …or the own one
  }
  gpuBackend = null;
  gpuOwnBefore = undefined;
  original = null;
}

function summarize(m: Map<string, number>, onGpu: boolean, reads: number): KernelCounts {
  const gpuPrograms = onGpu ? (m.get(GPU_PROGRAMS) ?? 0) : null;
  const entries = [...m.entries()]
    .filter(([k]) => k !== GPU_PROGRAMS)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return {
    total: entries.reduce((s, [, n]) => s + n, 0),
    byName: Object.fromEntries(entries),
    gpuPrograms,
    readbacks: reads,
  };
}

/** A counter that can be started and stopped around any code (nesting with other counters is fine). */
export class KernelCounter {
  private counts: Map<string, number> | null = null;
  private readbacksAtStart = 0;

  start(): void {
    if (this.counts !== null) throw new Error('KernelCounter.start: already counting');
    install();
    this.counts = new Map();
    this.readbacksAtStart = readbackCount();
    active.push(this.counts);
  }

  stop(): KernelCounts {
    const m = this.counts;
    if (m === null) throw new Error('KernelCounter.stop: not counting');
    active = active.filter((x) => x !== m);
    this.counts = null;
    const onGpu = gpuBackend !== null;
    uninstall();
    return summarize(m, onGpu, readbackCount() - this.readbacksAtStart);
  }
}

/** Runs fn (sync or async) and returns its result with the kernels it dispatched. */
export async function countKernels<T>(fn: () => T | Promise<T>): Promise<{ result: T; kernels: KernelCounts }> {
  const c = new KernelCounter();
  c.start();
  let kernels: KernelCounts;
  let result: T;
  try {
    result = await fn();
  } finally {
    kernels = c.stop();
  }
  return { result, kernels };
}
