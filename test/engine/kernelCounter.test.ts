import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  asyncReadbackCount,
  countKernels,
  KernelCounter,
  readAsync,
  readbackCount,
} from '../../src/engine/kernelCounter';

describe('kernel counter', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });

  it('counts each kernel invocation by name, forward and backward', async () => {
    const x = tf.tensor1d([1, 2, 3]);
    const { result, kernels } = await countKernels(() => tf.tidy(() => tf.add(tf.mul(x, x), x).dataSync()[2]));
    expect(result).toBe(12);
    expect(kernels.byName).toEqual({ Add: 1, Multiply: 1 });
    expect(kernels.total).toBe(2);
    expect(kernels.gpuPrograms).toBeNull(); // counted on webgpu only (test/engine/kernels/fusedKernels.test.ts)
    const g = await countKernels(() => tf.tidy(() => tf.grad((v: tf.Tensor) => tf.sum(tf.square(v)))(x)));
    expect(g.kernels.total).toBeGreaterThan(2);
    g.result.dispose();
    x.dispose();
  });

  it('stops counting when stopped, and nested counters see their own spans', () => {
    const outer = new KernelCounter();
    const inner = new KernelCounter();
    outer.start();
    tf.tidy(() => tf.neg(tf.scalar(1)));
    inner.start();
    tf.tidy(() => tf.neg(tf.scalar(1)));
    const i = inner.stop();
    const o = outer.stop();
    tf.tidy(() => tf.neg(tf.scalar(1)));
    expect(i.byName.Neg).toBe(1);
    expect(o.byName.Neg).toBe(2);
    expect(() => outer.stop()).toThrow(/not counting/);
  });

  it('counts every read of tensor values to the host, synchronous or not, and nothing else', async () => {
    const x = tf.tensor1d([1, 2, 3]);
    const { kernels } = await countKernels(async () => {
      x.dataSync();
      await x.data();
      x.arraySync();
      await x.array();
      tf.tidy(() => tf.add(x, x)); // a kernel is not a readback
    });
    expect(kernels.readbacks).toBe(4);
    const before = readbackCount();
    await x.bytes();
    expect(readbackCount() - before).toBe(1);
    x.dispose();
  });

  it('counts a read started with readAsync as asynchronous only, and the reads after it as blocking again', async () => {
    const x = tf.tensor1d([1, 2, 3]);
    const blocking0 = readbackCount();
    const async0 = asyncReadbackCount();
    const pending = readAsync(x);
    const y = await x.data(); // a read between the start and the await is an ordinary one
    expect(Array.from((await pending) as Float32Array)).toEqual([1, 2, 3]);
    expect(Array.from(y)).toEqual([1, 2, 3]);
    expect(asyncReadbackCount() - async0).toBe(1);
    expect(readbackCount() - blocking0).toBe(1);
    x.dispose();
    // a read that fails before reaching the engine (disposed tensor) leaves the next read blocking
    await expect(readAsync(x)).rejects.toThrow(/disposed/);
    const z = tf.tensor1d([4]);
    await z.data();
    expect(readbackCount() - blocking0).toBe(2);
    expect(asyncReadbackCount() - async0).toBe(1);
    z.dispose();
  });
});
