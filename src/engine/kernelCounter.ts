// Counts kernel dispatches: every registered-kernel invocation that goes through the tfjs engine (forward ops,
// gradient ops and optimizer updates alike). One backend kernel may launch more than one GPU program on webgpu
// (e.g. softmax), so on GPU backends this is a lower bound of GPU dispatches; on cpu/wasm it is exact.
import * as tf from '@tensorflow/tfjs';

export interface KernelCounts {
  /** kernel invocations while counting */
  total: number;
  /** invocations per kernel name, most frequent first */
  byName: Record<string, number>;
}

type KernelParams = { kernelName?: string };
type EngineLike = { runKernelFunc: (p: KernelParams) => unknown };

let active: Map<string, number>[] = [];
let original: EngineLike['runKernelFunc'] | null = null;

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
}

function uninstall(): void {
  if (original === null || active.length > 0) return;
  delete (tf.engine() as unknown as Partial<EngineLike>).runKernelFunc;
  original = null;
}

function summarize(m: Map<string, number>): KernelCounts {
  const entries = [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return { total: entries.reduce((s, [, n]) => s + n, 0), byName: Object.fromEntries(entries) };
}

/** A counter that can be started and stopped around any code (nesting with other counters is fine). */
export class KernelCounter {
  private counts: Map<string, number> | null = null;

  start(): void {
    if (this.counts !== null) throw new Error('KernelCounter.start: already counting');
    install();
    this.counts = new Map();
    active.push(this.counts);
  }

  stop(): KernelCounts {
    const m = this.counts;
    if (m === null) throw new Error('KernelCounter.stop: not counting');
    active = active.filter((x) => x !== m);
    this.counts = null;
    uninstall();
    return summarize(m);
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
