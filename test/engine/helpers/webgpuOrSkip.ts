// A test's backend, or — for webgpu only — the reason it could not start, so its tests skip with that reason
// printed instead of failing where no WebGPU adapter exists (a machine without SwiftShader's Vulkan driver or a GPU).
// Any other backend that fails to start fails the test file.
import * as tf from '@tensorflow/tfjs';
import { initBackend, type BackendName } from '../../../src/engine/backend';

export class BackendOrSkip {
  private reason: string | null = null;

  /** Starts `backend` (call it in beforeAll); false when it is webgpu and no adapter exists. */
  async init(backend: BackendName): Promise<boolean> {
    this.reason = null;
    try {
      await initBackend(backend);
    } catch (e) {
      if (backend !== 'webgpu') throw e;
      this.reason = e instanceof Error ? e.message : String(e);
      return false;
    }
    if (tf.getBackend() !== backend) throw new Error(`initBackend('${backend}') left '${tf.getBackend()}' active`);
    return true;
  }

  /** whether the last init started its backend */
  get available(): boolean {
    return this.reason === null;
  }

  /** Skips the running test, printing why, when the last init found no WebGPU adapter. */
  skipIfMissing(ctx: { skip: (note?: string) => never }): void {
    if (this.reason === null) return;
    console.warn(`SKIPPED (no webgpu): ${this.reason}`);
    ctx.skip(this.reason);
  }
}
