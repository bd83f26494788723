// Messages between the bench page (benchPage.ts) and its worker (benchWorker.ts). Each backend runs in a fresh
// worker, because tfjs-backend-wasm picks its binary (threaded or not) once per realm, when it first loads.
import type { BenchOptions } from '../../src/engine/benchWorkloads';

/** What the browser bench can measure: tfjs backends, with wasm split into its single- and multi-threaded binaries. */
export type BrowserBenchBackend = 'webgpu' | 'webgl' | 'wasm-threaded' | 'wasm' | 'cpu';
export const BROWSER_BENCH_BACKENDS: readonly BrowserBenchBackend[] = [
  'webgpu',
  'webgl',
  'wasm-threaded',
  'wasm',
  'cpu',
];

export interface BenchRequest {
  backend: BrowserBenchBackend;
  /** wasm-threaded only: threads to request (default navigator.hardwareConcurrency) */
  threads?: number;
  /** webgpu/webgl on a software adapter (SwiftShader: seconds to minutes per W1 step): 1 step, 1 rollout, no warm-up */
  softwareGpuMinimal?: boolean;
  options: Omit<BenchOptions, 'progress'>;
}

export type BenchReply =
  | { type: 'progress'; message: string }
  | { type: 'result'; result: Record<string, unknown> }
  | { type: 'error'; message: string };
