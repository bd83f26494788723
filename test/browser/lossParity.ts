// Browser side of the loss parity harness: runs test/engine/losses/parityFixture.ts on a chosen backend inside the
// page and returns plain JSON. The Node test (lossParity.test.ts) compares it with its own cpu results.
import * as tf from '@tensorflow/tfjs';
import { initBackend, type BackendName } from '../../src/engine/backend';
import { computeParityOutputs, type ParityOutputs } from '../engine/losses/parityFixture';

export interface ParityRun {
  backend: BackendName;
  ok: boolean;
  outputs?: ParityOutputs;
  leakedTensors?: number;
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
    const { outputs, leakedTensors } = await computeParityOutputs();
    const info: Record<string, unknown> = {
      active: tf.getBackend(),
      crossOriginIsolated: (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated ?? false,
      backendEpsilon: tf.backend().epsilon(),
    };
    if (backend === 'webgl') info.floatPrecision = tf.backend().floatPrecision();
    return { backend, ok: true, outputs, leakedTensors, info };
  } catch (e) {
    return { backend, ok: false, error: e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e) };
  }
}

(globalThis as unknown as { lossParity: { run: typeof run; ready: boolean } }).lossParity = { run, ready: true };
