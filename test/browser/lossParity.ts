// Browser side of the loss parity harness: runs test/engine/losses/parityFixture.ts on a chosen backend inside the
// page and returns plain JSON. The Node test (lossParity.e2e.test.ts) compares it with its own cpu results.
import * as tf from '@tensorflow/tfjs';
import { initBackend, type BackendName } from '../../src/engine/backend';
import { countKernels } from '../../src/engine/kernelCounter';
import { setFusedKernelsEnabled, useFusedKernels } from '../../src/engine/kernels/registerWebgpuKernels';
import { computeParityOutputs, type ParityOutputs } from '../engine/losses/parityFixture';

export interface ParityRun {
  backend: BackendName;
  ok: boolean;
  outputs?: ParityOutputs;
  leakedTensors?: number;
  /**
   * webgpu only: the same fixture with the lab's fused WGSL kernels turned off (composed tfjs ops), to compare the
   * fused kernels with the ops they replace inside the browser
   */
  composedOutputs?: ParityOutputs;
  /** why the backend could not start, or what threw */
  error?: string;
  /** e.g. webgl's float precision, which sets tf.train.adam's default epsilon there */
  info?: Record<string, unknown>;
}

async function run(backend: BackendName): Promise<ParityRun> {
  try {
    // served by the Vite dev server from the repository root; Vite does not copy .wasm files anywhere
    await initBackend(backend, { wasmPath: '/node_modules/@tensorflow/tfjs-backend-wasm/dist/' });
  } catch (e) {
    return { backend, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  try {
    const fused = useFusedKernels();
    const { result, kernels } = await countKernels(() => computeParityOutputs());
    const { outputs, leakedTensors } = result;
    let composedOutputs: ParityOutputs | undefined;
    if (fused) {
      setFusedKernelsEnabled(false);
      try {
        composedOutputs = (await computeParityOutputs()).outputs;
      } finally {
        setFusedKernelsEnabled(true);
      }
    }
    const info: Record<string, unknown> = {
      active: tf.getBackend(),
      fusedKernels: fused,
      fusedKernelCalls: Object.entries(kernels.byName)
        .filter(([k]) => k.startsWith('Retire'))
        .reduce((n, [, c]) => n + c, 0),
      crossOriginIsolated: (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated ?? false,
      backendEpsilon: tf.backend().epsilon(),
    };
    if (backend === 'webgl') info.floatPrecision = tf.backend().floatPrecision();
    return { backend, ok: true, outputs, leakedTensors, info, ...(composedOutputs ? { composedOutputs } : {}) };
  } catch (e) {
    return { backend, ok: false, error: e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e) };
  }
}

(globalThis as unknown as { lossParity: { run: typeof run; ready: boolean } }).lossParity = { run, ready: true };
