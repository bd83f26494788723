// The lab's WebGPU device guards (src/engine/webgpuDevice.ts), in Node through Dawn on SwiftShader: tf.addN over
// more tensors than WebGPU binds at once returns the right sum, and a kernel the GPU refuses is reported as a
// GpuError naming the kernel instead of returning a stale buffer.
import * as tf from '@tensorflow/tfjs';
import { webgpu_util } from '@tensorflow/tfjs-backend-webgpu';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../../src/engine/backend';
import {
  assertGpuHealthy,
  GpuError,
  settleGpuErrorScopes,
  webgpuDeviceInfo,
  withDeferredGpuErrorScope,
  withGpuErrorScope,
} from '../../src/engine/webgpuDevice';

/** A program that binds `inputs` storage buffers plus its output: more than the device allows when inputs ≥ limit. */
class TooManyBuffersTestProgram {
  variableNames: string[];
  outputShape = [4];
  workgroupSize: [number, number, number] = [64, 1, 1];
  dispatchLayout = webgpu_util.flatDispatchLayout(this.outputShape);
  dispatch = webgpu_util.computeDispatch(this.dispatchLayout, this.outputShape, this.workgroupSize);
  size = true;
  shaderKey: string;
  constructor(inputs: number) {
    this.variableNames = Array.from({ length: inputs }, (_, i) => `T${i}`);
    this.shaderKey = `tooManyBuffersTest${inputs}`;
  }
  getUserCode(): string {
    const sum = this.variableNames.map((v) => `get${v}ByOutputIndex(index)`).join(' + ');
    return `fn main(index: i32) { if (index < uniforms.size) { setOutputAtIndex(index, ${sum}); } }`;
  }
}

type RunProgram = (p: unknown, inputs: tf.TensorInfo[], dtype: string) => tf.TensorInfo;

beforeAll(async () => {
  await initBackend('webgpu');
});

describe('the webgpu device', () => {
  it('asks the adapter for its own storage-buffer limit and records what it runs on', () => {
    const info = webgpuDeviceInfo();
    expect(info).not.toBeNull();
    expect(info!.maxStorageBuffersPerShaderStage).toBeGreaterThanOrEqual(8);
  });

  it('sums any number of tensors with tf.addN, past the number of buffers a shader may bind', async () => {
    const limit = webgpuDeviceInfo()!.maxStorageBuffersPerShaderStage;
    const before = tf.memory().numTensors;
    for (const n of [2, 7, 8, limit - 1, limit, limit + 1, 3 * limit + 2]) {
      const xs = Array.from({ length: n }, (_, i) => tf.tensor1d([i + 1, -(i + 1), 0.5]));
      const s = tf.addN(xs);
      const v = await s.data();
      // Σ (i+1) for i < n, exactly representable
      expect(Array.from(v)).toEqual([(n * (n + 1)) / 2, -(n * (n + 1)) / 2, 0.5 * n]);
      tf.dispose([...xs, s]);
    }
    assertGpuHealthy('addN test');
    expect(tf.memory().numTensors).toBe(before);
  });

  it('reports a kernel the GPU refuses as a GpuError naming the kernel', async () => {
    const limit = webgpuDeviceInfo()!.maxStorageBuffersPerShaderStage;
    const run = (tf.backend() as unknown as { runWebGPUProgram: RunProgram }).runWebGPUProgram.bind(tf.backend());
    const xs = Array.from({ length: limit }, () => tf.ones([4]));
    const err = await withGpuErrorScope('the refused kernel', async () => {
      const out = run(new TooManyBuffersTestProgram(limit), xs, 'float32');
      const t = tf.engine().makeTensorFromTensorInfo(out);
      await t.data();
      t.dispose();
    }).catch((e: unknown) => e);
    tf.dispose(xs);
    expect(err).toBeInstanceOf(GpuError);
    expect((err as GpuError).kernel).toBe('TooManyBuffersTestProgram');
    expect((err as GpuError).message).toMatch(
      /WebGPU error in kernel TooManyBuffersTestProgram during the refused kernel/,
    );
  });

  it('reports a kernel refused inside a deferred scope when the scopes are settled, naming the scope', async () => {
    const limit = webgpuDeviceInfo()!.maxStorageBuffersPerShaderStage;
    const run = (tf.backend() as unknown as { runWebGPUProgram: RunProgram }).runWebGPUProgram.bind(tf.backend());
    const xs = Array.from({ length: limit }, () => tf.ones([4]));
    // the scope's work only queues: nothing waits on the device until the read below
    const t = withDeferredGpuErrorScope('student step 5', () =>
      tf.engine().makeTensorFromTensorInfo(run(new TooManyBuffersTestProgram(limit), xs, 'float32')),
    );
    await t.data();
    tf.dispose([...xs, t]);
    await expect(settleGpuErrorScopes('student step 6')).rejects.toThrow(
      /kernel TooManyBuffersTestProgram during student step 5/,
    );
  });

  it('reports an error raised outside any scope at the next health check, once', async () => {
    const limit = webgpuDeviceInfo()!.maxStorageBuffersPerShaderStage;
    const run = (tf.backend() as unknown as { runWebGPUProgram: RunProgram }).runWebGPUProgram.bind(tf.backend());
    // Uncaptured errors arrive as events. The guard's listener was added when the backend started, so it has run
    // when this one, added after it, is called: wait for that event, not for a time.
    const device = (tf.backend() as unknown as { device: EventTarget }).device;
    const reported = new Promise<void>((resolve) =>
      device.addEventListener('uncapturederror', () => resolve(), { once: true }),
    );
    const xs = Array.from({ length: limit + 1 }, () => tf.ones([4]));
    const t = tf.engine().makeTensorFromTensorInfo(run(new TooManyBuffersTestProgram(limit + 1), xs, 'float32'));
    await t.data();
    tf.dispose([...xs, t]);
    await reported;
    expect(() => assertGpuHealthy('student step 3')).toThrow(/kernel TooManyBuffersTestProgram during student step 3/);
    expect(() => assertGpuHealthy('student step 4')).not.toThrow();
  });
});
